import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { BIN, runCli } from './run-cli.ts';

interface Server { child: ChildProcess; address: string; stdout: () => string; exited: Promise<number | null> }

/** Starts `bomcore serve` on a free port and waits for its "listening" line. */
async function startServer(env: Record<string, string | undefined>): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, address: /listening on (http:\/\/\S+)/.exec(out)![1]!, stdout: () => out, exited };
}

const running: Server[] = [];
afterEach(() => {
  for (const s of running.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
});

describe('bomcore serve (npm start)', () => {
  it('on an empty embedded database loads the demo shop, prints a working read-write key and curl examples, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-serve-'));
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
    running.push(server);
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

    // The data persisted; the next start prints a new key and retires the previous one.
    const again = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
    running.push(again);
    expect(again.stdout()).not.toContain('Loaded the demo shop');
    const newKey = /(bck_[A-Za-z0-9_-]+)/.exec(again.stdout())![1]!;
    expect(newKey).not.toBe(key);
    expect((await fetch(`${again.address}/api/v1/locations`, { headers: { authorization: `Bearer ${newKey}` } })).status).toBe(200);
    expect((await fetch(`${again.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });

  // Registered only with DATABASE_URL (CI runs the suite on PostgreSQL); the embedded case is above.
  if (usingPostgres) it('on PostgreSQL serves a loaded shop with a key from `bomcore key create`', async () => {
    const shop = uniqueShopId('serve-pg');
    const file = join(mkdtempSync(join(tmpdir(), 'bomcore-serve-pg-')), 'shop.json');
    writeFileSync(file, JSON.stringify(datasetJson(shop)));
    expect((await runCli(['load', file], {})).code).toBe(0);
    const { key } = JSON.parse((await runCli(['key', 'create', '--shop', shop, '--scopes', 'read', '--json'], {})).stdout);
    const server = await startServer({});
    running.push(server);
    const res = await fetch(`${server.address}/api/v1/assignees`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.assignees.map((a: any) => a.displayName)).toEqual(['Ana', 'Zoe']);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
