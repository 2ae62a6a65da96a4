// The CLI side of the admin socket (src/cli/admin-socket.ts): while `bomcore serve` holds the
// embedded data directory, `bomcore key` and `bomcore export` are sent to it instead of being
// refused. Kept light (node:http and the lock file only): a command sent to the server loads
// neither the ORM nor the schema.
import { request as httpRequest } from 'node:http';
import { hostname } from 'node:os';
import { embeddedDataDir, ownerIsLive, readLockOwner, type LockOwner } from '../db/data-dir-lock.ts';
import { CommandError } from './args.ts';

export interface AdminRequest { method: 'GET' | 'POST'; path: string; body?: unknown }
export interface AdminAnswer { status: number; body: Buffer }

/** How long a command waits for a server that holds the directory but has not opened its socket yet (starting). */
const WAIT_FOR_STARTING_SERVER_MS = 120_000;

/** A `bomcore serve` on this machine that still runs and holds the directory. */
function isRunningServer(owner: LockOwner | null): owner is LockOwner {
  return owner !== null && owner.command.split(' ')[0] === 'serve' && owner.host === hostname() && ownerIsLive(owner);
}

/** Sends one command; null when nothing answers on the socket (the server stopped or is stopping). */
function send(socketPath: string, command: AdminRequest): Promise<AdminAnswer | null> {
  const payload = command.body === undefined ? undefined : JSON.stringify(command.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      socketPath, path: command.path, method: command.method, agent: false,
      headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 500, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(null);
      else reject(error);
    });
    req.end(payload);
  });
}

/** The answer's body when it succeeded; the server's sentence (exit 1) when it refused. */
export function answerBody(answer: AdminAnswer): Buffer {
  if (answer.status < 400) return answer.body;
  let message = answer.body.toString('utf8');
  try {
    message = (JSON.parse(message) as { error?: string }).error ?? message;
  } catch { /* not JSON: the text as it came */ }
  throw new CommandError(message);
}

/**
 * Runs `command` on the `bomcore serve` that holds the embedded data directory, if one does, and
 * otherwise `local()` (which opens the database itself: always on PostgreSQL, on a free directory,
 * or to name the other command that holds it). A server still starting is waited for.
 */
export async function onRunningServer<T>(
  config: { databaseUrl: string | null; dataDir: string },
  command: AdminRequest,
  fromServer: (answer: AdminAnswer) => T,
  local: () => Promise<T>,
): Promise<T> {
  const dataDir = embeddedDataDir(config);
  if (!dataDir) return local();
  const deadline = Date.now() + WAIT_FOR_STARTING_SERVER_MS;
  let told = false;
  for (;;) {
    const owner = readLockOwner(dataDir);
    if (!isRunningServer(owner) || Date.now() > deadline) return local();
    const answer = owner.adminSocket ? await send(owner.adminSocket, command) : null;
    if (answer) return fromServer(answer);
    if (!told) {
      process.stderr.write(`waiting for bomcore serve (pid ${owner.pid}) on ${dataDir}: it is starting or stopping…\n`);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
