import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { openDatabase, type Orm } from '../../src/app/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { REDIS_URL, redisReachable as isRedisReachable } from '../helpers/redis.ts';

// Rules: with REDIS_URL every instance spends one token bucket per key (atomically), and an
// unreachable Redis fails open with a warning; two instances on one PostgreSQL database answer the
// same reads alike and see each other's writes (and idempotency keys).

const redisReachable = await isRedisReachable();

if (!redisReachable) console.warn(`Redis at ${REDIS_URL} is not reachable: the shared rate-limiter tests are skipped`);

describe.runIf(redisReachable)('rate limiter shared through Redis (REDIS_URL)', () => {
  const prefix = `bomcore-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let orm: Orm;
  const apps: TestApp[] = [];
  let key: string;
  const shop = uniqueShopId('redis-rl');
  const shared = (burst: number, extra: Record<string, unknown> = {}) =>
    createTestApp({ orm, config: { redisUrl: REDIS_URL, redisKeyPrefix: prefix, rateLimitBurst: burst, rateLimitRefillPerSecond: 0.01, ...extra } });

  beforeAll(async () => {
    orm = await openTestOrm();
    const a = await createTestApp({ orm });
    await a.load(toDataset(datasetJson(shop)));
    key = await a.createKey(shop, ['read']);
    await a.close();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await orm.close();
  });

  it('two apps share one budget: a burst of 10 allows 10 requests in all, alternating between them, then 429 on both', async () => {
    const one = await shared(10);
    const two = await shared(10);
    apps.push(one, two);
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await (i % 2 === 0 ? one : two).request({ method: 'GET', url: '/api/v1/locations', key });
      statuses.push(res.statusCode);
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429, 429, 429]);
    expect(remaining.slice(0, 10)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const refused = await two.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a request costing more than the burst passes when the bucket is full and is charged the whole burst, as in process memory', async () => {
    const app = await shared(2);
    apps.push(app);
    const fresh = await app.createKey(shop, ['read']);
    // Three root fields cost 3 tokens (one per REST call they stand for), more than the burst of 2.
    const three = await app.request({ method: 'POST', url: '/graphql', key: fresh, payload: { query: '{ a: locations { locationId } b: locations { locationId } c: locations { locationId } }' } });
    expect(three.statusCode).toBe(200);
    expect(three.headers['ratelimit-remaining']).toBe('0');
    expect((await app.request({ method: 'GET', url: '/api/v1/locations', key: fresh })).statusCode).toBe(429);
  });

  it('in process memory (no REDIS_URL) the same two apps would allow twice the burst: the shared bucket is what limits', async () => {
    const one = await createTestApp({ orm, config: { rateLimitBurst: 10, rateLimitRefillPerSecond: 0.01 } });
    const two = await createTestApp({ orm, config: { rateLimitBurst: 10, rateLimitRefillPerSecond: 0.01 } });
    apps.push(one, two);
    let allowed = 0;
    for (let i = 0; i < 24; i++) if ((await (i % 2 === 0 ? one : two).request({ method: 'GET', url: '/api/v1/locations', key })).statusCode === 200) allowed++;
    expect(allowed).toBe(20);
  });

  it('the bucket is taken atomically: 60 concurrent requests over 3 apps with a burst of 25 → exactly 25 allowed', async () => {
    const s = uniqueShopId('redis-rl-c');
    const setup = await createTestApp({ orm });
    await setup.load(toDataset(datasetJson(s)));
    const k = await setup.createKey(s, ['read']);
    await setup.close();
    const trio = [await shared(25), await shared(25), await shared(25)];
    apps.push(...trio);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => trio[i % 3]!.request({ method: 'GET', url: '/api/v1/locations', key: k })));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(25);
    expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(35);
  });

  it('Redis unreachable: requests are allowed (fail open) and one warning is logged, not one per request', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const config = { ...loadConfig({}), dataDir: 'memory://', redisUrl: 'redis://127.0.0.1:1', rateLimitBurst: 2, rateLimitRefillPerSecond: 0.01 };
    const app = await buildApp({ config, orm, logger: { level: 'warn', stream } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await app.inject({ url: '/api/v1/locations', headers: { authorization: `Bearer ${key}` } })).statusCode);
      expect(statuses).toEqual(Array(10).fill(200));
      const warnings = lines.filter((l) => l.includes('fail open'));
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(warnings.length).toBeLessThanOrEqual(2);
    } finally {
      await app.close();
    }
  });
});

// Two instances need one database both reach: PostgreSQL (CI runs the suite with DATABASE_URL).
describe.runIf(usingPostgres)('two instances on one PostgreSQL database', () => {
  let orms: Orm[] = [];
  let a: TestApp;
  let b: TestApp;
  const shop = uniqueShopId('two-inst');
  let key: string;

  beforeAll(async () => {
    orms = [
      await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://' }),
      await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: 'memory://' }),
    ];
    a = await createTestApp({ orm: orms[0]! });
    b = await createTestApp({ orm: orms[1]! });
    await a.load(toDataset(materialShop(shop)));
    key = await a.createKey(shop, ['read', 'write']);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    for (const orm of orms) await orm.close();
  });

  /** The body without its request id (in `meta` of a 200, at the top of a problem). */
  const withoutRequestId = (body: any) => JSON.stringify(body.meta ? { ...body, meta: { ...body.meta, requestId: undefined } } : { ...body, requestId: undefined });

  it('give the same answers to the same reads', async () => {
    const urls = [
      '/api/v1/locations', '/api/v1/assignees', '/api/v1/raw-materials?pageSize=50', '/api/v1/raw-materials/VMAT-VAR-0001/inventory',
      '/api/v1/raw-materials/44001/inventory', '/api/v1/bills-of-materials', '/api/v1/work-orders', '/api/v1/raw-materials/NOPE',
    ];
    for (const url of urls) {
      const [x, y] = [await a.get(url, key), await b.get(url, key)];
      expect(y.status, url).toBe(x.status);
      expect(withoutRequestId(y.body), url).toBe(withoutRequestId(x.body));
    }
  });

  it('see each other\'s writes at once', async () => {
    const patch = (app: TestApp, delta: number) => app.request({
      method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0001/inventory', key,
      payload: { updates: [{ locationId: '101', delta }] }, headers: { 'content-type': 'application/json' },
    });
    const read = async (app: TestApp) => (await app.get('/api/v1/raw-materials/VMAT-VAR-0001/inventory?locationIds=101', key)).body.data.totalAvailable;
    const start = await read(b);
    expect((await patch(a, 1)).statusCode).toBe(200);
    expect(await read(b)).toBeCloseTo(start + 1, 6);
    expect((await patch(b, 2)).statusCode).toBe(200);
    expect(await read(a)).toBeCloseTo(start + 3, 6);
  });

  it('share idempotency keys: one key sent to both at once applies once', async () => {
    const read = async (app: TestApp) => (await app.get('/api/v1/raw-materials/VMAT-VAR-0002/inventory?locationIds=101', key)).body.data.totalAvailable;
    const start = await read(a);
    const send = (app: TestApp) => app.request({
      method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0002/inventory', key,
      payload: { updates: [{ locationId: '101', delta: 1 }] }, headers: { 'content-type': 'application/json', 'idempotency-key': `two-${shop}` },
    });
    const answers = await Promise.all([send(a), send(b), send(a), send(b)]);
    expect(answers.filter((r) => r.statusCode === 200 && !r.headers['idempotency-replayed'])).toHaveLength(1);
    const replay = await send(b);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(await read(b)).toBeCloseTo(start + 1, 6);
  });
});
