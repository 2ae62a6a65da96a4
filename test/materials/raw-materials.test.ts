import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { manyMaterials, materialShop } from '../helpers/material-fixtures.ts';

let t: TestApp;
let key: string;
let writeKey: string;
const shop = uniqueShopId('rm');
const other = uniqueShopId('rm-other');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(materialShop(shop)));
  // A second shop with colliding ids: nothing of it may leak.
  await t.load(toDataset(datasetJson(other)));
  key = await t.createKey(shop, ['read']);
  writeKey = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const list = (query: string) => t.get(`/api/v1/raw-materials${query}`, key);
const ids = (res: { body: any }) => res.body.data.items.map((m: any) => m.variantId);

describe('GET /raw-materials', () => {
  it('lists both origins sorted by productName with usage counts, vendors and pagination fields', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(['VMAT-VAR-0003', 'VMAT-VAR-0001', '44002', '44001', 'VMAT-VAR-0002']);
    expect(res.body.data).toMatchObject({ totalCount: 5, page: 1, pageSize: 50, totalPages: 1, availableVendors: ['Acme', 'WaxCo', 'WickWorks'] });
    const wax = res.body.data.items.find((m: any) => m.variantId === '44001');
    expect(wax).toEqual({
      variantId: '44001', productId: '8001', inventoryItemId: '46001', productName: 'Soy wax', variantName: '1 kg bag', sku: 'WAX-1KG',
      vendor: 'WaxCo', unit: 'kg', unitCost: 6.2, unitPrice: 12.5, inventoryQuantity: 43, isVirtual: false, specifications: 'Food-grade',
      imageUrl: null, isNonEssentialMaterial: false, weightValue: 1, weightUnitId: 'kg', productType: 'Wax', productCategory: 'Raw',
      bomUsageCount: 2, subAssemblyUsageCount: 0,
    });
    const wick = res.body.data.items.find((m: any) => m.variantId === 'VMAT-VAR-0001');
    expect(wick).toMatchObject({ isVirtual: true, inventoryQuantity: 0.3, bomUsageCount: 0, subAssemblyUsageCount: 1, unitCost: 0.05 });
  });

  it('search is a case-insensitive substring over productName, variantName, sku and vendor', async () => {
    expect(ids(await list('?search=WAX'))).toEqual(['44002', '44001']);
    expect(ids(await list('?search=15%20cm'))).toEqual(['VMAT-VAR-0001']);
    expect(ids(await list('?search=wick-1'))).toEqual(['VMAT-VAR-0001']);
    expect(ids(await list('?search=acme'))).toEqual(['VMAT-VAR-0003']);
    expect(ids(await list('?search=%25'))).toEqual([]);
  });

  it('search matches exactly what ilike on each of the four fields matches: never across two fields, case folded beyond ASCII, %, _ and \\ literal', async () => {
    const odd = uniqueShopId('rm-search');
    const v = (n: string, productName: string, variantName: string | null, sku: string | null, vendor: string | null) => ({
      variantId: `VMAT-VAR-${n}`, productId: `VMAT-PROD-${n}`, inventoryItemId: `VMAT-INV-${n}`, productName, variantName, sku, vendor,
      unit: 'pcs', unitCost: 1, unitPrice: 0, levels: [],
    });
    await t.load(toDataset(datasetJson(odd, {
      materials: [
        v('0001', 'Éclat WAX', 'Zed', 'A_1', null), v('0002', 'wax', null, null, 'Zed & Co'), v('0003', '100% soy', 'back\\slash', 'S-1', 'ÜBER'),
        v('0004', 'Plain', 'x', 'y', 'z'),
      ],
      boms: [], assemblyBills: [],
    })));
    const oddKey = await t.createKey(odd, ['read']);
    const searches = ['waxzed', 'waxz', 'x\u001fy', 'éclat', 'ÉCLAT', 'über', 'Wax', '%', '_', 'a_1', 'A%1', '\\', 'k\\s', 'zed', 'ed & c', 'y', 'PLAIN'];
    for (const search of searches) {
      const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const oracle = await t.orm.em.fork().execute<{ variant_id: string }[]>(
        `select variant_id from materials where shop_id = ? and (product_name ilike ? or variant_name ilike ? or sku ilike ? or vendor ilike ?) order by variant_id`,
        [odd, pattern, pattern, pattern, pattern],
      );
      const res = await t.get(`/api/v1/raw-materials?search=${encodeURIComponent(search)}`, oddKey);
      expect(res.status, search).toBe(200);
      expect([...ids(res)].sort(), search).toEqual(oracle.map((r) => r.variant_id));
      expect(res.body.data.totalCount, search).toBe(oracle.length);
    }
  });

  it('usageFilter used/unused splits on being named by a BOM or assembly bill', async () => {
    expect(ids(await list('?usageFilter=used'))).toEqual(['VMAT-VAR-0001', '44002', '44001']);
    expect(ids(await list('?usageFilter=unused'))).toEqual(['VMAT-VAR-0003', 'VMAT-VAR-0002']);
  });

  it('originFilter and repeatable vendorFilter (OR) narrow the list; availableVendors ignores filters', async () => {
    expect(ids(await list('?originFilter=platform'))).toEqual(['44002', '44001']);
    expect(ids(await list('?originFilter=virtual'))).toEqual(['VMAT-VAR-0003', 'VMAT-VAR-0001', 'VMAT-VAR-0002']);
    const res = await list('?vendorFilter=Acme&vendorFilter=WickWorks');
    expect(ids(res)).toEqual(['VMAT-VAR-0003', 'VMAT-VAR-0001', 'VMAT-VAR-0002']);
    expect(res.body.data.availableVendors).toEqual(['Acme', 'WaxCo', 'WickWorks']);
    expect(res.body.data.totalCount).toBe(3);
  });

  it('sorts by variantName and inventoryQuantity in both directions, ties on variantId; unknown sortBy is ignored', async () => {
    expect(ids(await list('?sortBy=inventoryQuantity'))).toEqual(['VMAT-VAR-0002', 'VMAT-VAR-0003', 'VMAT-VAR-0001', '44002', '44001']);
    expect(ids(await list('?sortBy=inventoryQuantity&sortOrder=desc'))).toEqual(['44001', '44002', 'VMAT-VAR-0001', 'VMAT-VAR-0002', 'VMAT-VAR-0003']);
    expect(ids(await list('?sortBy=variantName'))).toEqual(['44001', 'VMAT-VAR-0001', '44002', 'VMAT-VAR-0002', 'VMAT-VAR-0003']);
    expect(ids(await list('?sortBy=bogus&sortOrder=desc'))).toEqual(['VMAT-VAR-0002', '44001', '44002', 'VMAT-VAR-0001', 'VMAT-VAR-0003']);
  });

  it('GraphQL: sortBy is the MaterialSort enum, sorting as REST does; a string or an unknown value is refused by validation', async () => {
    const body = (await t.graphql(key, `{ rawMaterials(sortBy: inventoryQuantity, sortOrder: desc) { items { variantId } }
      rawMaterialConnection(sortBy: inventoryQuantity, sortOrder: desc, first: 5) { edges { node { variantId } } } }`)).body;
    const rest = ids(await list('?sortBy=inventoryQuantity&sortOrder=desc'));
    expect(body.data.rawMaterials.items.map((m: any) => m.variantId)).toEqual(rest);
    expect(body.data.rawMaterialConnection.edges.map((e: any) => e.node.variantId)).toEqual(rest);
    for (const query of ['{ rawMaterials(sortBy: "variantName") { totalCount } }', '{ rawMaterialConnection(sortBy: bogus) { totalCount } }']) {
      const refused = (await t.graphql(key, query)).body;
      expect(refused.data ?? null, query).toBeNull();
      expect(refused.errors[0].message, query).toMatch(/MaterialSort/);
    }
  });

  it('pages: totalPages = ceil(total / pageSize); a page past the end is 200 with no rows', async () => {
    const p2 = await list('?pageSize=2&page=2');
    expect(ids(p2)).toEqual(['44002', '44001']);
    expect(p2.body.data).toMatchObject({ totalCount: 5, page: 2, pageSize: 2, totalPages: 3 });
    const past = await list('?pageSize=2&page=9');
    expect(past.status).toBe(200);
    expect(past.body.data).toMatchObject({ items: [], totalCount: 5, page: 9, totalPages: 3 });
  });

  it.each([
    ['pageSize=0', 'pageSize'], ['pageSize=1001', 'pageSize'], ['page=0', 'page'], ['page=abc', 'page'],
    ['usageFilter=sometimes', 'usageFilter'], ['originFilter=shopify', 'originFilter'], ['sortOrder=up', 'sortOrder'],
    ['statusFilter=active', 'statusFilter'], ['locationIds=101', 'locationIds'],
  ])('%s is 400 naming %s', async (query, field) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  });

  it('costs one SQL round trip for 1 row or 300 rows', async () => {
    const big = uniqueShopId('rm-big');
    await t.load(toDataset(datasetJson(big, { materials: manyMaterials(300), boms: [], assemblyBills: [] })));
    const bigKey = await t.createKey(big, ['read']);
    const one = await t.get('/api/v1/raw-materials?pageSize=1', bigKey);
    const many = await t.get('/api/v1/raw-materials?pageSize=1000', bigKey);
    expect(one.body.data.items).toHaveLength(1);
    expect(many.body.data.items).toHaveLength(300);
    expect(many.body.data.totalCount).toBe(300);
    expect(one.headers['x-query-count']).toBe('1');
    expect(many.headers['x-query-count']).toBe('1');
  });
});

