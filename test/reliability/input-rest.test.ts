import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRING_LIMITS, LIST_LIMITS } from '../../src/kernel/limits.ts';
import { MAX_PARAM_LENGTH } from '../../src/http/errors/error-handler.ts';
import { MAX_REPORTED_FIELDS } from '../../src/http/requests/validators.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule: no 5xx from client input on REST. Text PostgreSQL cannot store (NUL, lone surrogates) and
// text over its documented maximum are 400 INVALID_INPUT naming the field, wherever they sit;
// framework refusals (bad URL, long path segment, malformed HTTP) are problem+json with X-Request-Id.

let t: TestApp;
let key: string;
const VIRTUAL = 'VMAT-VAR-0002';

beforeAll(async () => {
  t = await createTestApp();
  const shop = uniqueShopId('input-rest');
  await t.load(toDataset(materialShop(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(async () => t.close());

const patch = (url: string, payload: unknown) => t.request({ method: 'PATCH', url, key, payload: payload as object });
const patchRaw = (url: string, payload: string) => t.request({ method: 'PATCH', url, key, payload, headers: { 'content-type': 'application/json' } });

function expectInvalid(response: { statusCode: number; headers: Record<string, unknown>; json(): any }, field: string, message?: string) {
  expect(response.statusCode).toBe(400);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.headers['x-request-id']).toBeTruthy();
  const body = response.json();
  expect(body.code).toBe('INVALID_INPUT');
  expect(body.requestId).toBe(response.headers['x-request-id']);
  expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
  if (message) expect(body.errors.find((e: { field: string }) => e.field === field).message).toContain(message);
}

describe(`text the database cannot store is 400 naming the field (${databaseLabel})`, () => {
  it('NUL in a query parameter (GET /raw-materials?search=%00) → search', async () => {
    expectInvalid(await t.request({ url: '/api/v1/raw-materials?search=%00', key }), 'search', 'NUL');
  });

  it('NUL in a path parameter (GET /raw-materials/%00) → variantId', async () => {
    expectInvalid(await t.request({ url: '/api/v1/raw-materials/%00', key }), 'variantId', 'NUL');
    expectInvalid(await t.request({ url: '/api/v1/work-orders/wo_%00x/material-plan', key }), 'id', 'NUL');
  });

  it('NUL in a repeated query value (locationIds) and in a body string at any depth', async () => {
    expectInvalid(await t.request({ url: '/api/v1/raw-materials/44001/inventory?locationIds=101&locationIds=1%000', key }), 'locationIds[1]');
    expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}`, { productName: 'Wick\u0000' }), 'productName', 'NUL');
    expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}/inventory`, { updates: [{ locationId: '101', delta: 1 }, { locationId: '101', delta: 1, variantId: `${VIRTUAL}\u0000` }] }), 'updates[1].variantId');
    // Unrecognised fields are ignored, but not when they hold what no field could hold.
    expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}`, { note: { deep: ['ok', 'x\u0000'] } }), 'note.deep[1]');
  });

  it('a lone surrogate (\\ud800) is 400, not silently stored as U+FFFD', async () => {
    expectInvalid(await patchRaw(`/api/v1/raw-materials/${VIRTUAL}`, '{"productName":"a\\ud800b"}'), 'productName', 'lone surrogate');
    // Percent-encoded UTF-8 of a surrogate is not UTF-8: the query decoder never yields one (no 5xx either way).
    expect((await t.request({ url: '/api/v1/raw-materials?search=%ED%A0%80', key })).statusCode).toBeLessThan(500);
    // A well-formed pair is fine.
    expect((await patchRaw(`/api/v1/raw-materials/${VIRTUAL}`, '{"variantName":"a\\ud83d\\ude00b"}')).statusCode).toBe(200);
  });

  it('nothing was written by the refused requests', async () => {
    const material = (await t.get(`/api/v1/raw-materials/${VIRTUAL}`, key)).body.data.material;
    expect(material.productName).toBe('Wick sticker');
  });
});

describe('every string has a maximum: over it is 400, at it is stored', () => {
  it(`a 2,800-character productName is 400 naming productName (limit ${STRING_LIMITS.name}), not a btree index error`, async () => {
    expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}`, { productName: 'p'.repeat(2_800) }), 'productName');
  });

  it(`${STRING_LIMITS.name} random 4-byte characters in productName are stored and listed (the widest index row fits on ${databaseLabel})`, async () => {
    const chars = Array.from({ length: STRING_LIMITS.name }, (_, i) => String.fromCodePoint(0x1f300 + ((i * 7919) % 1500)));
    const name = chars.join('');
    const res = await patch(`/api/v1/raw-materials/${VIRTUAL}`, { productName: name, variantName: name });
    expect(res.statusCode).toBe(200);
    const list = (await t.get(`/api/v1/raw-materials?sortBy=productName&pageSize=1000`, key)).body.data;
    expect(list.items.find((m: { variantId: string }) => m.variantId === VIRTUAL).productName).toBe(name);
    expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}`, { productName: `${name}x` }), 'productName');
  });

  it.each([
    ['search', `/api/v1/raw-materials?search=${'s'.repeat(STRING_LIMITS.search + 1)}`],
    ['sortBy', `/api/v1/raw-materials?sortBy=${'s'.repeat(STRING_LIMITS.sortKey + 1)}`],
    ['vendorFilter[0]', `/api/v1/raw-materials?vendorFilter=${'v'.repeat(STRING_LIMITS.label + 1)}`],
    ['q', `/api/v1/work-orders?q=${'q'.repeat(STRING_LIMITS.search + 1)}`],
  ])('%s over its maximum is 400', async (field, url) => {
    expectInvalid(await t.request({ url, key }), field);
  });

  it('every text field of PATCH /raw-materials/:id refuses one character over its maximum', async () => {
    const fields = { productName: 'name', variantName: 'name', sku: 'label', unit: 'label', vendor: 'label', specifications: 'text', imageUrl: 'url', weightUnitId: 'label', productType: 'label', productCategory: 'label' } as const;
    for (const [field, kind] of Object.entries(fields)) {
      expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}`, { [field]: 'x'.repeat(STRING_LIMITS[kind] + 1) }), field, `${STRING_LIMITS[kind]}`);
    }
  });
});

