import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueShopId } from '../helpers/database.ts';
import { operationsOf, type DocumentOperation, type OpenApiDocument } from '../helpers/fuzz/openapi-requests.ts';
import { B, leaksShopB, loadShopB, shopBState } from '../helpers/fuzz/tenant-shops.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { stockShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/*
 * Rule (issue 11 "Tests that keep it so"; docs/architecture.md "Database": every shop-owned row is
 * read and written through the tenant filter): with shop A's key, no REST route shows anything of
 * shop B — a B id in the path is 404 exactly as an unknown id, B ids in the query or the body find
 * nothing — and no write changes B (its dataset export, stock and adjustment history compared
 * before and after). The routes come from the served OpenAPI document: a new route without an
 * entry in the tables below fails the first test, so it cannot be forgotten.
 */

let t: TestApp;
let keyA: string;
let readA: string;
const shopA = uniqueShopId('tenant-a');
const shopB = uniqueShopId('tenant-b');
let doc: OpenApiDocument;
let operations: DocumentOperation[];
let updatedAtB: string;
let updatedAtA: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(stockShop(shopA)));
  await loadShopB(t, shopB);
  keyA = await t.createKey(shopA, ['read', 'write']);
  readA = await t.createKey(shopA, ['read']);
  const keyB = await t.createKey(shopB, ['read']);
  const b = await t.get(`/api/v1/work-orders/${B.workOrder}`, keyB);
  expect(b.status, 'shop B loaded with its renamed ids').toBe(200);
  updatedAtB = b.body.data.updatedAt;
  updatedAtA = (await t.get('/api/v1/work-orders/wo_a', keyA)).body.data.updatedAt;
  doc = t.app.swagger() as unknown as OpenApiDocument;
  operations = operationsOf(doc);
});
afterAll(() => t.close());

/** B's value for a path parameter, by name and the route it is in (every variant when several kinds of ids fit). */
function pathValuesB(op: DocumentOperation): Record<string, string>[] {
  const names = (op.operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  if (names.length === 0) return [{}];
  if (names.includes('ownerType')) return [{ ownerType: 'bom', ownerId: B.bom }, { ownerType: 'sub_assembly', ownerId: B.assembly }];
  if (names.includes('variantId')) return [{ variantId: B.virtualMaterial }, { variantId: B.platformMaterial }];
  if (names.includes('id')) {
    const byPrefix: Record<string, string> = {
      '/api/v1/assembly-bills/': B.assembly, '/api/v1/bills-of-materials/': B.bom, '/api/v1/order-bom-breakdown/': B.order, '/api/v1/work-orders/': B.workOrder,
    };
    const prefix = Object.keys(byPrefix).find((p) => op.path.startsWith(p));
    if (prefix) return [{ id: byPrefix[prefix]! }];
  }
  throw new Error(`${op.id}: no shop-B value for path parameters ${names.join(', ')} — add the route to tenant-rest.test.ts`);
}

/** A's own ids for the same parameters (for the pass that puts B's ids in the query and the body only). */
function pathValuesA(op: DocumentOperation): Record<string, string> {
  const names = (op.operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  if (names.includes('ownerType')) return { ownerType: 'bom', ownerId: 'BOM-1001' };
  if (names.includes('variantId')) return { variantId: 'VMAT-VAR-0001' };
  const byPrefix: Record<string, string> = { '/api/v1/assembly-bills/': 'ASM-1', '/api/v1/bills-of-materials/': 'BOM-1001', '/api/v1/order-bom-breakdown/': '5001', '/api/v1/work-orders/': 'wo_a' };
  const prefix = Object.keys(byPrefix).find((p) => op.path.startsWith(p));
  return prefix ? { id: byPrefix[prefix]! } : {};
}

/** Query parameters: ids of B where the parameter takes one, a valid value otherwise. */
const QUERY_B: Record<string, string[]> = {
  locationIds: [B.location], locationId: [B.location], ids: [B.order], assignedTo: [B.assignee], search: ['X9'], q: ['x9'], vendorFilter: ['WaxCo'],
  page: ['1'], pageSize: ['50'], limit: ['10'], offset: ['0'], includeInactive: ['true'], includeConnections: ['true'], includeItemConsumption: ['true'],
};

function queryB(op: DocumentOperation): string {
  const params = (op.operation.parameters ?? []).filter((p) => p.in === 'query');
  const pairs: string[] = [];
  for (const p of params) {
    const values = QUERY_B[p.name];
    if (!values) {
      if (p.required) throw new Error(`${op.id}: no value for required query parameter ${p.name} — add it to QUERY_B`);
      continue;
    }
    for (const v of values) pairs.push(`${p.name}=${encodeURIComponent(v)}`);
  }
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** Bodies of every write: aimed at B's objects (first pass) or at A's objects naming B's (second pass). */
const BODIES: Record<string, (target: 'B' | 'A') => unknown> = {
  'PATCH /api/v1/raw-materials/{variantId}': () => ({ productName: 'tenant probe', vendor: 'probe' }),
  'PATCH /api/v1/raw-materials/{variantId}/inventory': () => ({ updates: [{ locationId: B.location, delta: 1 }] }),
  'PATCH /api/v1/work-orders/{id}': (target) => ({
    expectedUpdatedAt: target === 'B' ? updatedAtB : updatedAtA, name: 'tenant probe', assigneeId: B.assignee, productionLocationId: B.location, sourceOrderIds: [B.order],
  }),
  'PATCH /api/v1/work-orders/{id}/build-runs': (target) => ({
    expectedUpdatedAt: target === 'B' ? updatedAtB : updatedAtA, buildRunId: 'tenant-probe-run', items: [{ itemId: B.workOrderItem, quantity: 1 }],
  }),
  'PATCH /api/v1/work-orders/{id}/transition': (target) => ({ expectedUpdatedAt: target === 'B' ? updatedAtB : updatedAtA, to: 'cancelled' }),
};

/** An id of the same shape as a B id that no shop has (X9 → Q7, 99… → 77…, 90… → 70…). */
const nowhere = (id: string) => id.replace('X9', 'Q7').replace('x9', 'q7').replace(/(?<=^|-)99/, '77').replace(/^90/, '70');

const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name]!));

