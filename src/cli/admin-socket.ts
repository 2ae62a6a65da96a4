// The admin socket of `bomcore serve` on the embedded database. PGlite has one owner, so while the
// server runs no other process may open the data directory; `bomcore key create|list|revoke` and
// `bomcore export` are sent here instead (src/cli/admin-client.ts) and run in the server's process.
// It is HTTP on a unix socket, owner-only (directory 0700, socket 0600): the file permission is the
// authentication, as for PostgreSQL's own socket. Never on TCP, never on PostgreSQL (there every
// process opens the database itself).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../kernel/config.ts';
import type { Orm } from '../app/database.ts';
import { DomainError } from '../kernel/domain-error.ts';
import { createApiKey, listApiKeys, parseDuration, parseScopes, revokeApiKey } from '../modules/auth/keys.ts';
import { exportDataset } from '../dataset/export.ts';
import { serializeDataset } from '../dataset/serialize.ts';
import { webhookAdminRoute } from './webhook-commands.ts';

export const ADMIN_SOCKET_FILE = 'bomcore.sock';
/** Linux's limit on a socket path is 107 bytes; past it the socket goes to a private temporary directory. */
const MAX_SOCKET_PATH = 100;
const MAX_BODY_BYTES = 64 * 1024;

export interface AdminSocket { readonly path: string; close(): Promise<void> }

interface Reply { status: number; body: string; type?: string }

const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > MAX_BODY_BYTES) throw DomainError.invalid('body', 'is too large');
  }
  if (!text) return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw DomainError.invalid('body', 'must be a JSON object');
  return parsed as Record<string, unknown>;
}

const optionalString = (value: unknown, field: string): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw DomainError.invalid(field, 'must be a string');
  return value;
};
const requiredString = (value: unknown, field: string): string => {
  const text = optionalString(value, field);
  if (!text) throw DomainError.invalid(field, 'is required');
  return text;
};

/** The commands: the same functions the CLI runs on a database it opens itself. */
async function route(orm: Orm, config: Config | null, request: IncomingMessage): Promise<Reply> {
  const url = new URL(request.url ?? '/', 'http://admin');
  const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (path[0] === 'webhooks' && config) {
    const answer = await webhookAdminRoute(orm, config, request.method ?? 'GET', path, url.searchParams, () => readBody(request));
    if (answer) return json(answer.status, answer.body);
  }
  if (request.method === 'POST' && path.length === 1 && path[0] === 'keys') {
    const body = await readBody(request);
    const expiresIn = optionalString(body.expiresIn, 'expiresIn');
    const created = await createApiKey(orm.em.fork(), {
      shopId: requiredString(body.shopId, 'shopId'),
      scopes: parseScopes(requiredString(body.scopes, 'scopes')),
      name: optionalString(body.name, 'name'),
      expiresInMs: expiresIn ? parseDuration(expiresIn) : null,
    });
    return json(201, created);
  }
  if (request.method === 'GET' && path.length === 1 && path[0] === 'keys') {
    return json(200, await listApiKeys(orm.em.fork(), requiredString(url.searchParams.get('shop'), 'shop')));
  }
  if (request.method === 'POST' && path.length === 3 && path[0] === 'keys' && path[2] === 'revoke') {
    await revokeApiKey(orm.em.fork(), path[1]!);
    return json(200, { id: path[1] });
  }
  if (request.method === 'GET' && path.length === 3 && path[0] === 'shops' && path[2] === 'dataset') {
    const dataset = await exportDataset(orm.em, path[1]!);
    return { status: 200, body: serializeDataset(dataset), type: 'application/json' };
  }
  if (request.method === 'GET' && path.length === 3 && path[0] === 'shops' && path[2] === 'plan' && config) {
    const { planShopLocally } = await import('./plan-command.ts');
    const locations = url.searchParams.getAll('location');
    const plan = await planShopLocally(orm, config, path[1]!, { asOf: url.searchParams.get('asOf'), locationIds: locations.length > 0 ? locations : null });
    return json(200, plan);
  }
  return json(404, { error: `no admin command ${request.method} ${url.pathname}` });
}

async function handle(orm: Orm, config: Config | null, log: AdminLog, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let reply: Reply;
  try {
    reply = await route(orm, config, request);
  } catch (error) {
    if (error instanceof DomainError) reply = json(error.code === 'NOT_FOUND' ? 404 : 400, { error: error.message });
    else if (error instanceof SyntaxError) reply = json(400, { error: `body: malformed JSON (${error.message})` });
    else {
      log.error({ err: error }, 'admin command failed');
      reply = json(500, { error: `the server failed: ${(error as Error).message}` });
    }
  }
  response.writeHead(reply.status, { 'content-type': reply.type ?? 'application/json', 'content-length': Buffer.byteLength(reply.body) });
  response.end(reply.body);
}

interface AdminLog { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void }

/**
 * Listens on `<dataDir>/bomcore.sock` (owner-only). A socket file left there by a server that
 * crashed is removed first: whoever calls this holds the directory's lock, so no live server owns it.
 */
export async function startAdminSocket(options: { orm: Orm; dataDir: string; log: AdminLog; config?: Config }): Promise<AdminSocket> {
  const { orm, dataDir, log } = options;
  const config = options.config ?? null;
  try {
    chmodSync(dataDir, 0o700);
  } catch (error) {
    log.warn({ err: error, dataDir }, 'could not make the data directory owner-only (0700)');
  }
  let path = join(dataDir, ADMIN_SOCKET_FILE);
  let privateDir: string | null = null;
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    privateDir = mkdtempSync(join(tmpdir(), 'bomcore-')); // created 0700
    path = join(privateDir, ADMIN_SOCKET_FILE);
  }
  rmSync(path, { force: true });
  const server = createServer((request, response) => void handle(orm, config, log, request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  const removeFile = () => {
    rmSync(path, { force: true });
    if (privateDir) rmSync(privateDir, { recursive: true, force: true });
  };
  // A server that exits without its shutdown (an uncaught error) still takes its socket away.
  process.on('exit', removeFile);
  return {
    path,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      process.off('exit', removeFile);
      removeFile();
    },
  };
}
