import { mkdtempSync, existsSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { workerCount } from '../../src/cli/serve.ts';
import { datasetJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { freshConnectionGet, killServersAfterEach, logLines, startServer, useServerDatabase, waitFor, type Server } from '../helpers/server-process.ts';
import { runCli } from './run-cli.ts';

// Rules (docs/deployment.md, "Several workers on one machine"): `bomcore serve --workers N` runs N
// processes on one port; a key's rate-limit budget, the background passes and shutdown behave as
// with one process. PostgreSQL only for the running cluster; the embedded database refuses it.

killServersAfterEach();

const answeredBy = (server: Server) => new Set(logLines(server, 'request completed').map((l) => l.pid));

describe('bomcore serve --workers: how many', () => {
  it('defaults to every core on PostgreSQL and 1 on the embedded database; BOMCORE_WORKERS and --workers choose', () => {
    expect(workerCount(undefined, { databaseUrl: 'postgres://db/x' }, {})).toBe(availableParallelism());
    expect(workerCount(undefined, { databaseUrl: null }, {})).toBe(1);
    expect(workerCount(undefined, { databaseUrl: 'postgres://db/x' }, { BOMCORE_WORKERS: '3' })).toBe(3);
    expect(workerCount('4', { databaseUrl: 'postgres://db/x' }, { BOMCORE_WORKERS: '3' })).toBe(4);
    expect(workerCount('1', { databaseUrl: null }, {})).toBe(1);
  });

  it('more than one worker on the embedded database is refused in one line naming why and what to do, before the database is opened', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'bomcore-workers-')), 'data');
    const flag = await runCli(['serve', '--workers', '2'], { DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir, PORT: '0' });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toBe('bomcore serve: --workers 2 needs PostgreSQL: the embedded database has one owner, one process; use 1 worker, or set DATABASE_URL to run several\n');
    const env = await runCli(['serve'], { DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir, PORT: '0', BOMCORE_WORKERS: '2' });
    expect(env.code).toBe(1);
    expect(env.stderr).toBe('bomcore serve: BOMCORE_WORKERS 2 needs PostgreSQL: the embedded database has one owner, one process; use 1 worker, or set DATABASE_URL to run several\n');
    expect(existsSync(dataDir)).toBe(false);
    const zero = await runCli(['serve', '--workers', '0'], { DATABASE_URL: undefined, BOMCORE_DATA_DIR: dataDir });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--workers must be a positive integer, not "0"');
  });
});

