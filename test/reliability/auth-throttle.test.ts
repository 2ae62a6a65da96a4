import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/app/database.ts';
import { MemoryFailureCounter } from '../../src/http/auth/auth-failure-counter.ts';
import { createApiKey, revokeApiKey } from '../../src/modules/auth/keys.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rules (docs/reliability.md, "Failed authentications"): more than 20 failed keys a minute from one
// client address are answered 429 with Retry-After, counted when each attempt starts (a concurrent
// burst is refused as it arrives); a valid key is never refused for others' failures; the client
// address comes from X-Forwarded-For only through TRUST_PROXY; with REDIS_URL every instance
// shares one count per address.

let orm: Orm;
const shop = uniqueShopId('auththrottle');
const LIMIT = 20;
const apps: TestApp[] = [];

beforeAll(async () => {
  orm = await openTestOrm();
  const t = await createTestApp({ orm });
  await t.load(toDataset(datasetJson(shop)));
  await t.close();
});
afterAll(async () => {
  for (const t of apps) await t.close();
  await orm.close();
});

async function throttledApp(config: Partial<Config> = {}): Promise<TestApp> {
  const t = await createTestApp({ orm, config: { authFailuresPerMinute: LIMIT, ...config } });
  apps.push(t);
  return t;
}

const wrongKey = () => `Bearer bck_${randomBytes(32).toString('base64url')}`;
const newKey = async () => (await createApiKey(orm.em.fork(), { shopId: shop, scopes: ['read'] }));

function from(t: TestApp, remoteAddress: string, authorization?: string, headers: Record<string, string> = {}) {
  return t.request({ method: 'GET', url: '/api/v1/locations', remoteAddress, headers: { ...headers, ...(authorization ? { authorization } : {}) } });
}

async function fail(t: TestApp, times: number, remoteAddress: string, headers: Record<string, string> = {}): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await from(t, remoteAddress, wrongKey(), headers)).statusCode);
  return statuses;
}

/** `times` wrong keys at once (a throttled attempt waits up to a second for the known keys to be read: a burst waits once). */
async function burst(t: TestApp, times: number, remoteAddress: string): Promise<number[]> {
  return Promise.all(Array.from({ length: times }, () => from(t, remoteAddress, wrongKey()).then((r) => r.statusCode)));
}

describe('failed authentications per client address', () => {
  it('20 wrong keys a minute are 401; the 21st and later wrong keys from that address are 429 with Retry-After, other addresses unaffected', async () => {
    const t = await throttledApp();
    expect(await fail(t, LIMIT, '203.0.113.7')).toEqual(Array(LIMIT).fill(401));
    const refused = await from(t, '203.0.113.7', wrongKey());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.json().detail).toContain('failed authentications');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await from(t, '203.0.113.8', wrongKey())).statusCode).toBe(401);
  });

  it('a valid key in use from an address is still served after 25 wrong keys from that address (one stranger behind a shared NAT locks out nobody)', async () => {
    const t = await throttledApp();
    const { key } = await newKey();
    expect((await from(t, '198.51.100.20', `Bearer ${key}`)).statusCode).toBe(200);
    expect(await fail(t, LIMIT, '198.51.100.20')).toEqual(Array(LIMIT).fill(401));
    expect(await burst(t, 5, '198.51.100.20')).toEqual(Array(5).fill(429));
    expect((await from(t, '198.51.100.20', `Bearer ${key}`)).statusCode).toBe(200);
    const graphql = await t.request({ method: 'POST', url: '/graphql', remoteAddress: '198.51.100.20', headers: { authorization: `Bearer ${key}` }, payload: { query: '{ locations { locationId } }' } });
    expect(graphql.statusCode).toBe(200);
    // The stranger is still refused.
    expect((await from(t, '198.51.100.20', wrongKey())).statusCode).toBe(429);
  });

  it('a valid key never used before, created while its address is throttled, is served too', async () => {
    const t = await throttledApp();
    await fail(t, LIMIT, '198.51.100.21');
    expect(await burst(t, 5, '198.51.100.21')).toEqual(Array(5).fill(429));
    const { key } = await newKey();
    expect((await from(t, '198.51.100.21', `Bearer ${key}`)).statusCode).toBe(200);
  });

  it('a known key that is revoked is refused by the lookup (401), then throttled like any wrong key', async () => {
    const t = await throttledApp();
    const { id, key } = await newKey();
    expect((await from(t, '198.51.100.22', `Bearer ${key}`)).statusCode).toBe(200);
    await fail(t, LIMIT, '198.51.100.22');
    await revokeApiKey(orm.em.fork(), id);
    expect((await from(t, '198.51.100.22', `Bearer ${key}`)).statusCode).toBe(401);
    expect((await from(t, '198.51.100.22', `Bearer ${key}`)).statusCode).toBe(429);
    expect((await from(t, '198.51.100.23', `Bearer ${key}`)).statusCode).toBe(401);
  });

  it('120 concurrent wrong keys from one address: exactly 20 are looked up (401), the other 100 are 429 (counted when each attempt starts)', async () => {
    const t = await throttledApp();
    const statuses = await burst(t, 120, '198.51.100.30');
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(120 - LIMIT);
  });

  it('valid keys do not use up the budget: 100 requests with a right key, then still 20 wrong keys before 429', async () => {
    const t = await throttledApp();
    const { key } = await newKey();
    const concurrent = await Promise.all(Array.from({ length: 100 }, () => from(t, '198.51.100.31', `Bearer ${key}`).then((r) => r.statusCode)));
    expect(new Set(concurrent)).toEqual(new Set([200]));
    expect(await fail(t, LIMIT, '198.51.100.31')).toEqual(Array(LIMIT).fill(401));
    expect((await from(t, '198.51.100.31', wrongKey())).statusCode).toBe(429);
  });

  it('requests without any key are 401 and are not counted (only keys that fail are)', async () => {
    const t = await throttledApp();
    for (let i = 0; i < 30; i++) expect((await from(t, '203.0.113.9')).statusCode).toBe(401);
    expect(await fail(t, LIMIT, '203.0.113.9')).toEqual(Array(LIMIT).fill(401));
  });

  it('the window is one minute from the first failure; a failure taken back (a valid key) frees its place', async () => {
    let now = 1_000_000;
    const counter = new MemoryFailureCounter(LIMIT, () => now);
    for (let i = 0; i < LIMIT; i++) {
      expect((await counter.begin('a')).retryAfterSeconds).toBe(0);
      now += 1000;
    }
    expect((await counter.begin('a')).retryAfterSeconds).toBe(40);
    now += 39_999;
    expect((await counter.begin('a')).retryAfterSeconds).toBe(1);
    now += 1;
    const valid = await counter.begin('a');
    expect(valid.retryAfterSeconds).toBe(0);
    for (let i = 0; i < LIMIT - 1; i++) await counter.begin('a');
    expect((await counter.begin('a')).retryAfterSeconds).toBe(60);
    await valid.undo();
    expect((await counter.begin('a')).retryAfterSeconds).toBe(0);
    expect((await counter.begin('a')).retryAfterSeconds).toBe(60);
  });
});