describe('every list has a maximum', () => {
  it(`${LIST_LIMITS.ids + 1} locationIds are 400 naming locationIds`, async () => {
    const query = Array.from({ length: LIST_LIMITS.ids + 1 }, (_, i) => `locationIds=${i + 1}`).join('&');
    expectInvalid(await t.request({ url: `/api/v1/raw-materials/44001/inventory?${query}`, key }), 'locationIds');
    const ok = Array.from({ length: LIST_LIMITS.ids }, (_, i) => `locationIds=${i + 1}`).join('&');
    expect((await t.request({ url: `/api/v1/raw-materials/44001/inventory?${ok}`, key })).statusCode).toBe(200);
  });

  it(`${LIST_LIMITS.orderIds + 1} order ids, repeated or comma-separated, are 400 naming ids`, async () => {
    const ids = Array.from({ length: LIST_LIMITS.orderIds + 1 }, (_, i) => String(5000 + i));
    expectInvalid(await t.request({ url: `/api/v1/order-bom-breakdown?${ids.map((id) => `ids=${id}`).join('&')}`, key }), 'ids');
    expectInvalid(await t.request({ url: `/api/v1/order-bom-breakdown?ids=${ids.join(',')}`, key }), 'ids');
  });

  it(`${LIST_LIMITS.inventoryUpdates + 1} inventory updates are 400 naming updates`, async () => {
    const updates = Array.from({ length: LIST_LIMITS.inventoryUpdates + 1 }, () => ({ locationId: '101', delta: 0 }));
    expectInvalid(await patch(`/api/v1/raw-materials/${VIRTUAL}/inventory`, { updates }), 'updates');
  });

  it(`5,000 values outside an enum (GET /work-orders?status=…) are 400 within 2 s naming the first ${MAX_REPORTED_FIELDS}, not minutes of CPU`, async () => {
    // Every value failed an anyOf of literals; pairing 5,000 anyOf errors with 20,000 branch errors took 161 s for 1,000 values.
    const started = performance.now();
    const res = await t.request({ url: `/api/v1/work-orders?${Array.from({ length: 5000 }, (_, i) => `status=x${i}`).join('&')}`, key });
    expect(performance.now() - started).toBeLessThan(2000);
    expectInvalid(res, 'status');
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    expect(fields.length).toBeLessThanOrEqual(MAX_REPORTED_FIELDS + 1);
    expect(fields).toContain('status[0]');
    expect(fields).not.toContain(`status[${MAX_REPORTED_FIELDS + 5}]`);
  });
});

