import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openOrm, type Orm } from '../../src/db/orm.ts';
import { DeadlineExceededError } from '../../src/http/deadline.ts';
import { FairWorkGate } from '../../src/http/load-shedding.ts';
import { isUnavailable } from '../../src/http/unavailable.ts';
import { entities } from '../../src/modules/entities.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { loadDataset } from '../../src/modules/dataset/load.ts';

/**
 * Fair sharing, issue 11: a per-request time budget. A request still running at its deadline
 * (BOMCORE_REQUEST_DEADLINE_MS) is answered 503 + Retry-After instead of holding its client; a
 * statement still running at statement_timeout (BOMCORE_STATEMENT_TIMEOUT_MS, PostgreSQL) is
 * cancelled and classified as unavailable (503). Load shedding: while the event loop keeps lagging
 * over BOMCORE_LOAD_SHED_LAG_MS, new requests get 503 + Retry-After, health checks excepted.
 */
const base = (): Config => ({ ...loadConfig({}), dataDir: 'memory://', rateLimitBurst: 100_000, rateLimitRefillPerSecond: 100_000, authFailuresPerMinute: 1_000_000 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Blocks the event loop (the way a CPU-heavy handler would) for `ms`. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

let orm: Orm;
let key: string;
beforeAll(async () => {
  orm = await openTestOrm();
  const shop = uniqueShopId('fair-budget');
  await loadDataset(orm.em, toDataset(datasetJson(shop)));
  key = (await createApiKey(orm.em.fork(), { shopId: shop, scopes: ['read'], expiresInMs: null })).key;
});
afterAll(() => orm.close());

/** An app with extra test routes: `/test/slow` awaits `ms`, `/test/block` blocks the loop for `ms`. */
async function appWith(config: Partial<Config>): Promise<{ app: App; lateResults: string[] }> {
  const app = await buildApp({ config: { ...base(), ...config }, orm, logger: false });
  const lateResults: string[] = [];
  app.get('/test/slow', async (request) => {
    const { ms } = request.query as { ms: string };
    await sleep(Number(ms));
    lateResults.push('finished');
    return { done: true };
  });
  app.get('/test/block', async (request) => {
    blockLoop(Number((request.query as { ms: string }).ms));
    return { done: true };
  });
  await app.ready();
  return { app, lateResults };
}

describe('request deadline (BOMCORE_REQUEST_DEADLINE_MS)', () => {
  it('defaults: 10 s deadline, 5 s statement timeout, shedding above 1 s of sustained lag; 0 turns each off', () => {
    expect(loadConfig({})).toMatchObject({ requestDeadlineMs: 10_000, statementTimeoutMs: 5000, loadShedLagMs: 1000 });
    expect(loadConfig({ BOMCORE_REQUEST_DEADLINE_MS: '0', BOMCORE_STATEMENT_TIMEOUT_MS: '0', BOMCORE_LOAD_SHED_LAG_MS: '0' }))
      .toMatchObject({ requestDeadlineMs: 0, statementTimeoutMs: 0, loadShedLagMs: 0 });
    expect(() => loadConfig({ BOMCORE_REQUEST_DEADLINE_MS: '-1' })).toThrow(/BOMCORE_REQUEST_DEADLINE_MS/);
  });

  it('a request still running at its deadline is 503 UNAVAILABLE + Retry-After, problem+json with X-Request-Id; its late result is dropped', async () => {
    const { app, lateResults } = await appWith({ requestDeadlineMs: 150 });
    try {
      const started = performance.now();
      const res = await app.inject({ method: 'GET', url: '/test/slow?ms=600' });
      const elapsed = performance.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.headers['x-request-id']).toBeDefined();
      expect(res.json()).toMatchObject({ code: 'UNAVAILABLE' });
      expect(elapsed).toBeLessThan(550);
      await sleep(600);
      expect(lateResults).toEqual(['finished']);
      // The process goes on serving.
      expect((await app.inject({ method: 'GET', url: '/test/slow?ms=1' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('on /graphql and REST alike: a request waiting on the database past its deadline is 503 UNAVAILABLE with Retry-After, not 500', async () => {
    const { app } = await appWith({ requestDeadlineMs: 200 });
    try {
      const headers = { authorization: `Bearer ${key}` };
      for (const request of [
        { method: 'POST' as const, url: '/graphql', headers, payload: { query: '{ locations { locationId } }' } },
        { method: 'GET' as const, url: '/api/v1/bills-of-materials', headers },
      ]) {
        // Another transaction holds the API keys table (on PGlite, the one connection) for 700 ms.
        let release!: () => void;
        const held = new Promise<void>((resolve) => { release = resolve; });
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => { locked = resolve; });
        const holder = orm.em.fork().transactional(async (em) => {
          await em.execute('lock table api_keys in access exclusive mode');
          locked();
          await held;
        });
        await isLocked;
        setTimeout(release, 700);
        const started = performance.now();
        const res = await app.inject(request);
        expect(performance.now() - started).toBeLessThan(650);
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBeDefined();
        expect(res.headers['x-request-id']).toBeDefined();
        await holder;
      }
      // Health checks are exempt; the process goes on serving.
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/v1/locations', headers })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('DeadlineExceededError is classified as unavailable (503), by name', () => {
    const error = new DeadlineExceededError(10);
    expect(error.name).toBe('DeadlineExceededError');
    expect(isUnavailable(error)).toBe(true);
  });
});

describe.skipIf(!usingPostgres)('statement timeout (BOMCORE_STATEMENT_TIMEOUT_MS, PostgreSQL)', () => {
  it('a statement running past it is cancelled (57014) within the budget and classified unavailable (503); 0 turns it off', async () => {
    const timed = await openOrm({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://', statementTimeoutMs: 200 }, entities as never);
    try {
      const started = performance.now();
      const error = await timed.em.fork().execute('select pg_sleep(3)').then(() => null, (e: unknown) => e);
      expect(performance.now() - started).toBeLessThan(1500);
      expect(error).toMatchObject({ code: '57014' });
      expect(isUnavailable(error)).toBe(true);
      expect(await timed.em.fork().execute("select current_setting('statement_timeout') as t")).toEqual([{ t: '200ms' }]);
    } finally {
      await timed.close();
    }
    const off = await openOrm({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://', statementTimeoutMs: 0 }, entities as never);
    try {
      expect(await off.em.fork().execute("select current_setting('statement_timeout') as t")).toEqual([{ t: '0' }]);
    } finally {
      await off.close();
    }
  });
});

describe('load shedding (BOMCORE_LOAD_SHED_LAG_MS)', () => {
  let app: App;
  beforeAll(async () => {
    ({ app } = await appWith({ loadShedLagMs: 100 }));
  });
  afterAll(() => app.close());

  it('while the loop keeps lagging, new requests are 503 + Retry-After at once; health checks still answer; it stops when the loop catches up', async () => {
    const headers = { authorization: `Bearer ${key}` };
    expect((await app.inject({ method: 'GET', url: '/api/v1/locations', headers })).statusCode).toBe(200);
    // Hold the loop 250 ms at a time, four times in a row, letting timers run in between: every
    // lag sample reads ~200 ms.
    for (let i = 0; i < 4; i += 1) {
      blockLoop(250);
      await sleep(0);
    }
    const shed = await app.inject({ method: 'GET', url: '/api/v1/locations', headers });
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe('1');
    expect(shed.headers['x-request-id']).toBeDefined();
    expect(shed.json()).toMatchObject({ code: 'UNAVAILABLE', detail: expect.stringContaining('overloaded') });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // The loop is free again: after a few on-time samples requests are served.
    await sleep(300);
    expect((await app.inject({ method: 'GET', url: '/api/v1/locations', headers })).statusCode).toBe(200);
  });

  it('one long pause alone (a start-up, a big write) does not shed', async () => {
    await sleep(300);
    blockLoop(400);
    await sleep(0);
    expect((await app.inject({ method: 'GET', url: '/api/v1/locations', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
  });
});

describe('costly requests take turns, round-robin by shop (BOMCORE_HEAVY_CONCURRENCY)', () => {
  it('one slot: a second shop\'s request runs right after the running one, ahead of the first shop\'s queue', async () => {
    const gate = new FairWorkGate(1, 10);
    const order: string[] = [];
    const run = async (shop: string, name: string) => {
      expect(await gate.acquire(shop)).toBe(true);
      order.push(name);
    };
    await run('A', 'a1');
    const waiting = [run('A', 'a2'), run('A', 'a3'), run('A', 'a4'), run('B', 'b1')];
    await sleep(0);
    expect(order).toEqual(['a1']);
    for (let i = 0; i < 4; i += 1) {
      gate.release();
      await sleep(0);
    }
    await Promise.all(waiting);
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it('a full queue refuses at once (the request is answered 503 + Retry-After)', async () => {
    const gate = new FairWorkGate(1, 2);
    expect(await gate.acquire('A')).toBe(true);
    void gate.acquire('A');
    void gate.acquire('B');
    expect(await gate.acquire('C')).toBe(false);
  });

  it('default: one costly request at a time', () => {
    expect(loadConfig({}).heavyConcurrency).toBe(1);
    expect(loadConfig({ BOMCORE_HEAVY_CONCURRENCY: '0' }).heavyConcurrency).toBe(0);
  });
});
