import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/app/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rules: every response carries nosniff, a frame ban and no-referrer, and API responses no-store
// (but 200 reads of shop data: `private, no-cache` with an ETag, test/api/caching.test.ts)
// (GraphiQL keeps its scripts). The failed-authentication throttle: test/reliability/auth-throttle.test.ts.

let orm: Orm;
let t: TestApp;
let key: string;
const shop = uniqueShopId('hygiene');

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

function expectSecurityHeaders(headers: Record<string, unknown>, label: string, api = true, cacheControl = 'no-store'): void {
  expect(headers['x-content-type-options'], label).toBe('nosniff');
  expect(headers['x-frame-options'], label).toBe('DENY');
  expect(headers['referrer-policy'], label).toBe('no-referrer');
  expect(String(headers['content-security-policy']), label).toContain("frame-ancestors 'none'");
  if (api) {
    expect(headers['cache-control'], label).toBe(cacheControl);
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
      expectSecurityHeaders(res.headers, `${label} (${res.statusCode})`, true, label === '200 REST' ? 'private, no-cache' : 'no-store');
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
