import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate, openDatabase } from '../../src/app/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Embedded runs: a migrated PGlite data directory (a `dumpDataDir` tarball) each test file's database starts from. */
    pgliteSnapshot: string | null;
  }
}

/**
 * With DATABASE_URL (PostgreSQL) the test files share one database: migrate it once here, and each
 * file works in shops of its own. Without it every file opens its own in-memory PGlite; creating one
 * runs initdb in WebAssembly (seconds on a busy machine), so the migrated database is made once here
 * and each file starts from its dump (about a third of the time).
 */
export default async function setup(project: TestProject): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    const orm = await openDatabase({ databaseUrl, dataDir: 'memory://' });
    try {
      await migrate(orm);
    } finally {
      await orm.close();
    }
    project.provide('pgliteSnapshot', null);
    return;
  }
  project.provide('pgliteSnapshot', await migratedPgliteSnapshot());
}

/** The dump of a freshly migrated PGlite, cached in the temp folder under a hash of the migrations. */
async function migratedPgliteSnapshot(): Promise<string> {
  const folder = new URL('../../migrations/', import.meta.url);
  const hash = createHash('sha256');
  for (const name of readdirSync(folder).sort()) hash.update(name).update(readFileSync(new URL(name, folder)));
  const path = join(tmpdir(), `bomcore-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(path)) return path;
  const orm = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
  try {
    await migrate(orm);
    const pglite = await (orm.em.getDriver().getConnection() as unknown as { getNativeClient(): Promise<{ dumpDataDir(compression: 'none'): Promise<Blob> }> })
      .getNativeClient();
    const dump = await pglite.dumpDataDir('none');
    // Written aside and renamed: two runs at once never read a half-written file.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } finally {
    await orm.close();
  }
  return path;
}
