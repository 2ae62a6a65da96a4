import { acquireDataDirLock, embeddedDataDir, type DataDirLock } from '../db/data-dir-lock.ts';
import { migrate, openOrm, type Orm } from '../db/orm.ts';
import { entities } from '../modules/entities.ts';

export { migrate, type Orm };
export { DataDirLockedError, embeddedDataDir } from '../db/data-dir-lock.ts';

export type DatabaseOptions = Parameters<typeof openOrm>[0];

/**
 * The options for batch work (migrations, `bomcore load`, `export`, key commands): no statement
 * timeout and no read timeout. Those bound a request's time (BOMCORE_STATEMENT_TIMEOUT_MS,
 * BOMCORE_DB_READ_TIMEOUT_MS); a migration's backfill or a 100k-material load may rightly take longer.
 */
export function forBatchWork(config: DatabaseOptions): DatabaseOptions {
  return { ...config, statementTimeoutMs: 0, dbReadTimeoutMs: 0 };
}

/** The lock of each ORM opened on an embedded data directory (none for PostgreSQL and `memory://`). */
const locks = new WeakMap<Orm, DataDirLock>();

/**
 * Opens the service's database with every entity of the modules registered. On an embedded data
 * directory the process first takes the directory's lock (`bomcore.lock`): PGlite has one owner,
 * and a second process (a CLI command while `serve` runs, a second `serve`) is refused with a
 * `DataDirLockedError` naming the owner, before it opens anything. `orm.close()` releases the lock.
 */
export async function openDatabase(config: DatabaseOptions): Promise<Orm> {
  const embeddedDir = embeddedDataDir(config);
  if (embeddedDir) {
    const { mkdirSync } = await import('node:fs');
    // Owner-only, as PostgreSQL keeps its own: the directory holds the data, the demo key and the
    // server's admin socket (src/cli/admin-socket.ts).
    mkdirSync(embeddedDir, { recursive: true, mode: 0o700 });
  }
  const lock = embeddedDir ? acquireDataDirLock(embeddedDir) : null;
  let orm: Orm;
  try {
    orm = await openOrm(config, entities as never);
  } catch (error) {
    lock?.release();
    throw error;
  }
  if (lock) {
    locks.set(orm, lock);
    const close = orm.close.bind(orm);
    orm.close = async (force?: boolean) => {
      try {
        await close(force);
      } finally {
        lock.release();
      }
    };
  }
  return orm;
}

/**
 * Records where a server on this database listens, so a process refused the embedded data
 * directory is told which server holds it. No-op for PostgreSQL and in-memory databases.
 */
export function recordListenAddress(orm: Orm, address: string): void {
  locks.get(orm)?.setAddress(address);
}

/**
 * Records the admin socket of a server on this embedded database in its lock file, where the CLI
 * finds it (src/cli/admin-client.ts). No-op for PostgreSQL and in-memory databases.
 */
export function recordAdminSocket(orm: Orm, path: string): void {
  locks.get(orm)?.setAdminSocket(path);
}