async function send(op: DocumentOperation, url: string, target: 'A' | 'B', key = keyA) {
  const body = op.method === 'GET' ? undefined : BODIES[op.id]?.(target);
  return t.request({ method: op.method as 'GET', url, key, ...(body !== undefined ? { payload: body as object, headers: { 'content-type': 'application/json' } } : {}) });
}

describe('tenant matrix over every REST route (shop A\'s key, shop B\'s ids)', () => {
  it('every route of the document has shop-B values and, for writes, a body (a new route cannot be forgotten)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(27);
    for (const op of operations) {
      expect(() => pathValuesB(op)).not.toThrow();
      expect(() => queryB(op)).not.toThrow();
      if (op.method !== 'GET') expect(Object.keys(BODIES), `${op.id} needs a body in BODIES`).toContain(op.id);
    }
  });

  it('a B id in the path is answered exactly as an id that exists in no shop (404 NOT_FOUND, or the same refusal), showing nothing of B; B is unchanged', async () => {
    const before = await shopBState(t, shopB);
    const failures: string[] = [];
    let requests = 0;
    let notFound = 0;
    for (const op of operations) {
      for (const values of pathValuesB(op)) {
        const url = fill(op.path, values) + queryB(op);
        const res = await send(op, url, 'B');
        // The same request for ids of the same shape that no shop has: what "unknown" looks like.
        const nowhereValues = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, nowhere(v)]));
        const reference = await send(op, fill(op.path, nowhereValues) + queryB(op), 'B');
        requests += 2;
        const leak = leaksShopB(res.body.replaceAll(url, '').replace(/"(detail|field|message|id)":"[^"]*"/g, ''), shopB);
        if (leak) failures.push(`${op.method} ${url} → ${res.statusCode} shows B (${leak}): ${res.body.slice(0, 300)}`);
        const ids = /[\w-]*(?:X9|x9|Q7|q7)[\w-]*|\b(?:99|77|90|70)\d+\b|BOM-(?:99|77)\d+/g;
        const same = (r: typeof res) => `${r.statusCode} ${r.json()?.code ?? ''} ${String(r.json()?.detail ?? '').replace(ids, '<id>')}`;
        const got = same(res);
        if (got !== same(reference)) failures.push(`${op.method} ${url} → ${got}, but an id no shop has → ${same(reference)}`);
        if (Object.keys(values).length > 0 && res.statusCode === 404) notFound++;
        if (Object.keys(values).length === 0 && ![200, 404].includes(res.statusCode)) failures.push(`${op.method} ${url} → ${res.statusCode}: ${res.body.slice(0, 300)}`);
      }
    }
    console.log(`tenant REST, B ids in the path: ${requests} requests over ${operations.length} operations, ${notFound} answered 404, ${failures.length} failures`);
    expect(failures).toEqual([]);
    expect(await shopBState(t, shopB)).toBe(before);
  });

  it('A\'s objects with B ids in the query and the body: nothing of B shows, writes naming B are refused, B is unchanged', async () => {
    const before = await shopBState(t, shopB);
    const failures: string[] = [];
    for (const op of operations) {
      const url = fill(op.path, pathValuesA(op)) + queryB(op);
      for (const key of op.method === 'GET' ? [keyA, readA] : [keyA]) {
        const res = await send(op, url, 'A', key);
        const leak = leaksShopB(res.body.replaceAll(url, '').replace(/"(detail|field|message|id)":"[^"]*"/g, ''), shopB);
        if (leak) failures.push(`${op.method} ${url} → ${res.statusCode} shows B (${leak}): ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 500) failures.push(`${op.method} ${url} → ${res.statusCode}: ${res.body.slice(0, 300)}`);
        // A write whose every reference is B's must not succeed (it would link A's data to B's).
        if (op.method !== 'GET' && op.id !== 'PATCH /api/v1/raw-materials/{variantId}' && op.id !== 'PATCH /api/v1/work-orders/{id}/transition') {
          const okRows = op.id.endsWith('/inventory') ? res.json()?.data?.okCount ?? 0 : res.statusCode === 200 ? 1 : 0;
          if (okRows > 0) failures.push(`${op.method} ${url} naming B's ids succeeded → ${res.statusCode}: ${res.body.slice(0, 300)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await shopBState(t, shopB)).toBe(before);
  });
});
