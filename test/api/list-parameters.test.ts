import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// List-valued query parameters (docs/api-conventions.md, "Lists in query strings"): repeated and
// comma-separated values mean the same, and mix; a value holding a comma is quoted.
let t: TestApp;
let key: string;
const shop = uniqueShopId('lists');

beforeAll(async () => {
  t = await createTestApp();
  const json = workOrderShop(shop, [
    workOrder('wo_a', 'draft', { tags: ['market', 'a,b'] }),
    workOrder('wo_b', 'ready', { tags: ['fair'] }),
    workOrder('wo_c', 'in_progress', { tags: ['gift'] }),
    workOrder('wo_d', 'completed', { tags: ['a', 'b'] }),
  ]);
  // A vendor whose name holds a comma (the resin).
  json.materials[2].vendor = 'Acme, Inc.';
  await t.load(toDataset(json));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

/** The answer without what differs from one call to the next (request id, generation time). */
async function answer(url: string): Promise<unknown> {
  const res = await t.request({ method: 'GET', url, key });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return JSON.parse(res.body.replace(/"generatedAt":"[^"]*"/g, '"generatedAt":"…"')).data;
}

const workOrderIds = async (query: string) => ((await answer(`/api/v1/work-orders${query}`)) as { rows: { workOrderId: string }[] }).rows.map((r) => r.workOrderId).sort();
const vendors = async (query: string) => ((await answer(`/api/v1/raw-materials${query}`)) as { items: { vendor: string }[] }).items.map((m) => m.vendor).sort();

/** [parameter and route, path, parameter, values]. */
const lists: [string, string, string, string[]][] = [
  ['locationIds of the inventory read', '/api/v1/raw-materials/44001/inventory', 'locationIds', ['102', '103']],
  ['locationIds of the residual read', '/api/v1/raw-materials/44001/residual', 'locationIds', ['101', '102']],
  ['locationIds of the pre-assembled read', '/api/v1/raw-materials/44001/preassembled', 'locationIds', ['101', '102']],
  ['locationIds of the commitments read', '/api/v1/raw-materials/44001/commitments', 'locationIds', ['101', '102']],
  ['locationIds of the shelf allocation', '/api/v1/raw-materials/44001/shelf-allocation', 'locationIds', ['101', '102']],
  ['locationIds of the work-order allocation', '/api/v1/raw-materials/44001/work-order-allocation', 'locationIds', ['101', '102']],
  ['locationIds of an assembly bill\'s pre-assembled read', '/api/v1/assembly-bills/ASM-1/preassembled', 'locationIds', ['101', '102']],
  ['locationIds of buildable', '/api/v1/bills-of-materials/BOM-1001/buildable', 'locationIds', ['101', '102']],
  ['vendorFilter of the raw-materials list', '/api/v1/raw-materials', 'vendorFilter', ['WaxCo', 'WickWorks']],
  ['status of the work-order list', '/api/v1/work-orders', 'status', ['draft', 'ready']],
  ['tags of the work-order list', '/api/v1/work-orders', 'tags', ['market', 'fair']],
  ['ids of the breakdown batch', '/api/v1/order-bom-breakdown', 'ids', ['5001', '9999']],
];

describe('every list parameter takes repeated and comma-separated values alike', () => {
  it.each(lists)('%s: `a,b` answers exactly what `a&…=b` answers', async (_label, path, name, values) => {
    const repeated = await answer(`${path}?${values.map((v) => `${name}=${v}`).join('&')}`);
    expect(await answer(`${path}?${name}=${values.join(',')}`)).toEqual(repeated);
  });

  it('the two forms mix: `status=draft,ready&status=in_progress` is the three statuses', async () => {
    expect(await workOrderIds('?status=draft,ready&status=in_progress')).toEqual(['wo_a', 'wo_b', 'wo_c']);
    expect(await workOrderIds('?status=draft&status=ready,in_progress')).toEqual(['wo_a', 'wo_b', 'wo_c']);
  });

  it('`locationIds=101,102` scopes the read like `locationIds=101&locationIds=102` (it was 400 "must match the pattern")', async () => {
    const scoped = (await answer('/api/v1/raw-materials/44001/inventory?locationIds=102,103')) as { totalAvailable: number; levels: unknown[] };
    expect(scoped).toMatchObject({ totalAvailable: 3, levels: [{ locationId: '102' }] });
  });

  it('vendorFilter=WaxCo,WickWorks is two vendors, not one named "WaxCo,WickWorks"', async () => {
    expect(await vendors('?vendorFilter=WaxCo,WickWorks')).toEqual(['WaxCo', 'WickWorks']);
  });

  it('tags=market&tags=fair (repeated) filters like tags=market,fair', async () => {
    expect(await workOrderIds('?tags=market&tags=fair')).toEqual(['wo_a', 'wo_b']);
  });

  it('spaces around a value are dropped (`status=draft, ready`)', async () => {
    expect(await workOrderIds('?status=draft,%20ready')).toEqual(['wo_a', 'wo_b']);
  });
});

describe('a value that holds a comma is quoted', () => {
  it('vendorFilter="Acme, Inc." matches that vendor; unquoted it is two vendors that match nothing', async () => {
    expect(await vendors(`?vendorFilter=${encodeURIComponent('"Acme, Inc."')}`)).toEqual(['Acme, Inc.']);
    expect(await vendors(`?vendorFilter=${encodeURIComponent('"Acme, Inc.",WaxCo')}`)).toEqual(['Acme, Inc.', 'WaxCo']);
    expect(await vendors(`?vendorFilter=${encodeURIComponent('Acme, Inc.')}`)).toEqual([]);
  });

  it('tags="a,b" is the one tag a,b; tags=a,b is the tags a and b', async () => {
    expect(await workOrderIds(`?tags=${encodeURIComponent('"a,b"')}`)).toEqual(['wo_a']);
    expect(await workOrderIds('?tags=a,b')).toEqual(['wo_d']);
  });

  it.each([
    ['a quote left open', '"Acme, Inc.', /double quote that is not closed/],
    ['text after a closing quote', '"Acme" Inc', /text after a closing double quote/],
  ])('%s is 400 naming the parameter', async (_label, value, message) => {
    const res = await t.request({ method: 'GET', url: `/api/v1/raw-materials?vendorFilter=${encodeURIComponent(value)}`, key });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'vendorFilter', message: expect.stringMatching(message) }] });
  });
});