describe('framework refusals are problem+json with X-Request-Id and a documented status', () => {
  it('a URL that does not decode is 400 INVALID_INPUT naming path (was Fastify\'s own JSON without X-Request-Id)', async () => {
    expectInvalid(await t.request({ url: '/api/v1/raw-materials/%E0%A4%A', key }), 'path');
    expectInvalid(await t.request({ url: '/api/v1/raw-materials/%', key }), 'path');
  });

  it('ids of 101–255 characters reach the route (404 for an unknown one, was 414); 256 is 400 naming the field', async () => {
    for (const length of [101, 200, 255]) {
      const res = await t.request({ url: `/api/v1/raw-materials/VMAT-VAR-${'a'.repeat(length - 9)}`, key });
      expect(res.statusCode).toBe(404);
    }
    expectInvalid(await t.request({ url: `/api/v1/raw-materials/${'a'.repeat(256)}`, key }), 'variantId');
    expectInvalid(await t.request({ url: `/api/v1/work-orders/${'w'.repeat(1_000)}`, key }), 'id');
  });

  it(`a path segment over ${MAX_PARAM_LENGTH} characters is 400 INVALID_INPUT naming path (was 414)`, async () => {
    expectInvalid(await t.request({ url: `/api/v1/raw-materials/${'a'.repeat(MAX_PARAM_LENGTH + 1)}`, key }), 'path');
  });

  it.each([['HEAD', '/nope', 404], ['OPTIONS', '/graphql', 404], ['PROPFIND', '/api/v1/raw-materials', 404], ['HEAD', '/api/v1/raw-materials', 405], ['DELETE', '/api/v1/raw-materials/44001', 405]])(
    '%s %s → %i problem+json with X-Request-Id', async (method, url, status) => {
      const res = await t.request({ method: method as 'GET', url, key });
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.headers['x-request-id']).toBeTruthy();
    });
});

describe('errors of Node\'s HTTP parser (real socket)', () => {
  let port: number;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });

  function raw(bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let data = '';
      socket.on('data', (chunk) => { data += chunk.toString('latin1'); });
      socket.on('end', () => resolve(data));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
  }

  function parse(response: string) {
    const [head, body] = response.split('\r\n\r\n');
    const lines = head!.split('\r\n');
    const headers = Object.fromEntries(lines.slice(1).map((l) => [l.split(':')[0]!.toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    return { status: Number(lines[0]!.split(' ')[1]), headers, body: JSON.parse(body!) };
  }

  it('headers over 16 KiB (was 431 text JSON) → 400 problem+json with X-Request-Id', async () => {
    const res = parse(await raw(`GET /api/v1/locations HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', status: 400, requestId: res.headers['x-request-id'] });
  });

  it.each([['a malformed request line', 'GET\x01 / HTTP/1.1\r\n\r\n'], ['an invalid header', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n'], ['an unknown method', 'FROB /api/v1/locations HTTP/1.1\r\nHost: x\r\n\r\n']])(
    '%s → 400 problem+json with X-Request-Id', async (_label, bytes) => {
      const res = parse(await raw(bytes));
      expect(res.status).toBe(400);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.body.code).toBe('INVALID_INPUT');
    });

  it('over HTTP too, a NUL in a query is 400 naming the field', async () => {
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', path: '/api/v1/raw-materials?search=%00', headers: { authorization: `Bearer ${key}` } }, (r) => {
        let data = '';
        r.on('data', (c) => { data += c; });
        r.on('end', () => resolve({ status: r.statusCode!, body: JSON.parse(data) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('search');
  });
});
