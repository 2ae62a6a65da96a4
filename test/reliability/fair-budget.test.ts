import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app/app.ts';
import { loadConfig, type Config } from '../../src/kernel/config.ts';
import { openOrm, type Orm } from '../../src/db/orm.ts';
import { DeadlineExceededError } from '../../src/http/admission/deadline.ts';
import { FairWorkGate, registerWorkGate, RequestEndedError, WorkLane } from '../../src/http/admission/work-gate.ts';
import { isUnavailable } from '../../src/http/errors/unavailable.ts';
import { entities } from '../../src/modules/entities.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { loadDataset } from '../../src/dataset/load.ts';

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
      // Health checks are exempt; the process goes on serving. (On PGlite the next read first waits for
      // the abandoned requests' statements on the one connection: within its own 200 ms deadline on an
      // idle machine, not always on a busy one, so it may take a few tries.)
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      let served = 0;
      for (let attempt = 0; attempt < 20 && served !== 200; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        served = (await app.inject({ method: 'GET', url: '/api/v1/locations', headers })).statusCode;
      }
      expect(served).toBe(200);
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
  const gateOf = (concurrency: number, maxQueuedPerShop = 10) => new FairWorkGate({ concurrency, maxQueuedPerShop });

  it('one slot: a second shop\'s request runs right after the running one, ahead of the first shop\'s queue', async () => {
    const gate = gateOf(1);
    const order: string[] = [];
    const run = async (shop: string, name: string) => {
      expect(await gate.acquire(shop)).toBe(true);
      order.push(name);
    };
    await run('A', 'a1');
    const waiting = [run('A', 'a2'), run('A', 'a3'), run('A', 'a4'), run('B', 'b1')];
    await sleep(0);
    expect(order).toEqual(['a1']);
    for (const shop of ['A', 'A', 'B', 'A']) {
      gate.release(shop);
      await sleep(0);
    }
    await Promise.all(waiting);
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it('the queue limit is per shop: a shop with a full queue is refused at once (503 + Retry-After), another shop still queues', async () => {
    const gate = gateOf(1, 2);
    expect(await gate.acquire('A')).toBe(true);
    void gate.acquire('A');
    void gate.acquire('A');
    expect(await gate.acquire('A')).toBe(false);
    let queued = false;
    void gate.acquire('B').then(() => { queued = true; });
    gate.release('A');
    gate.release('A');
    await sleep(0);
    expect(queued).toBe(true);
  });

  it('with several slots one shop holds all but one: another shop\'s costly request starts at once (and so finds a database connection)', async () => {
    const gate = gateOf(3);
    expect(gate.perShop).toBe(2);
    expect(await gate.acquire('A')).toBe(true);
    expect(await gate.acquire('A')).toBe(true);
    let third = false;
    void gate.acquire('A').then(() => { third = true; });
    await sleep(0);
    expect(third).toBe(false);
    expect(await gate.acquire('B')).toBe(true);
    gate.release('A');
    await sleep(0);
    expect(third).toBe(true);
  });

  it('defaults: one costly request at a time; work above 20 (rows, ids, locations) is costly', () => {
    expect(loadConfig({})).toMatchObject({ heavyConcurrency: 1, heavyWork: 20 });
    expect(loadConfig({ BOMCORE_HEAVY_CONCURRENCY: '0', BOMCORE_HEAVY_WORK: '100' })).toMatchObject({ heavyConcurrency: 0, heavyWork: 100 });
  });
});

