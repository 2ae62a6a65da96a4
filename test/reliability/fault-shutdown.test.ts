import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { freshConnectionGet, killServersAfterEach, logLines, startServer, useServerDatabase, waitFor } from '../helpers/server-process.ts';

/**
 * Rule (docs/reliability.md, "Shutdown"): on SIGTERM `bomcore serve` stops accepting, answers every
 * request already in flight (BOMCORE_SHUTDOWN_GRACE_MS, default 30 s), closes the loops and the
 * database, and exits 0. Before: a fixed 10 s grace, after which in-flight requests were dropped.
 */

killServersAfterEach();
const db = useServerDatabase();

describe('SIGTERM drains every in-flight request, refuses new ones and exits 0', () => {
  it('embedded database: 30 requests in flight at SIGTERM are all answered 200; exit code 0', async () => {
    const server = await startServer({ DATABASE_URL: undefined, BOMCORE_DATA_DIR: mkdtempSync(join(tmpdir(), 'bomcore-shutdown-')), LOG_LEVEL: 'info' });
    const key = /(bck_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!;
    const before = logLines(server, 'incoming request').length;
    const urls = ['/api/v1/bills-of-materials?pageSize=100', '/api/v1/raw-materials?pageSize=100', '/api/v1/bills-of-materials/BOM-1001/buildable'];
    const responses = Array.from({ length: 30 }, (_, i) => fetch(`${server.address}${urls[i % urls.length]}`, { headers: { authorization: `Bearer ${key}` } })
      .then((r) => r.status, (e: Error) => `${e.message}: ${(e.cause as Error | undefined)?.message}`));
    // SIGTERM once the server has received all 30.
    await waitFor(() => logLines(server, 'incoming request').length - before >= 30, '30 requests to arrive');
    server.child.kill('SIGTERM');
    const statuses = await Promise.all(responses);
    expect(statuses).toEqual(Array(30).fill(200));
    expect(await server.exited).toBe(0);
    const [shutdown] = logLines(server, 'shutting down: draining in-flight requests');
    expect(shutdown).toMatchObject({ signal: 'SIGTERM', graceMs: 30_000 });
    expect(logLines(server, 'shut down: every in-flight request answered')).toHaveLength(1);
  });

  it.runIf(usingPostgres)('PostgreSQL: 30 requests held by a table lock at SIGTERM are all answered 200 once it lifts; new connections are refused meanwhile; exit 0', async () => {
    const shop = uniqueShopId('shutdown');
    const file = join(mkdtempSync(join(tmpdir(), 'bomcore-shutdown-pg-')), 'shop.json');
    writeFileSync(file, JSON.stringify(datasetJson(shop)));
    expect((await runCli(['load', file], { DATABASE_URL: db.url() })).code).toBe(0);
    const { key } = JSON.parse((await runCli(['key', 'create', '--shop', shop, '--scopes', 'read', '--json'], { DATABASE_URL: db.url() })).stdout) as { key: string };
    // Requests wait on the lock for longer than any default time budget would allow: turn those off here.
    const server = await startServer({
      DATABASE_URL: db.url(), BOMCORE_SHUTDOWN_GRACE_MS: '60000', BOMCORE_DB_CONNECT_TIMEOUT_MS: '60000', BOMCORE_STATEMENT_TIMEOUT_MS: '0',
      BOMCORE_REQUEST_DEADLINE_MS: '0', BOMCORE_LOAD_SHED_LAG_MS: '0', LOG_LEVEL: 'info',
    });
    expect((await fetch(`${server.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    const locker = new pg.Client({ connectionString: db.url() });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table platform_locations in access exclusive mode');
      const before = logLines(server, 'incoming request').length;
      const responses = Array.from({ length: 30 }, () => fetch(`${server.address}/api/v1/locations`, { headers: { authorization: `Bearer ${key}` } })
        .then((r) => r.status, (e: Error) => `${e.message}: ${(e.cause as Error | undefined)?.message}`));
      await waitFor(() => logLines(server, 'incoming request').length - before >= 30, '30 requests to arrive');
      server.child.kill('SIGTERM');
      await waitFor(() => logLines(server, 'shutting down: draining in-flight requests').length > 0, 'the shutdown to begin');
      expect(logLines(server, 'shutting down: draining in-flight requests')[0]!.inFlight).toBe(30);
      // Draining: a new connection is refused (or, had it raced in, answered 503).
      const fresh = await freshConnectionGet(`${server.address}/api/v1/locations`, key);
      expect(['ECONNREFUSED', 'ECONNRESET', 503]).toContain(fresh);
      await new Promise((r) => setTimeout(r, 1500));
      expect(server.child.exitCode).toBeNull(); // still waiting for the 30
      await locker.query('commit');
      const statuses = await Promise.all(responses);
      expect(statuses).toEqual(Array(30).fill(200));
    } finally {
      await locker.end();
    }
    expect(await server.exited).toBe(0);
    // Drained as soon as the last one was answered, not at the grace (nor the clients' keep-alive timeout).
    const [done] = logLines(server, 'shut down: every in-flight request answered');
    expect(done!.drainedInMs as number).toBeLessThan(15_000);
  });
});