describe('GET /raw-materials/{variantId}', () => {
  it('returns the material without usage counts; another shop\'s or an unknown id is 404', async () => {
    const res = await t.get('/api/v1/raw-materials/VMAT-VAR-0001', key);
    expect(res.status).toBe(200);
    expect(res.body.data.material).toMatchObject({ variantId: 'VMAT-VAR-0001', productName: 'Cotton wick', inventoryQuantity: 0.3, isVirtual: true });
    expect(res.body.data.material.bomUsageCount).toBeUndefined();
    expect(res.body.data.connections).toBeUndefined();
    expect((await t.get('/api/v1/raw-materials/VMAT-VAR-9999', key)).status).toBe(404);
    const otherKey = await t.createKey(other, ['read']);
    expect((await t.get('/api/v1/raw-materials/VMAT-VAR-0003', otherKey)).status).toBe(404);
  });

  it('includeConnections=true names each bill, the quantity it uses and its location context', async () => {
    const res = await t.get('/api/v1/raw-materials/44001?includeConnections=true', key);
    expect(res.body.data.connections).toEqual({
      boms: [
        { bomId: 'BOM-1001', name: 'Large candle', status: 'active', quantity: 0.4, wastePercentage: 5, source: 'recipe', action: null, locationId: null, locationName: null },
        { bomId: 'BOM-1001', name: 'Large candle', status: 'active', quantity: 0, wastePercentage: 0, source: 'locationRule', action: 'replace', locationId: '102', locationName: 'Downtown Store' },
        { bomId: 'BOM-1002', name: 'Small candle', status: 'inactive', quantity: 0.2, wastePercentage: 0, source: 'recipe', action: null, locationId: null, locationName: null },
      ],
      subAssemblies: [],
    });
    const rule = await t.get('/api/v1/raw-materials/44002?includeConnections=true', key);
    expect(rule.body.data.connections.boms).toContainEqual(
      { bomId: 'BOM-1001', name: 'Large candle', status: 'active', quantity: 0.5, wastePercentage: 5, source: 'locationRule', action: 'replace', locationId: '102', locationName: 'Downtown Store' });
  });

  it('includeConnections takes only true or false', async () => {
    expect((await t.get('/api/v1/raw-materials/44001?includeConnections=yes', key)).status).toBe(400);
    expect((await t.get('/api/v1/raw-materials/44001?includeConnections=false', key)).body.data.connections).toBeUndefined();
  });
});

