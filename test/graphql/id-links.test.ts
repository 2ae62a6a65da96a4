import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Rule (issue 18, item 5): an id field that names an object has a field returning the object, read
// through the request's loaders — nullable, null when the row names another kind of object or none.
// (Materials → bills → work orders, and the statement bound of the walk: graph-walk.test.ts.)

type Json = Record<string, any>;

let t: TestApp;
let key: string;
const shop = uniqueShopId('id-links');

beforeAll(async () => {
  t = await createTestApp();
  // wo_run and wo_run_2 build BOM-1001 × 2 at 101; wo_kit builds BOM-3000 (1 × the shelf-only ASM-ONLY) at 102.
  // BOM-4000 (finished good 44200) is 1 × ASM-SHELF: an assembly without lines, which comes only from its shelf (2 at 101).
  const candles = { items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 2, completedQuantity: 0 }] };
  const json = workOrderShop(shop, [
    workOrder('wo_run', 'in_progress', candles),
    workOrder('wo_run_2', 'draft', candles),
    workOrder('wo_kit', 'draft', { items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-3000', quantity: 1, completedQuantity: 0 }], productionLocationId: '102' }),
  ], { preassembled: [{ itemId: 'ASM-SHELF', locationId: '101', quantity: 2 }] });
  json.assemblyBills.push({ assemblyId: 'ASM-SHELF', name: 'Bought-in insert', rawMaterialReferences: [], subAssemblyReferences: [], costFactorReferences: [] });
  json.platform.variants.push({ ...json.platform.variants[1], variantId: '44200', productId: '8200', inventoryItemId: '46200', productName: 'Insert kit', sku: 'KIT' });
  json.boms.push({ bomId: 'BOM-4000', name: 'Kit', status: 'active', variantId: '44200', rawMaterialReferences: [], subAssemblyReferences: [{ nodeId: 'ASM-SHELF', quantity: 1 }],
    costFactorReferences: [] });
  await t.load(toDataset(json));
  key = await t.createKey(shop, ['read', 'write']);
  const started = await t.request({
    method: 'PATCH', url: '/api/v1/work-orders/wo_run/build-runs', key, headers: { 'content-type': 'application/json' },
    payload: { expectedUpdatedAt: T0, buildRunId: 'run-1', items: [{ itemId: 'woi_1', quantity: 1 }] },
  });
  expect(started.statusCode, started.body).toBe(200);
});
afterAll(() => t.close());

async function ok(query: string): Promise<Json> {
  const { body } = await t.graphql(key, query);
  expect(body.errors).toBeUndefined();
  return body.data;
}

describe('a material\'s uses lead to their bills and locations', () => {
  it('MaterialUsage.bom / .assemblyBill is the bill of the owner\'s kind (the other null); .location is a rule\'s location, null for a base-recipe line', async () => {
    const d = await ok(`{
      wax: rawMaterial(variantId: "44001") { connections { boms { ownerId source bom { bomId name } assemblyBill { assemblyId } location { locationId name } } } }
      wick: rawMaterial(variantId: "VMAT-VAR-0001") { connections { subAssemblies { ownerId bom { bomId } assemblyBill { assemblyId name } } } }
    }`);
    expect(d.wax.connections.boms).toEqual([
      { ownerId: 'BOM-1001', source: 'recipe', bom: { bomId: 'BOM-1001', name: 'Large candle' }, assemblyBill: null, location: null },
      { ownerId: 'BOM-1001', source: 'locationRule', bom: { bomId: 'BOM-1001', name: 'Large candle' }, assemblyBill: null, location: { locationId: '102', name: 'Downtown Store' } },
    ]);
    expect(d.wick.connections.subAssemblies).toEqual([
      { ownerId: 'ASM-1', bom: null, assemblyBill: { assemblyId: 'ASM-1', name: 'Wick assembly' } },
      { ownerId: 'ASM-ONLY', bom: null, assemblyBill: { assemblyId: 'ASM-ONLY', name: 'Shelf-only insert' } },
    ]);
  });
});