describe('a request\'s costly root fields run one at a time (WorkLane)', () => {
  /** A field that records when it starts and ends, and ends when `finish()` is called. */
  function field(log: string[], name: string) {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => { finish = resolve; });
    return { finish, resolve: async () => { log.push(`${name}+`); await done; log.push(`${name}-`); return name; } };
  }

  it('costly fields in turn, cheap ones at once; between two costly fields the request offers its slot to other shops', async () => {
    const log: string[] = [];
    let turns = 0;
    const lane = new WorkLane(20, async () => { turns += 1; log.push('turn'); }, () => false);
    const [a, b, cheap] = [field(log, 'a'), field(log, 'b'), field(log, 'cheap')];
    const results = [lane.run(50, a.resolve), lane.run(50, b.resolve), lane.run(1, cheap.resolve)];
    await sleep(0);
    expect(log).toEqual(['cheap+', 'a+']);
    a.finish();
    await sleep(0);
    expect(log).toEqual(['cheap+', 'a+', 'a-', 'turn', 'b+']);
    b.finish();
    cheap.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'cheap']);
    expect(turns).toBe(1);
  });

  it('once the request has ended (answered at its deadline, client gone) its remaining costly fields do not run', async () => {
    const log: string[] = [];
    let ended = false;
    const lane = new WorkLane(20, async () => undefined, () => ended);
    const [a, b] = [field(log, 'a'), field(log, 'b')];
    const first = lane.run(50, a.resolve);
    const second = lane.run(50, b.resolve);
    await sleep(0);
    ended = true;
    a.finish();
    expect(await first).toBe('a');
    await expect(second).rejects.toBeInstanceOf(RequestEndedError);
    expect(log).toEqual(['a+', 'a-']);
  });
});

describe('the work gate over a real HTTP connection', () => {
  const app = Fastify();
  const gate = registerWorkGate(app, { concurrency: 1, heavyWork: 20 });
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  let origin = '';
  beforeAll(async () => {
    app.addHook('preHandler', async (request) => {
      request.auth = { shopId: String(request.headers['x-shop']) } as never;
    });
    // Answered at once while its costly field computes on (as the deadline's 503 answers a plan still computing).
    app.post('/answered-early', async (request, reply) => {
      const { id } = request.body as { id: string };
      if (!(await gate.admit(request, reply, 50))) return reply;
      void gate.laneOf(request)!.run(50, async () => {
        started.push(`${id}+`);
        await new Promise<void>((resolve) => finishers.set(id, resolve));
        started.push(`${id}-`);
      });
      return { id, answered: 'before its work ended' };
    });
    app.post('/work', async (request, reply) => {
      const { id, work } = request.body as { id: string; work: number };
      if (!(await gate.admit(request, reply, Number(work)))) return reply;
      started.push(id);
      if (Number(work) > 20) await new Promise<void>((resolve) => finishers.set(id, resolve));
      return { id };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  const send = (id: string, shop: string, work: number) =>
    fetch(`${origin}/work`, { method: 'POST', headers: { 'x-shop': shop, 'content-type': 'application/json' }, body: JSON.stringify({ id, work }) });
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i += 1) await sleep(10);
    expect(check()).toBe(true);
  };

  it('a costly request holds its slot until it is answered; the same shop\'s next one waits, a cheap one does not', async () => {
    const a1 = send('a1', 'A', 50);
    await until(() => started.includes('a1'));
    const a2 = send('a2', 'A', 1500);
    const b1 = send('b1', 'B', 50);
    await sleep(100);
    expect((await send('cheap', 'B', 1)).status).toBe(200);
    // Node destroys a request's stream once its body is read (a POST): the slot must not be freed by that.
    expect(started).toEqual(['a1', 'cheap']);
    finishers.get('a1')!();
    expect((await a1).status).toBe(200);
    await until(() => started.length === 3);
    expect(started[2]).toBe('a2');
    finishers.get('a2')!();
    await a2;
    await until(() => started.length === 4);
    finishers.get('b1')!();
    expect((await b1).status).toBe(200);
    expect(started).toEqual(['a1', 'cheap', 'a2', 'b1']);
  });

  it('rule: a request answered while its costly field still computes (its deadline passed, its client left) keeps the slot until the computation ends: the next costly request does not start beside it', async () => {
    started.length = 0;
    const post = (id: string) => fetch(`${origin}/answered-early`, { method: 'POST', headers: { 'x-shop': 'C', 'content-type': 'application/json' }, body: JSON.stringify({ id }) });
    expect((await post('p1')).status).toBe(200); // answered; p1's computation runs on
    const p2 = post('p2');
    await sleep(150);
    expect(started).toEqual(['p1+']); // p2 waits for p1's computation, not for p1's answer
    finishers.get('p1')!();
    await until(() => started.includes('p2+'));
    expect(started).toEqual(['p1+', 'p1-', 'p2+']);
    expect((await p2).status).toBe(200);
    finishers.get('p2')!();
    await until(() => started.includes('p2-'));
  });
});