describe('TRUST_PROXY: the client address behind a balancer', () => {
  const BALANCER = '10.0.0.5';

  it('TRUST_PROXY=1: two clients behind one balancer address, told apart by X-Forwarded-For, are throttled separately', async () => {
    const t = await throttledApp({ trustProxy: loadConfig({ TRUST_PROXY: '1' }).trustProxy });
    expect(await fail(t, LIMIT + 1, BALANCER, { 'x-forwarded-for': '198.51.100.1' })).toEqual([...Array(LIMIT).fill(401), 429]);
    expect((await from(t, BALANCER, wrongKey(), { 'x-forwarded-for': '198.51.100.2' })).statusCode).toBe(401);
    // The balancer appends the address it saw: what the client wrote before it is not believed.
    expect((await from(t, BALANCER, wrongKey(), { 'x-forwarded-for': '203.0.113.99, 198.51.100.1' })).statusCode).toBe(429);
  });

  it('TRUST_PROXY=<CIDR>: X-Forwarded-For is believed from a proxy in the range only, not from a client that writes it itself', async () => {
    const t = await throttledApp({ trustProxy: loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy });
    await fail(t, LIMIT, '192.0.2.50', { 'x-forwarded-for': '198.51.100.3' });
    // The direct client's own address is the one throttled, whatever it claims.
    expect((await from(t, '192.0.2.50', wrongKey(), { 'x-forwarded-for': '198.51.100.4' })).statusCode).toBe(429);
    expect((await from(t, BALANCER, wrongKey(), { 'x-forwarded-for': '198.51.100.3' })).statusCode).toBe(401);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: every client behind the balancer shares its address', async () => {
    const t = await throttledApp();
    await fail(t, LIMIT, BALANCER, { 'x-forwarded-for': '198.51.100.1' });
    expect((await from(t, BALANCER, wrongKey(), { 'x-forwarded-for': '198.51.100.2' })).statusCode).toBe(429);
  });

  it('TRUST_PROXY is parsed at start-up: a hop count, addresses and CIDRs; true and malformed entries fail with a message', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,fd00::/8 , 192.0.2.1,loopback' }).trustProxy).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.1', 'loopback']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY=true would believe any client's X-Forwarded-For/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY must be .*"10\.0\.0\.0\/33" is neither/);
    expect(() => loadConfig({ TRUST_PROXY: 'balancer.internal' })).toThrow(/"balancer\.internal" is neither/);
  });
});

describe('REDIS_URL: one failure count per address across instances', () => {
  it('two instances sharing Redis share the count: 10 failures on each, then the next on either is 429; a valid key still passes', async () => {
    const shared = { redisUrl: 'redis://127.0.0.1:6379', redisKeyPrefix: `bomcore-test:${randomBytes(6).toString('hex')}:` };
    const a = await throttledApp(shared);
    const b = await throttledApp(shared);
    expect(await fail(a, LIMIT / 2, '198.51.100.40')).toEqual(Array(LIMIT / 2).fill(401));
    expect(await fail(b, LIMIT / 2, '198.51.100.40')).toEqual(Array(LIMIT / 2).fill(401));
    expect((await from(a, '198.51.100.40', wrongKey())).statusCode).toBe(429);
    expect((await from(b, '198.51.100.40', wrongKey())).statusCode).toBe(429);
    const { key } = await newKey();
    expect((await from(b, '198.51.100.40', `Bearer ${key}`)).statusCode).toBe(200);
  });

  it('Redis unreachable: never a refusal for the outage, failures are counted per instance meanwhile', async () => {
    const t = await throttledApp({ redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: 'bomcore-test-down:' });
    const { key } = await newKey();
    expect((await from(t, '198.51.100.41', `Bearer ${key}`)).statusCode).toBe(200);
    expect(await fail(t, LIMIT + 1, '198.51.100.41')).toEqual([...Array(LIMIT).fill(401), 429]);
    expect((await from(t, '198.51.100.41', `Bearer ${key}`)).statusCode).toBe(200);
  });
});
