import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { Orm } from '../../src/database.ts';
import { AuthThrottle } from '../../src/http/auth-throttle.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rules: every response carries nosniff, a frame ban and no-referrer, and API responses no-store
// (GraphiQL keeps its scripts); more than 20 failed authentications a minute from one address are
// answered 429 with Retry-After until the minute ends.

let orm: Orm;
let t: TestApp;
let key: string;
const shop = uniqueShopId('hygiene');
const BAD_KEY = 'Bearer bck_thisIsNotAKeyThisIsNotAKeyThisIsNotAKey0';

beforeAll(async () => {
  orm = await openTestOrm();
  t = await createTestApp({ orm, config: { authFailuresPerMinute: 20, graphql: { ...loadConfig({}).graphql, graphiql: true } } });
  await t.load(toDataset(datasetJson(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(async () => {
  await t.close();
  await orm.close();
});

function expectSecurityHeaders(headers: Record<string, unknown>, label: string, api = true): void {
  expect(headers['x-content-type-options'], label).toBe('nosniff');
  expect(headers['x-frame-options'], label).toBe('DENY');
  expect(headers['referrer-policy'], label).toBe('no-referrer');
  expect(String(headers['content-security-policy']), label).toContain("frame-ancestors 'none'");
  if (api) {
    expect(headers['cache-control'], label).toBe('no-store');
    expect(headers['content-security-policy'], label).toBe("default-src 'none'; frame-ancestors 'none'");
  }
}

describe('security headers', () => {
  it('on every kind of API response: 200, 4xx problems, 404 routes, 405, /graphql, health and the OpenAPI document', async () => {
    const cases: [string, Parameters<TestApp['request']>[0]][] = [
      ['200 REST', { method: 'GET', url: '/api/v1/locations', key }],
      ['401', { method: 'GET', url: '/api/v1/locations' }],
      ['400', { method: 'GET', url: '/api/v1/raw-materials?pageSize=-1', key }],
      ['404 route', { method: 'GET', url: '/nowhere' }],
      ['405', { method: 'DELETE', url: '/api/v1/locations', key }],
      ['415', { method: 'PATCH', url: '/api/v1/raw-materials/X/inventory', key, payload: 'x', headers: { 'content-type': 'text/plain' } }],
      ['graphql', { method: 'POST', url: '/graphql', key, payload: { query: '{ locations { locationId } }' } }],
      ['healthz', { method: 'GET', url: '/healthz' }],
      ['openapi', { method: 'GET', url: '/api/v1/openapi.json' }],
    ];
    for (const [label, options] of cases) {
      const res = await t.request(options);
      expectSecurityHeaders(res.headers, `${label} (${res.statusCode})`);
    }
  });

  it('GraphiQL still works: the page and its scripts load, framing is forbidden, no script-blocking policy', async () => {
    const page = await t.app.inject({ url: '/graphiql' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expectSecurityHeaders(page.headers, 'graphiql page', false);
    expect(page.headers['content-security-policy']).toBe("frame-ancestors 'none'");
    const assets = [...page.body.matchAll(/(?:src|href)=["'](\/graphiql\/static\/[^"']+)["']/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const url of assets) {
      const asset = await t.app.inject({ url });
      expect(asset.statusCode, url).toBe(200);
      // nosniff makes browsers refuse a script or style served with another type.
      expect(asset.headers['content-type'], url).toMatch(url.endsWith('.css') ? /text\/css/ : /javascript/);
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('throttling of failed authentication per client address', () => {
  it('20 failures a minute are 401; the 21st attempt and every request after it from that address are 429 with Retry-After, a valid key too', async () => {
    const from = (remoteAddress: string, authorization?: string, url = '/api/v1/locations') =>
      t.request({ method: 'GET', url, remoteAddress, headers: authorization ? { authorization } : {} });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await from('203.0.113.7', BAD_KEY)).statusCode);
    expect(statuses).toEqual(Array(20).fill(401));
    const refused = await from('203.0.113.7', BAD_KEY);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.json().detail).toContain('failed authentications');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused before the key is looked up: a right key from the throttled address learns nothing either.
    expect((await from('203.0.113.7', `Bearer ${key}`)).statusCode).toBe(429);
    const graphql = await t.request({ method: 'POST', url: '/graphql', remoteAddress: '203.0.113.7', headers: { authorization: `Bearer ${key}` }, payload: { query: '{ locations { locationId } }' } });
    expect(graphql.statusCode).toBe(429);
    // Other addresses are not affected.
    expect((await from('203.0.113.8', `Bearer ${key}`)).statusCode).toBe(200);
    expect((await from('203.0.113.8', BAD_KEY)).statusCode).toBe(401);
  });

  it('requests without any key are 401 and are not counted (only keys that fail are)', async () => {
    for (let i = 0; i < 30; i++) expect((await t.request({ method: 'GET', url: '/api/v1/locations', remoteAddress: '203.0.113.9' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/v1/locations', remoteAddress: '203.0.113.9', key })).statusCode).toBe(200);
  });

  it('the window is one minute from the first failure: after it the address may try again', () => {
    let now = 1_000_000;
    const throttle = new AuthThrottle(20, () => now);
    for (let i = 0; i < 20; i++) {
      expect(throttle.retryAfterSeconds('a')).toBe(0);
      throttle.recordFailure('a');
      now += 1000;
    }
    expect(throttle.retryAfterSeconds('a')).toBe(40);
    now += 39_999;
    expect(throttle.retryAfterSeconds('a')).toBe(1);
    now += 1;
    expect(throttle.retryAfterSeconds('a')).toBe(0);
    throttle.recordFailure('a');
    expect(throttle.retryAfterSeconds('a')).toBe(0);
  });
});
