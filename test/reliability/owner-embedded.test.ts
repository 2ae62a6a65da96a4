import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagsFor } from '../../bin/node-flags.js';
import { BIN, heavyModules, runCli, runCliTracingImports } from '../cli/run-cli.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { startServer, type Server } from '../helpers/server-process.ts';

// Rule: the embedded database (PGlite data directory) has one owner. While `bomcore serve` holds it,
// `bomcore key create|list|revoke` and `bomcore export` are sent to that server over its admin
// socket (<data dir>/bomcore.sock, owner-only) and take effect at once; every other bomcore process
// refuses with a message naming the server, and changes nothing. A server that stops, or crashes,
// leaves nothing that stops the next start.

const embedded = (dataDir: string) => ({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
// The process under test is the server itself, given the V8 flags serve runs with (as a service manager
// or the relaying `bomcore serve` starts it): its pid is the one the lock names, and SIGKILL is its crash.
const startServing = (dataDir: string) => startServer(embedded(dataDir), { nodeFlags: flagsFor(['serve'], {}) });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const demoKeyOf = (server: Server) => /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!;

describe('embedded database while serve runs (one server for the file\'s tests)', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'bomcore-owner-')), 'data');
  const lockPath = join(dataDir, 'bomcore.lock');
  const socketPath = join(dataDir, 'bomcore.sock');
  let server: Server;
  let created: { id: string; key: string };

  beforeAll(async () => {
    server = await startServing(dataDir);
  });
  afterAll(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('the lock names the server and its admin socket; the socket is 0600 in a 0700 directory', () => {
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    expect(lock).toMatchObject({ pid: server.child.pid, command: 'serve', address: server.address, adminSocket: socketPath });
    expect(statSync(socketPath).isSocket()).toBe(true);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('key create succeeds while serving and the new key works at once against that server; key list shows it', async () => {
    const res = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'read', '--name', 'while-serving', '--json'], embedded(dataDir));
    expect(res.code, res.stderr).toBe(0);
    created = JSON.parse(res.stdout);
    expect(created.key).toMatch(/^bck_/);
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(created.key) })).status).toBe(200);

    const list = await runCli(['key', 'list', '--shop', 'demo', '--json'], embedded(dataDir));
    expect(list.code, list.stderr).toBe(0);
    const keys = JSON.parse(list.stdout) as { id: string; name: string; revokedAt: string | null }[];
    expect(keys.find((k) => k.id === created.id)).toMatchObject({ name: 'while-serving', revokedAt: null });
    expect(list.stdout).not.toContain(created.key);
  });

  it('the server refuses bad key commands with the same sentences as a local run (exit 1)', async () => {
    const shop = await runCli(['key', 'create', '--shop', 'no-such-shop', '--scopes', 'read'], embedded(dataDir));
    expect(shop.code).toBe(1);
    expect(shop.stderr.trim()).toBe('bomcore key: shop no-such-shop not found');
    const scopes = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'admin'], embedded(dataDir));
    expect(scopes.code).toBe(1);
    expect(scopes.stderr.trim()).toBe('bomcore key: scopes: must be "read" or "read,write"');
  });

  it('key revoke makes that key answer 401 "this API key was revoked" at once, on REST and GraphQL', async () => {
    const res = await runCli(['key', 'revoke', created.id], embedded(dataDir));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(`revoked ${created.id}`);
    const rest = await fetch(`${server.address}/api/v1/locations`, { headers: bearer(created.key) });
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'this API key was revoked' });
    const graphql = await fetch(`${server.address}/graphql`, {
      method: 'POST', headers: { ...bearer(created.key), 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ locations { locationId } }' }),
    });
    expect(graphql.status).toBe(401);
    expect(await graphql.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'this API key was revoked' });
  });

  it('export writes the shop while serving', async () => {
    const out = join(dataDir, '..', 'demo.json');
    const res = await runCli(['export', '--shop', 'demo', '--out', out], embedded(dataDir));
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).shop.id).toBe('demo');
  });

  it('a command sent to the server loads neither the ORM nor the schema', async () => {
    const res = await runCliTracingImports(['key', 'list', '--shop', 'demo'], embedded(dataDir));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('while-serving');
    expect(heavyModules(res.modules)).toEqual([]);
  });

  it('load, migrate and a second serve refuse, naming the server and what works while it runs; nothing is written', async () => {
    const datasetFile = join(dataDir, '..', 'owner-shop.json');
    writeFileSync(datasetFile, JSON.stringify(datasetJson('owner-shop')));
    for (const args of [['load', datasetFile], ['migrate']]) {
      const other = await runCli(args, embedded(dataDir));
      expect(other.code, args.join(' ')).toBe(1);
      expect(other.stderr, args.join(' ')).toContain(`in use by bomcore serve (pid ${server.child.pid}, listening on ${server.address}`);
      expect(other.stderr).toContain('`bomcore key` and `bomcore export` work while it runs');
      expect(other.stderr).toContain('stop that server first');
      expect(other.stderr).toContain('DATABASE_URL');
      expect(other.stderr).not.toContain('HTTP API');
    }
    const second = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, ...embedded(dataDir), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let secondErr = '';
    second.stderr!.on('data', (d) => (secondErr += d));
    expect(await new Promise((resolve) => second.on('exit', resolve))).toBe(1);
    expect(secondErr).toContain(`in use by bomcore serve (pid ${server.child.pid}`);
    // The running server is unharmed, its lock and socket still its own, and the refused load wrote nothing.
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(demoKeyOf(server)) })).status).toBe(200);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(server.child.pid);
    expect(existsSync(socketPath)).toBe(true);
    expect((await runCli(['export', '--shop', 'owner-shop'], embedded(dataDir))).stderr).toContain('shop owner-shop not found');
  });

  it('on SIGTERM the socket and the lock go; the next start prints the same demo key, which works, and takes key commands', async () => {
    const demoKey = demoKeyOf(server);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(lockPath)).toBe(false);
    expect(existsSync(socketPath)).toBe(false);

    server = await startServing(dataDir);
    expect(demoKeyOf(server)).toBe(demoKey);
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(demoKey) })).status).toBe(200);
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(created.key) })).status).toBe(401);
    const list = await runCli(['key', 'list', '--shop', 'demo'], embedded(dataDir));
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${created.id}\\tread\\trevoked `, 'm'));
  });

  it('a server killed outright leaves a stale lock and socket: the next command, then the next start, work; a revoked demo key is replaced', async () => {
    const demoKey = demoKeyOf(server);
    const demoKeyId = /\((key_[A-Za-z0-9_-]+); the same on every start/.exec(server.stdout())![1]!;
    expect((await runCli(['key', 'revoke', demoKeyId], embedded(dataDir))).code).toBe(0);
    server.child.kill('SIGKILL');
    await server.exited;
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(server.child.pid);
    expect(existsSync(socketPath)).toBe(true);

    // No server: the command opens the database itself, taking over the stale lock.
    const local = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'read', '--json'], embedded(dataDir));
    expect(local.code, local.stderr).toBe(0);
    expect(existsSync(lockPath)).toBe(false);

    server = await startServing(dataDir);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(demoKeyOf(server)).not.toBe(demoKey);
    expect(server.stdout()).toContain('the previous one was revoked');
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(demoKeyOf(server)) })).status).toBe(200);
    const { key } = JSON.parse(local.stdout);
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(key) })).status).toBe(200);
    const viaServer = await runCli(['key', 'create', '--shop', 'demo', '--scopes', 'read', '--json'], embedded(dataDir));
    expect(viaServer.code, viaServer.stderr).toBe(0);
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: bearer(JSON.parse(viaServer.stdout).key) })).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
}, 600_000);
