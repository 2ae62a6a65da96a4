import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHeader, CONTRACT_PATHS, FOREIGN_METHODS } from '../../rest-facade/contract.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('conv');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

describe('envelope and request id (docs/api-conventions.md: requests and envelope)', () => {
  it('a 200 is { data, meta: { requestId, apiVersion: "1.2" } } and meta.requestId equals X-Request-Id', async () => {
    const res = await t.get('/api/v1/locations', key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data', 'meta']);
    expect(res.body.meta).toEqual({ requestId: res.headers['x-request-id'], apiVersion: '1.2' });
  });

  it('a well-formed client X-Request-Id is echoed in the header and the body', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key, headers: { 'x-request-id': 'client-42:a.b_c' } });
    expect(res.headers['x-request-id']).toBe('client-42:a.b_c');
    expect(res.json().meta.requestId).toBe('client-42:a.b_c');
  });

  it.each([['too long', 'x'.repeat(129)], ['illegal characters', 'abc def'], ['empty', '']])('a client X-Request-Id that is %s is replaced by a server id', async (_l, sent) => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key, headers: { 'x-request-id': sent } });
    expect(res.headers['x-request-id']).not.toBe(sent);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('errors carry X-Request-Id too, equal to the problem\'s requestId, with apiVersion', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/nowhere', key, headers: { 'x-request-id': 'req-404' } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-request-id']).toBe('req-404');
    expect(res.json()).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no route GET /api/v1/nowhere', code: 'NOT_FOUND', requestId: 'req-404', apiVersion: '1.2' });
  });
});

describe('input errors are 400 INVALID_INPUT naming the field', () => {
  it('an unknown query parameter is 400 naming it', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/assignees?sortBy=name', key });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'sortBy', message: 'is not a parameter of this route' }] });
  });

  it('a filter of another list is 400 (locations take no parameters)', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations?statusFilter=active', key });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('statusFilter');
  });

  it.each(['yes', '1', 'TRUE', ''])('a boolean query value %j is 400 (only true/false)', async (value) => {
    const res = await t.request({ method: 'GET', url: `/api/v1/assignees?includeInactive=${value}`, key });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('includeInactive');
  });

  it('malformed JSON on a PATCH is 400', async () => {
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_1', key, headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_INPUT');
  });

  it('a PATCH without Content-Type: application/json is 415', async () => {
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_1', key, headers: { 'content-type': 'text/plain' }, payload: 'name=x' });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over 1 MiB is 413', async () => {
    const big = JSON.stringify({ note: 'x'.repeat(1024 * 1024 + 10) });
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_1', key, headers: { 'content-type': 'application/json' }, payload: big });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('405 with Allow on every contract path (docs/contract.md: only GET and PATCH exist)', () => {
  const cases = Object.entries(CONTRACT_PATHS).flatMap(([path, methods]) =>
    [...FOREIGN_METHODS, ...(['GET', 'PATCH'] as const).filter((m) => !methods.includes(m))].map((method) => [method, path, allowHeader(methods)] as const));

  it('covers all 24 contract paths', () => {
    expect(Object.keys(CONTRACT_PATHS)).toHaveLength(24);
  });

  it.each(cases)('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const url = '/api/v1' + path.replace(/:[a-zA-Z]+/g, 'x1');
    const res = await t.request({ method, url, key });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    if (method !== 'HEAD') expect(res.json()).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
  });
});

describe('health', () => {
  it('GET /healthz is 200 without a key, GET /readyz checks the database', async () => {
    expect((await t.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('while shutting down every request but /healthz is 503 UNAVAILABLE with Retry-After', async () => {
    const closing = await createTestApp({ orm: t.orm });
    try {
      closing.app.beginShutdown();
      const res = await closing.request({ method: 'GET', url: '/api/v1/locations', key });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json().code).toBe('UNAVAILABLE');
    } finally {
      await closing.close();
    }
  });
});

describe('OpenAPI document (GET /api/v1/openapi.json)', () => {
  it('is public, OpenAPI 3.1, and documents every implemented route with its problems', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2');
    expect(doc.paths['/api/v1/locations'].get.operationId).toBe('listLocations');
    expect(doc.paths['/api/v1/assignees'].get.responses['401'].content['application/problem+json']).toBeDefined();
    expect(doc.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
  });
});

describe('request bodies are validated without type coercion', () => {
  it('a string where a number is expected is 400 naming the field as updates[0].delta', async () => {
    const virtual = 'VMAT-VAR-0001';
    const res = await t.request({
      method: 'PATCH', url: `/api/v1/raw-materials/${virtual}/inventory`, key,
      headers: { 'content-type': 'application/json' }, payload: { updates: [{ locationId: '101', delta: '5' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain('updates[0].delta');
  });

  it('a number where a string is expected is 400, not silently turned into text', async () => {
    const res = await t.request({
      method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0001', key,
      headers: { 'content-type': 'application/json' }, payload: { productName: 123 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('productName');
  });

  it('query strings are still coerced from text ("true" is a boolean there)', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v1/assignees?includeInactive=true', key })).statusCode).toBe(200);
  });
});
