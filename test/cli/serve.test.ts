import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { killServersAfterEach, startServer, useServerDatabase, waitFor } from '../helpers/server-process.ts';
import { heavyModules, runCli, runCliTracingImports } from './run-cli.ts';


killServersAfterEach();
const db = useServerDatabase();

describe('bomcore serve (npm start)', () => {
  it('on an empty embedded database loads the demo shop, prints a working read-write key and curl examples, stops cleanly on SIGTERM, and prints the same key on the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-serve-'));
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
    const key = /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!;
    expect(server.stdout()).toContain(`curl -s ${server.address}/api/v1/locations -H "Authorization: Bearer ${key}"`);

    const locations = await fetch(`${server.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } });
    expect(locations.status).toBe(200);
    const body = await locations.json() as { data: { locations: unknown[] } };
    expect(body.data.locations.length).toBeGreaterThanOrEqual(3);
    expect((await fetch(`${server.address}/readyz`)).status).toBe(200);
    expect((await fetch(`${server.address}/api/v1/openapi.json`)).status).toBe(200);
    // The printed key can write (read-write): a PATCH passes the scope check.
    const patch = await fetch(`${server.address}/api/v1/work-orders/wo_none`, { method: 'PATCH', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
    expect(patch.status).not.toBe(403);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // The data persisted; the next start prints the same key (kept while valid), which still works.
    const again = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
    expect(again.stdout()).not.toContain('Loaded the demo shop');
    expect(/(bck_[A-Za-z0-9_-]+)/.exec(again.stdout())![1]).toBe(key);
    expect(again.stdout()).toContain('the same on every start until revoked');
    expect((await fetch(`${again.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 240_000);

  it('runs each read route once before it listens (the warm-up, logged at info with what it ran), and BOMCORE_WARM_UP=0 turns it off', async () => {
    const warmUpLines = (out: string) => out.split('\n').filter((l) => l.includes('"msg":"start-up warm-up')).map((l) => JSON.parse(l) as { level: number; msg: string; warmUp: { ran: number; skipped: number; unexpected: string[] } });
    const env = { DATABASE_URL: undefined, BOMCORE_DATA_DIR: 'memory://', LOG_LEVEL: 'info' };
    const on = await startServer(env);
    // startServer returns on the welcome (console.log, written at once); the log's lines are written
    // asynchronously and may come after it: wait for Fastify's own "Server listening at".
    await waitFor(() => on.stdout().includes('"msg":"Server listening at'), 'the log line of listen');
    const [line, ...more] = warmUpLines(on.stdout());
    expect(more).toEqual([]);
    // At info; every route it ran answered 2xx or 404. (A busy machine may stop it at its 2 s bound: the
    // line then says incomplete. Every route running is test/api/warm-up.test.ts's rule.)
    expect(line).toMatchObject({ level: 30, warmUp: { unexpected: [] } });
    expect(line!.warmUp.ran).toBeGreaterThan(0);
    // Logged before the server said it listens: the first client request finds it done. Compared with
    // Fastify's "Server listening at", written through the same logger (so in the order they were logged).
    expect(on.stdout().indexOf('"msg":"start-up warm-up')).toBeLessThan(on.stdout().indexOf('"msg":"Server listening at'));
    on.child.kill('SIGTERM');
    expect(await on.exited).toBe(0);
    const off = await startServer({ ...env, BOMCORE_WARM_UP: '0' });
    expect(warmUpLines(off.stdout())).toEqual([]);
    off.child.kill('SIGTERM');
    expect(await off.exited).toBe(0);
  }, 240_000);

  it('rule: a serve relayed to a child process given its V8 flags (bin/node-flags.js) does not outlive its relay: killed outright, the relay leaves no server behind', async () => {
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: 'memory://' });
    const relay = server.child.pid!;
    const children = readdirSync(`/proc/${relay}/task`).flatMap((tid) => readFileSync(`/proc/${relay}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    expect(children).toHaveLength(1);
    const child = children[0]!;
    // The child is the server, given the embedded database's flags.
    expect(readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--max-semi-space-size=4', '--liftoff-only', 'serve']));
    expect((await fetch(`${server.address}/readyz`)).status).toBe(200);
    server.child.kill('SIGKILL');
    // Gone, or a zombie (an empty command line) until its new parent reaps it.
    const stopped = () => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, 'utf8') === '';
      } catch {
        return true;
      }
    };
    await waitFor(stopped, 'the relayed server to stop', 60_000);
    await expect(fetch(`${server.address}/readyz`)).rejects.toThrow();
  }, 240_000);

  it('on a busy port exits 1 with one line naming the port, before loading anything (no demo, no database)', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'bomcore-serve-busy-')), 'data');
      const res = await runCliTracingImports(['serve'], { DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port) });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(`bomcore serve: port ${port} is already in use on 127.0.0.1 (another bomcore, or another program): stop it, or choose another port, e.g. PORT=${port + 1} npm start\n`);
      expect(res.stdout).toBe('');
      expect(existsSync(dataDir)).toBe(false);
      expect(heavyModules(res.modules)).toEqual([]);
    } finally {
      busy.close();
    }
  });

  // Registered only with DATABASE_URL (CI runs the suite on PostgreSQL); the embedded case is above.
  if (usingPostgres) it('on PostgreSQL serves a loaded shop with a key from `bomcore key create`', async () => {
    const shop = uniqueShopId('serve-pg');
    const file = join(mkdtempSync(join(tmpdir(), 'bomcore-serve-pg-')), 'shop.json');
    writeFileSync(file, JSON.stringify(datasetJson(shop)));
    expect((await runCli(['load', file], { DATABASE_URL: db.url() })).code).toBe(0);
    const { key } = JSON.parse((await runCli(['key', 'create', '--shop', shop, '--scopes', 'read', '--json'], { DATABASE_URL: db.url() })).stdout);
    const server = await startServer({ DATABASE_URL: db.url() });
    const res = await fetch(`${server.address}/api/v1/assignees`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.assignees.map((a: any) => a.displayName)).toEqual(['Ana', 'Zoe']);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
