import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../kernel/config.ts';

/** The embedded data directory of a configuration; null for PostgreSQL and `memory://`. */
export function embeddedDataDir(config: { databaseUrl: string | null; dataDir: string }): string | null {
  return !config.databaseUrl && !config.dataDir.startsWith('memory:') ? config.dataDir : null;
}

/** The file, inside the embedded data directory, that names the one process using it. */
export const LOCK_FILE = 'bomcore.lock';

/** What the lock file holds (JSON). */
export interface LockOwner {
  pid: number;
  host: string;
  /** The bomcore command holding the directory (`serve`, `key create`…). */
  command: string;
  startedAt: string;
  /** Where a `serve` holding the directory listens, once it does. */
  address?: string;
  /** The unix socket on which a `serve` holding the directory takes `bomcore key` and `export` (src/cli/admin-socket.ts). */
  adminSocket?: string;
  /** Tells this process's lock from a later one with a reused pid. */
  token: string;
}

/** A second process asked for a data directory another live process holds. */
export class DataDirLockedError extends ConfigError {
  readonly owner: LockOwner;

  constructor(dataDir: string, owner: LockOwner) {
    const who = `bomcore ${owner.command} (pid ${owner.pid}${owner.address ? `, listening on ${owner.address}` : ''}, since ${owner.startedAt})`;
    const serving = owner.command.split(' ')[0] === 'serve';
    super([
      `the embedded database in ${dataDir} is in use by ${who}.`,
      'The embedded database (PGlite) has one owner: a second process would lose its writes.',
      serving
        ? `\`bomcore key\` and \`bomcore export\` work while it runs (the server does them); for this command, stop that server first (Ctrl-C in its terminal, or kill ${owner.pid}) and run it again.`
        : `Wait for that command to finish (or stop it: kill ${owner.pid}) and run this command again.`,
      'For several processes at once, use PostgreSQL: set DATABASE_URL.',
      `If no such process runs any more, delete ${join(dataDir, LOCK_FILE)}.`,
    ].join('\n'));
    this.owner = owner;
  }
}

export interface DataDirLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** Records the address a server listens on, for the message other processes get. */
  setAddress(address: string): void;
  /** Records the admin socket of a server, where the CLI sends `key` and `export` while it runs. */
  setAdminSocket(path: string): void;
  /** Removes the lock file if it is still this process's. Idempotent, synchronous (safe in an `exit` handler). */
  release(): void;
}

/** Who holds the data directory, as its lock file says (null: no lock file, or one being written). */
export function readLockOwner(dataDir: string): LockOwner | null {
  return readOwner(join(dataDir, LOCK_FILE));
}

/** Whether the process a lock file names still runs (on this host; a lock of another host counts as live). */
export function ownerIsLive(owner: LockOwner): boolean {
  return owner.host !== hostname() || alive(owner.pid);
}

function readOwner(path: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof parsed.pid === 'number' ? (parsed as LockOwner) : null;
  } catch {
    return null;
  }
}

/** Whether `pid` names a live process on this host (EPERM: alive, owned by another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory for this process: creates `bomcore.lock` exclusively (O_EXCL) with the
 * pid, host, command and start time. A lock whose process is gone (same host, pid not alive) is
 * stale and taken over; a live one throws `DataDirLockedError` naming its owner. A lock file that
 * cannot be read (being written this instant) counts as live. The lock is removed by `release`
 * and, as a last resort, when the process exits.
 */
export function acquireDataDirLock(dataDir: string, command = process.argv.slice(2).join(' ') || 'bomcore'): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString(), token: randomBytes(8).toString('hex'),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      try {
        writeSync(fd, JSON.stringify(owner));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readOwner(path);
      const stale = current !== null && current.host === owner.host && current.pid !== process.pid && !alive(current.pid);
      if (!stale || attempt >= 3) {
        throw new DataDirLockedError(dataDir, current ?? { pid: 0, host: '?', command: 'unknown (unreadable lock file)', startedAt: '?', token: '' });
      }
      // Stale: move it aside under a unique name (atomic; of two processes doing this at once only
      // one succeeds), then retry the exclusive create, which again only one wins.
      try {
        const aside = `${path}.stale-${owner.token}`;
        renameSync(path, aside);
        unlinkSync(aside);
      } catch { /* another process took it over first: retry and meet its lock */ }
    }
  }

  let released = false;
  const onExit = () => release();
  function release(): void {
    if (released) return;
    released = true;
    process.off('exit', onExit);
    if (readOwner(path)?.token === owner.token) {
      try {
        unlinkSync(path);
      } catch { /* already gone */ }
    }
  }
  process.on('exit', onExit);
  function update(fields: Pick<LockOwner, 'address' | 'adminSocket'>): void {
    if (released || readOwner(path)?.token !== owner.token) return;
    Object.assign(owner, fields);
    // Write beside and rename: a reader never sees a half-written file.
    const next = `${path}.${owner.token}`;
    writeFileSync(next, JSON.stringify(owner));
    renameSync(next, path);
  }
  return {
    path,
    owner,
    setAddress: (address) => update({ address }),
    setAdminSocket: (adminSocket) => update({ adminSocket }),
    release,
  };
}
