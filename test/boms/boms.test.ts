import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('boms');
const twin = uniqueShopId('boms-twin');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(bomShopDataset(shop));
  await t.load(toDataset(datasetJson(twin)));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

const list = async (q = '') => t.get(`/api/v1/bills-of-materials${q}`, key);

describe('GET /bills-of-materials', () => {
  it('rows carry costs (raw × (1+waste), sub × unit cost, cost factors), finished-good fields and line counts', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((b: any) => b.bomId)).toEqual(['BOM-1002', 'BOM-1001', 'BOM-1003']);
    expect(res.body.data.items[1]).toEqual({
      bomId: 'BOM-1001', name: 'Large candle', status: 'active', variantId: '44100', productId: '944100', sku: 'CANDLE-L', price: 30,
      totalRawMaterialCost: 2.604, totalSubAssemblyCost: 0.66, directCostFactorCost: 5, totalCost: 8.264, preAssembledQuantity: 7,
      rawMaterialCount: 1, subAssemblyCount: 2, costFactorCount: 1,
    });
    expect(res.body.data.items[0]).toMatchObject({ totalSubAssemblyCost: 2.82, totalCost: 5.424, preAssembledQuantity: 0 });
    expect(res.body.data.items[2]).toMatchObject({ variantId: null, productId: null, sku: null, price: null, totalCost: 0.11 });
  });

  it('stats cover every BOM whatever the filters; avgCost rounds half-up to 6 places', async () => {
    const stats = { total: 3, active: 2, inactive: 1, totalValue: 13.798, avgCost: 4.599333, platformLinked: 2 };
    expect((await list()).body.data.stats).toEqual(stats);
    expect((await list('?statusFilter=inactive&search=zzz')).body.data.stats).toEqual(stats);
  });

  it('search is a case-insensitive substring over name, sku and bomId; statusFilter narrows', async () => {
    expect((await list('?search=candle')).body.data.items.map((b: any) => b.bomId)).toEqual(['BOM-1001']);
    expect((await list('?search=gift-SET')).body.data.items.map((b: any) => b.bomId)).toEqual(['BOM-1002']);
    expect((await list('?search=m-100')).body.data.totalCount).toBe(3);
    expect((await list('?statusFilter=inactive')).body.data.items.map((b: any) => b.bomId)).toEqual(['BOM-1003']);
    expect((await list('?statusFilter=active')).body.data.totalCount).toBe(2);
  });

  it('sorts by totalCost, price (nulls last both ways), bomId and status; unknown sortBy falls back to name', async () => {
    const ids = async (q: string) => (await list(q)).body.data.items.map((b: any) => b.bomId);
    expect(await ids('?sortBy=totalCost')).toEqual(['BOM-1003', 'BOM-1002', 'BOM-1001']);
    expect(await ids('?sortBy=totalCost&sortOrder=desc')).toEqual(['BOM-1001', 'BOM-1002', 'BOM-1003']);
    expect(await ids('?sortBy=price&sortOrder=desc')).toEqual(['BOM-1002', 'BOM-1001', 'BOM-1003']);
    expect(await ids('?sortBy=price')).toEqual(['BOM-1001', 'BOM-1002', 'BOM-1003']);
    expect(await ids('?sortBy=status&sortOrder=desc')).toEqual(['BOM-1003', 'BOM-1001', 'BOM-1002']);
    expect(await ids('?sortBy=nonsense')).toEqual(['BOM-1002', 'BOM-1001', 'BOM-1003']);
    expect(await ids('?sortBy=name&sortOrder=desc')).toEqual(['BOM-1003', 'BOM-1001', 'BOM-1002']);
  });

  it('pages: totalPages = ceil(total / pageSize); a page past the end is 200 with no rows', async () => {
    const p2 = (await list('?pageSize=2&page=2')).body.data;
    expect([p2.items.map((b: any) => b.bomId), p2.totalCount, p2.page, p2.pageSize, p2.totalPages]).toEqual([['BOM-1003'], 3, 2, 2, 2]);
    const past = await list('?pageSize=2&page=9');
    expect([past.status, past.body.data.items]).toEqual([200, []]);
  });

  it('refuses out-of-range paging, unknown statusFilter/sortOrder and unknown parameters with 400', async () => {
    for (const q of ['?page=0', '?pageSize=0', '?pageSize=1001', '?statusFilter=archived', '?sortOrder=up', '?usageFilter=used']) {
      const res = await list(q);
      expect([q, res.status, res.body.code]).toEqual([q, 400, 'INVALID_INPUT']);
    }
  });

  it('costs the same few SQL round trips whatever the page size', async () => {
    const small = await list('?pageSize=1');
    const large = await list('?pageSize=1000');
    expect(Number(small.headers['x-query-count'])).toBeLessThanOrEqual(5);
    expect(large.headers['x-query-count']).toBe(small.headers['x-query-count']);
  });
});

