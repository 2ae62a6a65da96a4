import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHeader, CONTRACT_PATHS, FOREIGN_METHODS } from '../../rest-facade/contract.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { OpenApiValidator } from '../helpers/openapi-validator.ts';
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

  const bodies: [string, string, string][] = [
    ['a text body', 'text/plain', 'name=x'],
    ['an XML body', 'application/xml', '<x/>'],
    ['malformed JSON', 'application/json', '{"name":'],
    ['a body over 1 MiB', 'application/json', JSON.stringify({ note: 'x'.repeat(1024 * 1024 + 10) })],
  ];
  it.each((['PUT', 'DELETE', 'POST'] as const).flatMap((method) => bodies.map(([label, type, payload]) => [method, label, type, payload] as const)))(
    '%s with %s on a contract path is 405 with Allow (the method is refused before the body is read, not 415, 400 or 413)',
    async (method, _label, type, payload) => {
      const res = await t.request({ method, url: '/api/v1/work-orders/wo_1', key, headers: { 'content-type': type }, payload });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, PATCH');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    },
  );
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

  it('lists every contract path with its methods, GET /api/v1/openapi.json included, public (security: [], no rate-limit headers)', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const listed = Object.fromEntries(Object.entries<Record<string, unknown>>(doc.paths)
      .map(([path, ops]) => [path.replace('/api/v1', '').replace(/\{(\w+)\}/g, ':$1'), Object.keys(ops).map((m) => m.toUpperCase()).sort()]));
    expect(listed).toEqual(Object.fromEntries(Object.entries(CONTRACT_PATHS).map(([path, methods]) => [path, [...methods].sort()])));
    const own = doc.paths['/api/v1/openapi.json'].get;
    expect(own).toMatchObject({ operationId: 'getOpenApiDocument', security: [] });
    expect(Object.keys(own.responses['200'].headers)).not.toContain('RateLimit-Limit');
    expect(Object.keys(own.responses)).toEqual(['200', '405', '500', '503']);
  });

  it('every path lists a 405 problem+json response with a required Allow header', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.components.headers.Allow).toMatchObject({ required: true });
    for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const refused = operation.responses['405'];
        expect(refused?.content?.['application/problem+json']?.schema, `${method} ${path}`).toEqual({ $ref: '#/components/schemas/Problem' });
        expect(refused.headers.Allow, `${method} ${path}`).toEqual({ $ref: '#/components/headers/Allow' });
        expect(Object.keys(refused.content['application/problem+json'].examples)).toEqual(['METHOD_NOT_ALLOWED']);
      }
    }
  });

  it('a 405 validates against the document; the validator refuses one without Allow or with an undocumented Allow', async () => {
    const validator = new OpenApiValidator(t.app.swagger());
    for (const [method, url] of [['DELETE', '/api/v1/locations'], ['PUT', '/api/v1/work-orders/wo_1'], ['HEAD', '/api/v1/openapi.json']] as const) {
      const res = await t.request({ method, url, key });
      expect(res.statusCode).toBe(405);
      expect(() => validator.validateResponse(method, url, res)).not.toThrow();
      expect(() => validator.validateResponse(method, url, { ...res, headers: { ...res.headers, allow: undefined } })).toThrow(/lacks the required header Allow/);
      expect(() => validator.validateResponse(method, url, { ...res, headers: { ...res.headers, allow: 'GET, DELETE' } })).toThrow(/header Allow/);
    }
  });

  it('the validator checks a 304 too: documented, no body, with its ETag', async () => {
    const validator = new OpenApiValidator(t.app.swagger());
    const first = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(res.statusCode).toBe(304);
    expect(() => validator.validateResponse('GET', '/api/v1/locations', res)).not.toThrow();
    expect(() => validator.validateResponse('GET', '/api/v1/locations', { ...res, body: '{}' })).toThrow(/has a body/);
    expect(() => validator.validateResponse('GET', '/api/v1/locations', { ...res, headers: { ...res.headers, etag: undefined } })).toThrow(/required header ETag/);
    expect(() => validator.validateResponse('GET', '/api/v1/locations', { ...res, headers: { ...res.headers, etag: 'W/"weak"' } })).toThrow(/header ETag/);
    expect(() => validator.validateResponse('PATCH', '/api/v1/work-orders/wo_1', res)).toThrow(/PATCH \/api\/v1\/work-orders\/\{id\} → 304 is not documented/);
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