describe.runIf(usingPostgres)('bomcore serve --workers 2 (PostgreSQL)', () => {
  const db = useServerDatabase();
  let key = '';
  beforeAll(async () => {
    const shop = uniqueShopId('workers');
    const file = join(mkdtempSync(join(tmpdir(), 'bomcore-workers-pg-')), 'shop.json');
    writeFileSync(file, JSON.stringify(datasetJson(shop)));
    expect((await runCli(['load', file], { DATABASE_URL: db.url() })).code).toBe(0);
    key = (JSON.parse((await runCli(['key', 'create', '--shop', shop, '--scopes', 'read', '--json'], { DATABASE_URL: db.url() })).stdout) as { key: string }).key;
  }, 60_000);

  it('a key with a burst of 10 gets exactly 10 of 16 simultaneous requests, though both workers answer them', async () => {
    const server = await startServer({ DATABASE_URL: db.url(), BOMCORE_WORKERS: '2', LOG_LEVEL: 'info', RATE_LIMIT_BURST: '10', RATE_LIMIT_REFILL_PER_SECOND: '0.001' });
    expect(server.stdout()).toContain('(PostgreSQL, 2 workers');
    const statuses = await Promise.all(Array.from({ length: 16 }, () => freshConnectionGet(`${server.address}/api/v1/locations`, key)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect(answeredBy(server).size).toBe(2);
    // Each worker warmed its read routes up before it listened (src/http/admission/warm-up.ts), on a bucket of its own:
    // the key's 10 tokens above were all the client's. (On a busy machine a worker may pass the warm-up's
    // 2 s and leave routes for their first request, still "done": the rule here is that each worker runs it.)
    const warmedUp = [...logLines(server, 'start-up warm-up done'), ...logLines(server, 'start-up warm-up: some routes did not answer as expected; serving anyway')];
    expect(new Set(warmedUp.map((l) => l.pid)).size).toBe(2);
    expect(new Set(warmedUp.map((l) => l.pid))).toEqual(answeredBy(server));
  });

  it('one worker runs the background passes; a killed worker is replaced, another takes the passes, and requests keep succeeding', async () => {
    const server = await startServer({ DATABASE_URL: db.url(), BOMCORE_WORKERS: '2', LOG_LEVEL: 'info' });
    const background = () => logLines(server, 'background passes: this worker runs them');
    await waitFor(() => background().length === 1, 'a worker to take the background passes');
    const listening = () => new Set(logLines(server, 'Server listening at ' + server.address).map((l) => l.pid));
    const workers = listening();
    expect(workers.size).toBe(2);
    const owner = background()[0]!.pid;
    const other = [...workers].find((pid) => pid !== owner)!;

    process.kill(owner, 'SIGKILL');
    await waitFor(() => logLines(server, 'worker exited unexpectedly; starting a replacement').length === 1, 'the primary to see the death');
    expect(logLines(server, 'worker exited unexpectedly; starting a replacement')[0]).toMatchObject({ worker: owner, signal: 'SIGKILL' });
    await waitFor(() => background().length === 2, 'another worker to take the background passes');
    // The surviving worker took them at once; its replacement, once up, does not run them too.
    expect(background()[1]!.pid).toBe(other);
    expect(await Promise.all(Array.from({ length: 6 }, () => freshConnectionGet(`${server.address}/api/v1/locations`, key)))).toEqual(Array(6).fill(200));
    await waitFor(() => listening().size === 3, 'the replacement to listen');
    const replacement = [...listening()].find((pid) => !workers.has(pid))!;
    // The primary hands new connections to its workers in turn, and each worker logs asynchronously:
    // rounds of requests, every one answered 200, until the replacement's own log says it answered one.
    for (let round = 0; round < 20 && !answeredBy(server).has(replacement); round += 1) {
      expect(await Promise.all(Array.from({ length: 4 }, () => freshConnectionGet(`${server.address}/api/v1/locations`, key)))).toEqual(Array(4).fill(200));
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answeredBy(server)).toContain(replacement);
    await new Promise((r) => setTimeout(r, 500));
    expect(background().map((l) => l.pid)).toEqual([owner, other]);
  });

  it('SIGTERM to the primary and its workers with requests in flight on both: every one is answered 200, the primary exits 0', async () => {
    const server = await startServer({
      DATABASE_URL: db.url(), BOMCORE_WORKERS: '2', LOG_LEVEL: 'info', BOMCORE_STATEMENT_TIMEOUT_MS: '0', BOMCORE_REQUEST_DEADLINE_MS: '0', BOMCORE_DB_CONNECT_TIMEOUT_MS: '60000',
    });
    const locker = new pg.Client({ connectionString: db.url() });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table platform_locations in access exclusive mode');
      const before = logLines(server, 'incoming request').length;
      const responses = Array.from({ length: 12 }, () => freshConnectionGet(`${server.address}/api/v1/locations`, key));
      await waitFor(() => logLines(server, 'incoming request').length - before >= 12, '12 requests to arrive');
      const workers = new Set(logLines(server, 'incoming request').slice(before).map((l) => l.pid));
      expect(workers.size).toBe(2);
      // As a service manager stops a service: SIGTERM to every process of it, the primary and its workers,
      // each worker then hearing it twice (its own signal, its primary's drain): still one drain, not an abort.
      for (const pid of [server.child.pid!, ...workers]) process.kill(pid, 'SIGTERM');
      await waitFor(() => logLines(server, 'shutting down: draining in-flight requests').length === 2, 'both workers to drain');
      await new Promise((r) => setTimeout(r, 1000));
      expect(server.child.exitCode).toBeNull(); // still waiting for the 12
      await locker.query('commit');
      expect(await Promise.all(responses)).toEqual(Array(12).fill(200));
    } finally {
      await locker.end();
    }
    expect(await server.exited).toBe(0);
    expect(logLines(server, 'shut down: every in-flight request answered')).toHaveLength(2);
    expect(logLines(server, 'every worker has exited')[0]).toMatchObject({ exitCode: 0 });
  });
});