describe('GET /bills-of-materials/{id}', () => {
  it('returns the BOM with costs and its recipe hydrated to full depth', async () => {
    const res = await t.get('/api/v1/bills-of-materials/BOM-1002', key);
    expect(res.status).toBe(200);
    const b = res.body.data;
    expect([b.bomId, b.name, b.status, b.variantId, b.productId, b.sku, b.price, b.totalCost, b.preAssembledQuantity]).toEqual(['BOM-1002', 'Gift set', 'active', '44200', '944200', 'GIFT-SET', 45, 5.424, 0]);
    expect(b.rawMaterialReferences).toEqual([{ nodeId: '44001', quantity: 0.4, wastePercentage: 5,
      node: { productName: 'Soy wax', variantName: 'Default', sku: 'WAX-1KG', unit: 'kg', unitCost: 6.2, origin: 'platform', isNonEssential: false } }]);
    const box = b.subAssemblyReferences[0];
    expect([box.nodeId, box.quantity, box.node.assemblyName, box.node.unitCost, box.node.onlyConsumePreassembled]).toEqual(['ASM-3', 1, 'Gift box', 1.62, true]);
    expect(box.node.subAssemblyReferences[0]).toMatchObject({ nodeId: 'ASM-1', quantity: 2, node: { assemblyName: 'Assembly ASM-1', unitCost: 0.06, subAssemblyReferences: [] } });
    expect(box.node.subAssemblyReferences[0].node.rawMaterialReferences.map((r: any) => [r.nodeId, r.node.productName, r.node.isNonEssential])).toEqual([
      ['VMAT-VAR-0001', 'Cotton wick', false], ['VMAT-VAR-0003', 'Label', true]]);
    expect(b.subAssemblyReferences[1]).toMatchObject({ nodeId: 'ASM-2', quantity: 2, node: { unitCost: 0.6 } });
  });

  it('cost-factor references carry the factor', async () => {
    const b = (await t.get('/api/v1/bills-of-materials/BOM-1001', key)).body.data;
    expect(b.costFactorReferences).toEqual([{ costFactorId: 'CF-1', quantity: 0.25, node: { name: 'Labour', kind: 'labor', unit: 'hour', unitCost: 20 } }]);
  });

  it('an unknown BOM and another shop\'s BOM are 404 NOT_FOUND', async () => {
    const twinKey = await t.createKey(twin, ['read']);
    expect((await t.get('/api/v1/bills-of-materials/BOM-1002', twinKey)).status).toBe(404);
    const res = await t.get('/api/v1/bills-of-materials/BOM-9999', key);
    expect([res.status, res.body.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('GET /bills-of-materials/{id}/location-rules', () => {
  it('per location: the rules of the tree there, each changed line against the base, and the leaf needs that change', async () => {
    const res = await t.get('/api/v1/bills-of-materials/BOM-1001/location-rules', key);
    expect(res.status).toBe(200);
    const [annex, store, main] = res.body.data.locations;
    expect([annex.locationId, store.locationId, main.locationId]).toEqual(['103', '102', '101']);
    expect(main).toEqual({ locationId: '101', locationName: 'Main Workshop', usesBaseRecipe: true, rules: [], materialChanges: [] });
    expect(store.usesBaseRecipe).toBe(false);
    expect(store.rules).toEqual([
      { ownerType: 'bom', ownerId: 'BOM-1001', name: 'Large candle', lineChanges: [{ change: 'replace', lineType: 'raw', nodeId: '44002', replacesNodeId: '44001',
        quantity: 0.5, wastePercentage: 0, baseQuantity: 0.4, baseWastePercentage: 5 }] },
      { ownerType: 'sub_assembly', ownerId: 'ASM-2', name: 'Assembly ASM-2', lineChanges: [{ change: 'adjust', lineType: 'raw', nodeId: 'VMAT-VAR-0002', replacesNodeId: null,
        quantity: 0.4, wastePercentage: 0, baseQuantity: 0.3, baseWastePercentage: 0 }] },
    ]);
    expect(store.materialChanges).toEqual([
      { variantId: '44001', name: 'Soy wax', baseQuantityPerUnit: 0.42, quantityPerUnit: 0 },
      { variantId: '44002', name: 'Glass jar', baseQuantityPerUnit: 0, quantityPerUnit: 0.5 },
      { variantId: 'VMAT-VAR-0002', name: 'Fragrance oil', baseQuantityPerUnit: 0.3, quantityPerUnit: 0.4 },
    ]);
    expect(annex.rules[0].lineChanges).toEqual([{ change: 'add', lineType: 'sub', nodeId: 'ASM-4', replacesNodeId: null, quantity: 1, wastePercentage: 0, baseQuantity: null, baseWastePercentage: null }]);
    expect(annex.materialChanges).toEqual([{ variantId: 'VMAT-VAR-0003', name: 'Label', baseQuantityPerUnit: 1, quantityPerUnit: 2 }]);
  });

  it('is 404 for an unknown BOM', async () => {
    expect((await t.get('/api/v1/bills-of-materials/BOM-9/location-rules', key)).status).toBe(404);
  });
});

describe('GET /bill-versions/{ownerType}/{ownerId}', () => {
  const versions = (path: string) => t.get(`/api/v1/bill-versions/${path}`, key);

  it('lists ready versions newest first with the frozen change summary, hash, trigger and saver; pending counts the rest', async () => {
    const res = await versions('bom/BOM-1001');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ownerType: 'bom', ownerId: 'BOM-1001', total: 3, limit: 10, offset: 0, hasMore: false, pending: 1 });
    expect(res.body.data.versions[0]).toEqual({ version: 3, state: 'ready', savedAt: '2026-11-03T09:00:00.000Z', savedBy: 'Ana', trigger: 'manual',
      contentHash: 'sha256:3', changes: { recipeFields: 3, materials: 2, locationRules: 0, overrides: 1 } });
    expect(res.body.data.versions.map((v: any) => [v.version, v.savedBy])).toEqual([[3, 'Ana'], [2, null], [1, 'Ana']]);
  });

  it('pages with limit and offset; hasMore = offset + rows < total ready', async () => {
    const first = (await versions('bom/BOM-1001?limit=2')).body.data;
    expect([first.versions.map((v: any) => v.version), first.hasMore]).toEqual([[3, 2], true]);
    const second = (await versions('bom/BOM-1001?limit=2&offset=2')).body.data;
    expect([second.versions.map((v: any) => v.version), second.hasMore]).toEqual([[1], false]);
    expect((await versions('bom/BOM-1001?offset=10')).body.data.versions).toEqual([]);
  });

  it('a known owner without versions is an empty page; an unknown owner is 404; bad ownerType and limit are 400', async () => {
    expect((await versions('sub_assembly/ASM-1')).body.data).toMatchObject({ versions: [], total: 0, hasMore: false, pending: 0 });
    expect((await versions('sub_assembly/ASM-404')).status).toBe(404);
    expect((await versions('bom/ASM-1')).status).toBe(404);
    for (const path of ['assembly/ASM-1', 'bom/BOM-1001?limit=21', 'bom/BOM-1001?limit=0', 'bom/BOM-1001?offset=-1']) {
      expect([path, (await versions(path)).status]).toEqual([path, 400]);
    }
  });
});

describe('GraphQL', () => {
  const gql = async (query: string, variables: Record<string, unknown> = {}) =>
    (await t.graphql(key, query, variables)).body;

  it('bom, assemblyBill and costFactors expose the recipe with exact decimals as strings', async () => {
    const body = await gql(`{ bom(bomId: "BOM-1001") { totalCost assemblyBills { assemblyId unitCost } rawMaterialLines { nodeId quantity node { productName } } }
      assemblyBill(assemblyId: "ASM-3") { name onlyConsumePreassembled unitCost subAssemblyLines { nodeId quantity } }
      costFactors { costFactorId unitCost } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.bom).toEqual({ totalCost: '8.264', assemblyBills: [{ assemblyId: 'ASM-1', unitCost: '0.06' }, { assemblyId: 'ASM-2', unitCost: '0.6' }],
      rawMaterialLines: [{ nodeId: '44001', quantity: '0.4', node: { productName: 'Soy wax' } }] });
    expect(body.data.assemblyBill).toEqual({ name: 'Gift box', onlyConsumePreassembled: true, unitCost: '1.62', subAssemblyLines: [{ nodeId: 'ASM-1', quantity: '2' }] });
    expect(body.data.costFactors).toEqual([{ costFactorId: 'CF-1', unitCost: '20' }]);
  });

  it('boms, bomBuildable, bomLocationRules and billVersions answer the same as REST; unknown ids carry NOT_FOUND', async () => {
    const body = await gql(`{ boms(sortBy: totalCost, pageSize: 1) { items { bomId } totalPages stats { avgCost } }
      bomBuildable(bomId: "BOM-1001", locationIds: ["101"]) { totals { maxBuildable } perLocation { limitingComponents { nodeId maxUnitsByThisComponent } } }
      bomLocationRules(bomId: "BOM-1001") { locations { locationId usesBaseRecipe } }
      billVersions(ownerType: bom, ownerId: "BOM-1001", limit: 1) { versions { version } hasMore pending } }`);
    expect(body.data.boms).toEqual({ items: [{ bomId: 'BOM-1003' }], totalPages: 3, stats: { avgCost: '4.599333' } });
    expect(body.data.bomBuildable.totals.maxBuildable).toBe(10);
    expect(body.data.bomBuildable.perLocation[0].limitingComponents[0]).toEqual({ nodeId: 'VMAT-VAR-0002', maxUnitsByThisComponent: 10 });
    expect(body.data.bomLocationRules.locations.map((l: any) => l.usesBaseRecipe)).toEqual([false, false, true]);
    expect(body.data.billVersions).toEqual({ versions: [{ version: 3 }], hasMore: true, pending: 1 });
    const missing = await gql('{ bom(bomId: "BOM-404") { bomId } }');
    expect(missing.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('sortBy of the BOM lists is the BomSort enum: each value sorts as in REST, anything else is refused by validation', async () => {
    const sorted = await gql('{ boms(sortBy: totalCost, sortOrder: desc) { items { bomId } } bomConnection(sortBy: totalCost, sortOrder: desc, first: 3) { edges { node { bomId } } } }');
    const rest = (await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?sortBy=totalCost&sortOrder=desc', key })).json().data.items.map((b: any) => b.bomId);
    expect(sorted.data.boms.items.map((b: any) => b.bomId)).toEqual(rest);
    expect(sorted.data.bomConnection.edges.map((e: any) => e.node.bomId)).toEqual(rest);
    for (const query of ['{ boms(sortBy: "totalCost") { totalCount } }', '{ bomConnection(sortBy: nonsense) { totalCount } }']) {
      const refused = await gql(query);
      expect(refused.data ?? null, query).toBeNull();
      expect(refused.errors[0].message, query).toMatch(/BomSort/);
    }
  });
});