describe('empty values are ignored', () => {
  it('`status=` is no status filter, `status=draft,` is `status=draft`', async () => {
    expect(await workOrderIds('?status=')).toEqual(await workOrderIds(''));
    expect(await workOrderIds('?status=draft,')).toEqual(['wo_a']);
  });

  it('`locationIds=` and `locationIds=,` mean every location', async () => {
    const all = await answer('/api/v1/raw-materials/44001/inventory');
    expect(await answer('/api/v1/raw-materials/44001/inventory?locationIds=')).toEqual(all);
    expect(await answer('/api/v1/raw-materials/44001/inventory?locationIds=,')).toEqual(all);
  });

  it('`ids=` and `ids=,` are 400: the batch needs at least one id', async () => {
    for (const query of ['ids=', 'ids=,']) {
      const res = await t.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?${query}`, key });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'ids', message: 'must not be empty' }]);
    }
  });
});

describe('a list\'s maximum counts the values after splitting', () => {
  it.each([
    ['locationIds', '/api/v1/raw-materials/44001/inventory', 100, (i: number) => String(101 + i)],
    ['tags', '/api/v1/work-orders', 50, (i: number) => `t${i}`],
    ['status', '/api/v1/work-orders', 100, () => 'draft'],
  ] as const)('%s: %s comma-separated values pass, one more is 400 naming the parameter', async (name, path, max, value) => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => value(i)).join(',');
    expect((await t.request({ method: 'GET', url: `${path}?${name}=${values(max)}`, key })).statusCode).toBe(200);
    const res = await t.request({ method: 'GET', url: `${path}?${name}=${values(max + 1)}`, key });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: name, message: `must have at most ${max} items` }]);
  });
});

describe('the OpenAPI document describes both forms', () => {
  const listParameters = () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { parameters?: any[] }>> };
    return Object.entries(doc.paths).flatMap(([path, operations]) => Object.values(operations).flatMap((o) =>
      (o.parameters ?? []).filter((p) => p.in === 'query' && p.schema.anyOf?.some((m: any) => m.type === 'array')).map((p) => ({ path, ...p }))));
  };

  // Issue 30: a list parameter is one value or an array of them (anyOf), so generated clients accept
  // `status: 'draft'` (what a client generated before the parameters became arrays sends) and `['draft', 'ready']`.
  it('the list parameters are exactly locationIds, vendorFilter, status, tags and ids, each an exploded form of one value or an array, saying commas work', () => {
    const found = listParameters();
    expect([...new Set(found.map((p) => p.name))].sort()).toEqual(['ids', 'locationIds', 'status', 'tags', 'vendorFilter']);
    for (const p of found) {
      expect(p, `${p.path} ${p.name}`).toMatchObject({ style: 'form', explode: true });
      expect(p.description, `${p.path} ${p.name}`).toMatch(/separate values with commas/);
      const [one, many] = p.schema.anyOf;
      expect(one.type, `${p.path} ${p.name}`).toBe('string');
      expect(many, `${p.path} ${p.name}`).toMatchObject({ type: 'array', items: one });
      expect(many.maxItems, `${p.path} ${p.name}`).toBeGreaterThan(0);
      expect(one.maxLength, `${p.path} ${p.name}`).toBeGreaterThan(0);
    }
  });

  it.each([
    ['locationIds', ['101', '102'], ['101,102'], ['gid://shopify/Location/101']],
    ['status', ['draft', 'ready'], ['draft,ready'], ['draft,bogus']],
    ['vendorFilter', ['WaxCo', 'WickWorks'], ['WaxCo,WickWorks'], []],
    ['ids', ['5001', '5002'], ['5001,5002'], []],
  ] as const)('%s: the document\'s schema accepts the repeated and the comma-separated form alike', (name, repeated, joined, invalid) => {
    const parameter = listParameters().find((p) => p.name === name)!;
    const valid = new Ajv2020({ strict: false }).compile(parameter.schema);
    expect(valid([...repeated]), JSON.stringify(valid.errors)).toBe(true);
    expect(valid([...joined]), JSON.stringify(valid.errors)).toBe(true);
    expect(valid(repeated[0]), JSON.stringify(valid.errors)).toBe(true);
    expect(valid(joined[0]), JSON.stringify(valid.errors)).toBe(true);
    for (const value of invalid) {
      expect(valid([value])).toBe(false);
      expect(valid(value)).toBe(false);
    }
  });
});
