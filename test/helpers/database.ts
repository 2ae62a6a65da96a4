import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { migrate, openDatabase, type Orm } from '../../src/app/database.ts';

export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const databaseLabel = usingPostgres ? 'PostgreSQL' : 'PGlite';

let snapshot: Blob | undefined;

/** The migrated PGlite the global setup dumped (test/helpers/global-setup.ts), read once per file. */
function pgliteSnapshot(): Blob | undefined {
  if (snapshot) return snapshot;
  const path = inject('pgliteSnapshot');
  if (path) snapshot = new Blob([readFileSync(path)]);
  return snapshot;
}

let workerPglite: Promise<object> | undefined;

/**
 * The worker's in-memory PGlite, made once from the snapshot and migrated: the test files a worker
 * runs share it, as the files of a PostgreSQL run share one database (each works in shops of its
 * own). The ORM that made it is never closed, so it stays open for the worker's next file.
 */
function sharedPglite(): Promise<object> {
  workerPglite ??= (async () => {
    const keeper = await openDatabase({ databaseUrl: null, dataDir: 'memory://', pgliteSnapshot: pgliteSnapshot() });
    // From the snapshot this finds nothing pending; a migration added since is applied here.
    await migrate(keeper);
    return (keeper.em.getDriver().getConnection() as unknown as { getNativeClient(): Promise<object> }).getNativeClient();
  })();
  return workerPglite;
}

/** The test database: PostgreSQL when DATABASE_URL is set (migrated by global setup), else the worker's in-memory PGlite. */
export async function openTestOrm(): Promise<Orm> {
  if (usingPostgres) return openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://' });
  return openDatabase({ databaseUrl: null, dataDir: 'memory://', pglite: await sharedPglite() });
}

/** A shop id no other test file uses, so files can share one PostgreSQL database. */
export function uniqueShopId(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}