describe('a work order leads to what its ids name', () => {
  it('its locations, the BOM each item builds, each plan material and each pick', async () => {
    const d = await ok(`{ workOrder(workOrderId: "wo_run") {
      productionLocation { name } defaultConsumptionLocation { name }
      items { ownerId bom { bomId } assemblyBill { assemblyId } }
      materials { variantId material { productName } locationId location { name } }
      contributions { variantId ownerId material { variantId } bom { bomId } assemblyBill { assemblyId } }
      buildRuns { picks { stock itemId locationId material { variantId } assemblyBill { assemblyId } location { name } } }
    } }`);
    const wo = d.workOrder;
    expect(wo.productionLocation).toEqual({ name: 'Main Workshop' });
    expect(wo.defaultConsumptionLocation).toBeNull();
    expect(wo.items).toEqual([{ ownerId: 'BOM-1001', bom: { bomId: 'BOM-1001' }, assemblyBill: null }]);
    expect(wo.materials.length).toBeGreaterThan(0);
    for (const m of wo.materials) {
      expect(m.material).not.toBeNull();
      expect(m.location?.name ?? null).toBe(m.locationId === null ? null : { 101: 'Main Workshop', 102: 'Downtown Store' }[m.locationId as '101' | '102']);
    }
    expect(wo.materials.map((m: Json) => m.material.productName).sort()).toEqual(['Cotton wick', 'Soy wax']);
    // The wick comes through ASM-1, the wax straight from the BOM: each contribution names its recipe's bill.
    const byMaterial = Object.fromEntries(wo.contributions.map((c: Json) => [c.variantId, c]));
    expect(byMaterial['44001']).toMatchObject({ ownerId: 'BOM-1001', material: { variantId: '44001' }, bom: { bomId: 'BOM-1001' }, assemblyBill: null });
    expect(byMaterial['VMAT-VAR-0001']).toMatchObject({ material: { variantId: 'VMAT-VAR-0001' } });
    const picks = wo.buildRuns[0].picks;
    expect(picks.length).toBeGreaterThan(0);
    for (const p of picks) {
      expect(p.stock).toBe('material');
      expect(p).toMatchObject({ material: { variantId: p.itemId }, assemblyBill: null, location: { name: 'Main Workshop' } });
    }
  });

  it('a pre-assembled shelf in a consumption plan leads to its assembly bill, not a material; a row\'s productionLocation too', async () => {
    const d = await ok(`{
      workOrder(workOrderId: "wo_kit") { consumptionPlan { stock itemId material { variantId } assemblyBill { assemblyId } location { locationId } } }
      workOrderConnection(q: "wo_kit") { nodes { productionLocation { locationId name } } }
    }`);
    const shelf = d.workOrder.consumptionPlan.filter((r: Json) => r.stock === 'preassembled');
    expect(shelf.length).toBeGreaterThan(0);
    for (const r of shelf) expect(r).toMatchObject({ itemId: 'ASM-ONLY', material: null, assemblyBill: { assemblyId: 'ASM-ONLY' }, location: { locationId: '102' } });
    expect(d.workOrderConnection.nodes).toEqual([{ productionLocation: { locationId: '102', name: 'Downtown Store' } }]);
  });
});

describe('stock and buildable figures lead to their objects', () => {
  it('an adjustment leads to its material, location and work order; buildable to its BOM, locations and limiting materials or bills', async () => {
    const d = await ok(`{
      rawMaterial(variantId: "VMAT-VAR-0001") { adjustments(first: 1) { nodes { source material { variantId } location { name } workOrder { workOrderId status } } } }
      bom(bomId: "BOM-1001") { buildable(locationIds: ["101"]) { bom { bomId } perLocation { location { name } limitingComponents { nodeId origin material { variantId } assemblyBill { assemblyId } } } } }
      kit: bom(bomId: "BOM-4000") { buildable(locationIds: ["101"]) { perLocation { limitingComponents { nodeId origin material { variantId } assemblyBill { assemblyId } } } } }
    }`);
    expect(d.rawMaterial.adjustments.nodes).toEqual([{
      source: 'build_run', material: { variantId: 'VMAT-VAR-0001' }, location: { name: 'Main Workshop' }, workOrder: { workOrderId: 'wo_run', status: 'in_progress' },
    }]);
    const buildable = d.bom.buildable;
    expect(buildable.bom).toEqual({ bomId: 'BOM-1001' });
    expect(buildable.perLocation[0].location).toEqual({ name: 'Main Workshop' });
    for (const c of buildable.perLocation[0].limitingComponents) {
      expect(c.origin).not.toBe('preassembled');
      expect(c).toMatchObject({ material: { variantId: c.nodeId }, assemblyBill: null });
    }
    const shelf = d.kit.buildable.perLocation[0].limitingComponents.find((c: Json) => c.origin === 'preassembled');
    expect(shelf).toEqual({ nodeId: 'subassembly:ASM-SHELF', origin: 'preassembled', material: null, assemblyBill: { assemblyId: 'ASM-SHELF' } });
  });

  it('a location rule leads to its bill and location', async () => {
    const d = await ok(`{ bomLocationRules(bomId: "BOM-1001") { locations { locationId location { name } rules { ownerId bom { bomId } assemblyBill { assemblyId } }
      materialChanges { variantId material { variantId } } } } }`);
    const at102 = d.bomLocationRules.locations.find((l: Json) => l.locationId === '102');
    expect(at102.location).toEqual({ name: 'Downtown Store' });
    expect(at102.rules).toEqual([{ ownerId: 'BOM-1001', bom: { bomId: 'BOM-1001' }, assemblyBill: null }]);
    for (const c of at102.materialChanges) expect(c.material).toEqual({ variantId: c.variantId });
  });
});

describe('links cost batches, not reads per row', () => {
  it('every link of a page of work orders (locations, items\' BOMs, plan materials) costs the same statements for one row as for two alike', async () => {
    const query = (first: number) => `{ workOrderConnection(q: "wo_run", first: ${first}, sortBy: name) { nodes { productionLocation { name }
      workOrder { items { bom { bomId } } materials { material { variantId } location { name } } } } } }`;
    const one = await t.graphql(key, query(1));
    const two = await t.graphql(key, query(2));
    expect(one.body.errors).toBeUndefined();
    expect(two.body.data.workOrderConnection.nodes).toHaveLength(2);
    expect(two.statements).toBe(one.statements);
  });
});
