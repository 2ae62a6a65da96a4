import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset, workOrderJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rules (docs/api-conventions.md, "Caching"): a 200 GET read of shop data carries a strong ETag and
// `Cache-Control: private, no-cache`; If-None-Match naming the current tag (a list, `*`, weak
// comparison) is 304 with the same headers and no body; any write that changes the answer changes
// the tag; two shops never share a tag; errors, key refusals, writes and the public document stay
// `no-store` with no tag. Every response here is also validated against the OpenAPI document.
// What makes the tag (the data version, each kind of write, the clock) is tested in conditional-reads.test.ts.

type Json = Record<string, any>;
let t: TestApp;
let key: string;
let otherKey: string;
const shop = uniqueShopId('cache');
const twin = uniqueShopId('cache-twin');
const TAG = /^"[A-Za-z0-9_-]{43}"$/;

beforeAll(async () => {
  t = await createTestApp();
  const workOrders = [workOrderJson('wo_cache1', 'draft', 'asg_ana')];
  await t.load(toDataset(datasetJson(shop, { workOrders })));
  await t.load(toDataset(datasetJson(twin, { workOrders })));
  key = await t.createKey(shop, ['read', 'write']);
  otherKey = await t.createKey(twin, ['read']);
});
afterAll(() => t.close());

const read = (url: string, headers: Record<string, string> = {}, as = key) => t.request({ method: 'GET', url, key: as, headers });
const patch = (url: string, payload: Json) => t.patch(url, key, payload);

describe('a GET read of shop data is tagged', () => {
  it('a 200 carries a strong ETag ("…") and Cache-Control: private, no-cache', async () => {
    const res = await read('/api/v1/bills-of-materials/BOM-1001/buildable');
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(TAG);
    expect(res.headers['cache-control']).toBe('private, no-cache');
  });

  it('If-None-Match with the current tag is 304: no body, no Content-Type, the same ETag and Cache-Control', async () => {
    const first = await read('/api/v1/bills-of-materials/BOM-1001/buildable');
    const again = await read('/api/v1/bills-of-materials/BOM-1001/buildable', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['content-type']).toBeUndefined();
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('private, no-cache');
    expect(again.headers['x-request-id']).toBeDefined();
  });

  it('If-None-Match matches as RFC 9110 says: `*`, a list holding the tag, and the tag with W/ (weak comparison)', async () => {
    const tag = String((await read('/api/v1/locations')).headers.etag);
    for (const header of ['*', `"stale", ${tag}`, `W/"a",W/"b" , ${tag}`, `W/${tag}`]) {
      expect((await read('/api/v1/locations', { 'if-none-match': header })).statusCode, header).toBe(304);
    }
  });

  it('a tag that is not current, a malformed header and one over 2048 characters are answered 200 in full, never refused', async () => {
    const tag = String((await read('/api/v1/locations')).headers.etag);
    for (const header of ['W/"not-the-tag"', tag.slice(1, -1), 'garbage', `${'W/"x", '.repeat(300)}${tag}`]) {
      const res = await read('/api/v1/locations', { 'if-none-match': header });
      expect(res.statusCode, header.slice(0, 40)).toBe(200);
      expect(res.json().data.locations.length).toBe(3);
    }
  });

  it('two reads with no write between them have the same tag, on every GET route of the document, and the second is a 304 that ran no operation', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const ids: Record<string, string> = { variantId: 'VMAT-VAR-0001', ownerType: 'bom', ownerId: 'BOM-1001' };
    const byPath: Record<string, string> = {
      '/api/v1/assembly-bills/{id}/preassembled': 'ASM-1', '/api/v1/order-bom-breakdown/{id}': '5001', '/api/v1/work-orders/{id}': 'wo_cache1',
      '/api/v1/work-orders/{id}/material-plan': 'wo_cache1', '/api/v1/work-orders/{id}/build-runs': 'wo_cache1',
    };
    const urls = Object.entries<Json>(doc.paths).filter(([, ops]) => ops.get && ops.get.security.length > 0).map(([path]) => {
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'id' ? byPath[path] ?? 'BOM-1001' : ids[name]!));
      return path === '/api/v1/order-bom-breakdown' ? `${url}?ids=5001` : url;
    });
    expect(urls).toHaveLength(22);
    for (const url of urls) {
      const first = await read(url);
      expect(first.statusCode, url).toBe(200);
      expect(Number(first.headers['x-query-count']), url).toBeGreaterThan(0);
      const second = await read(url, { 'if-none-match': String(first.headers.etag) });
      expect(second.statusCode, url).toBe(304);
      expect(second.headers['x-query-count'], url).toBeUndefined();
    }
  });
});