describe('PATCH /raw-materials/{variantId}', () => {
  const patch = (id: string, payload: unknown, k = writeKey) => t.patch(`/api/v1/raw-materials/${id}`, k, payload);

  it('changes only the fields sent, ignores unknown fields and returns the full row', async () => {
    const res = await patch('VMAT-VAR-0002', { vendor: 'New Vendor', unitCost: 0.1, specifications: null, bogus: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.material).toMatchObject({ variantId: 'VMAT-VAR-0002', vendor: 'New Vendor', unitCost: 0.1, specifications: null, productName: 'Wick sticker' });
    // begin, lock and read, update, cost roll-up (lock, refresh), read back, its material.updated event (sequence, event and
    // deliveries in one statement, just before the commit: docs/events.md), commit.
    expect(res.headers['x-query-count']).toBe('8');
    const again = await t.get('/api/v1/raw-materials/VMAT-VAR-0002', key);
    expect(again.body.data.material.vendor).toBe('New Vendor');
  });

  it('a platform-linked id is 400 INVALID_INPUT (read-only in API v1) and nothing changes', async () => {
    const res = await patch('44001', { productName: 'Hacked' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
    expect(res.json().detail).toMatch(/read-only in API v1/);
    expect((await t.get('/api/v1/raw-materials/44001', key)).body.data.material.productName).toBe('Soy wax');
  });

  it('an unknown numeric id is 404 NOT_FOUND, not "platform-linked": only a platform-linked material that exists is read-only', async () => {
    const unknown = await patch('99999991', { productName: 'Ghost' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('NOT_FOUND');
    expect(unknown.json().detail).not.toMatch(/platform-linked/);
    expect((await patch('44001', { productName: 'Hacked' })).json().code).toBe('INVALID_INPUT');
  });

  it('a wrong type is 400 naming the field; an unknown material is 404; a read key is 403', async () => {
    const bad = await patch('VMAT-VAR-0002', { unitCost: 'cheap' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('unitCost');
    const flag = await patch('VMAT-VAR-0002', { isNonEssentialMaterial: 'maybe' });
    expect(flag.json().errors[0].field).toBe('isNonEssentialMaterial');
    const tooPrecise = await patch('VMAT-VAR-0002', { unitPrice: 0.1234567 });
    expect(tooPrecise.json().errors[0].field).toBe('unitPrice');
    expect((await patch('VMAT-VAR-9999', { vendor: 'x' })).statusCode).toBe(404);
    expect((await patch('VMAT-VAR-0002', { vendor: 'x' }, key)).statusCode).toBe(403);
  });

  it('inventoryQuantity sets the single level of a material stocked at one location, recorded in the history', async () => {
    const res = await patch('VMAT-VAR-0003', { inventoryQuantity: 7.25 });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.material.inventoryQuantity).toBe(7.25);
    const [row] = await t.orm.em.fork().execute('select before, after, delta, source from inventory_adjustments where shop_id = ? and variant_id = ?', [shop, 'VMAT-VAR-0003']);
    expect(row).toMatchObject({ source: 'api' });
    const multi = await patch('VMAT-VAR-0001', { inventoryQuantity: 3 });
    expect(multi.statusCode).toBe(400);
    expect(multi.json().errors[0].field).toBe('inventoryQuantity');
  });

  it('is one transaction: when setting the level fails after the fields were written, no field, cost or level change is left', async () => {
    const gone = uniqueShopId('rm-atomic');
    await t.load(toDataset(datasetJson(gone)));
    const goneRead = await t.createKey(gone, ['read']);
    const goneWrite = await t.createKey(gone, ['read', 'write']);
    // The wick's only level is at 101, which the platform no longer lists: setting it is 404.
    await t.orm.em.fork().execute('delete from platform_locations where shop_id = ? and location_id = ?', [gone, '101']);
    const bomBefore = (await t.get('/api/v1/bills-of-materials/BOM-1001', goneRead)).body.data;
    const res = await patch('VMAT-VAR-0001', { productName: 'Half written', vendor: 'Nobody', unitCost: 9, inventoryQuantity: 7 }, goneWrite);
    expect(res.statusCode).toBe(404);
    expect(res.json().missing).toEqual([{ kind: 'location', id: '101' }]);
    const after = (await t.get('/api/v1/raw-materials/VMAT-VAR-0001', goneRead)).body.data.material;
    expect(after).toMatchObject({ productName: 'Cotton wick', vendor: 'WickWorks', unitCost: 0.05, inventoryQuantity: 500.5 });
    expect((await t.get('/api/v1/bills-of-materials/BOM-1001', goneRead)).body.data.totalCost).toBe(bomBefore.totalCost);
    const history = await t.orm.em.fork().execute('select 1 from inventory_adjustments where shop_id = ?', [gone]);
    expect(history).toHaveLength(0);
  });
});
