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

/**
 * How long a test's request waits for a pooled connection. The default (5 s) is a bound on load, so
 * like load shedding and the request deadline (test/helpers/test-app.ts) it measures the machine: on a
 * busy 2-core CI machine the last of 200 concurrent writes to one row (two instances, 10 connections
 * each) queued longer than 5 s and was answered 503. Far away here, below the tests' 45 s deadline; the
 * tests of the pool wait itself (test/reliability/fault-database.test.ts, idempotency-faults) open
 * their own ORM with the default or a short wait.
 */
const TEST_POOL_WAIT_MS = 30_000;

/** The test database: PostgreSQL when DATABASE_URL is set (migrated by global setup), else the worker's in-memory PGlite. */
export async function openTestOrm(): Promise<Orm> {
  if (usingPostgres) return openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://', dbConnectTimeoutMs: TEST_POOL_WAIT_MS });
  return openDatabase({ databaseUrl: null, dataDir: 'memory://', pglite: await sharedPglite() });
}

/** A shop id no other test file uses, so files can share one PostgreSQL database. */
export function uniqueShopId(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}