describe('any write that changes the answer changes the tag', () => {
  it('a material PATCH: the old tag is answered 200 with the new answer and a new tag, on the material and the list', async () => {
    const urls = ['/api/v1/raw-materials/VMAT-VAR-0001', '/api/v1/raw-materials?originFilter=virtual'];
    const before = await Promise.all(urls.map((url) => read(url)));
    expect((await patch('/api/v1/raw-materials/VMAT-VAR-0001', { productName: 'Cotton wick, waxed' })).statusCode).toBe(200);
    for (const [i, url] of urls.entries()) {
      const after = await read(url, { 'if-none-match': String(before[i]!.headers.etag) });
      expect(after.statusCode, url).toBe(200);
      expect(after.headers.etag, url).not.toBe(before[i]!.headers.etag);
      expect(after.body, url).toContain('Cotton wick, waxed');
    }
  });

  it('the buildable read (the one callers should cache) changes its tag when a component\'s stock changes', async () => {
    const url = '/api/v1/bills-of-materials/BOM-1001/buildable?locationIds=101';
    const before = await read(url);
    const adjusted = await patch('/api/v1/raw-materials/VMAT-VAR-0001/inventory', { updates: [{ locationId: '101', absolute: 10 }] });
    expect(adjusted.json().data.okCount).toBe(1);
    const after = await read(url, { 'if-none-match': String(before.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.json().data.totals.maxBuildable).not.toBe(before.json().data.totals.maxBuildable);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // The new tag is current again.
    expect((await read(url, { 'if-none-match': String(after.headers.etag) })).statusCode).toBe(304);
  });

  it('a work-order edit changes the work order\'s tag and the list\'s', async () => {
    const urls = ['/api/v1/work-orders/wo_cache1', '/api/v1/work-orders'];
    const before = await Promise.all(urls.map((url) => read(url)));
    const updatedAt = before[0]!.json().data.updatedAt;
    expect((await patch('/api/v1/work-orders/wo_cache1', { expectedUpdatedAt: updatedAt, name: 'Renamed for the cache test' })).statusCode).toBe(200);
    for (const [i, url] of urls.entries()) {
      const after = await read(url, { 'if-none-match': String(before[i]!.headers.etag) });
      expect(after.statusCode, url).toBe(200);
      expect(after.headers.etag, url).not.toBe(before[i]!.headers.etag);
    }
  });
});

describe('two shops never share a tag', () => {
  it('the same answer read by two shops has two tags, and one shop\'s tag is 200 for the other', async () => {
    const mine = await read('/api/v1/locations');
    const theirs = await read('/api/v1/locations', {}, otherKey);
    expect(theirs.json().data).toEqual(mine.json().data);
    expect(theirs.headers.etag).not.toBe(mine.headers.etag);
    expect((await read('/api/v1/locations', { 'if-none-match': String(mine.headers.etag) }, otherKey)).statusCode).toBe(200);
  });
});

describe('what is not a read of shop data stays no-store, with no tag', () => {
  it('errors (400, 401, 403, 404, 405), a PATCH 200 and the public document: no-store, no ETag, and If-None-Match changes nothing', async () => {
    const readOnly = await t.createKey(shop, ['read']);
    const cases: [string, Parameters<TestApp['request']>[0], number][] = [
      ['400', { method: 'GET', url: '/api/v1/raw-materials?pageSize=0', key }, 400],
      ['401', { method: 'GET', url: '/api/v1/locations' }, 401],
      ['403', { method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0001', key: readOnly, headers: { 'content-type': 'application/json' }, payload: {} }, 403],
      ['404', { method: 'GET', url: '/api/v1/raw-materials/VMAT-VAR-404', key }, 404],
      ['405', { method: 'DELETE', url: '/api/v1/locations', key }, 405],
      ['PATCH 200', { method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0001', key, headers: { 'content-type': 'application/json' }, payload: { vendor: 'WickWorks' } }, 200],
      ['openapi.json', { method: 'GET', url: '/api/v1/openapi.json' }, 200],
    ];
    for (const [label, options, status] of cases) {
      const res = await t.request({ ...options, headers: { ...options.headers, 'if-none-match': '*' } });
      expect(res.statusCode, label).toBe(status);
      expect(res.headers['cache-control'], label).toBe('no-store');
      expect(res.headers.etag, label).toBeUndefined();
    }
  });

  it('a 429 (over the key\'s rate limit) is no-store with no ETag', async () => {
    const limited = await createTestApp({ orm: t.orm, config: { rateLimitBurst: 1, rateLimitRefillPerSecond: 0.001 } });
    try {
      expect((await limited.request({ method: 'GET', url: '/api/v1/locations', key })).statusCode).toBe(200);
      const refused = await limited.request({ method: 'GET', url: '/api/v1/locations', key, headers: { 'if-none-match': '*' } });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.headers.etag).toBeUndefined();
    } finally {
      await limited.close();
    }
  });
});

describe('the OpenAPI document describes the conditional GET', () => {
  it('every GET of shop data has the If-None-Match parameter, ETag and Cache-Control on its 200, and a 304 with no body', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const gets = Object.entries<Json>(doc.paths).filter(([, ops]) => ops.get?.security.length > 0);
    expect(gets.length).toBe(22);
    for (const [path, { get }] of gets) {
      expect(get.parameters.find((p: Json) => p.name === 'If-None-Match'), path).toMatchObject({ in: 'header', required: false, schema: { type: 'string', maxLength: 2048 } });
      expect(Object.keys(get.responses['200'].headers), path).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
      expect(get.responses['304'].content, path).toBeUndefined();
      expect(Object.keys(get.responses['304'].headers), path).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
    }
    expect(doc.components.headers.ETag).toMatchObject({ required: true, schema: { pattern: '^"[A-Za-z0-9_-]+(\\.[0-9a-z]+)?"$' } });
    expect(doc.paths['/api/v1/work-orders/{id}'].patch.responses['304']).toBeUndefined();
  });
});
