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
    // Made for order 5001, assigned to Ana: a completed run of 4, reviewed (1 failed) and a rework item on that run.
    workOrder('wo_done', 'in_progress', {
      sourceOrderIds: ['5001'],
      items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 4, completedQuantity: 4 }],
      buildRuns: [{ buildRunId: 'run-d', status: 'completed', runType: 'production', startedAt: '2026-11-02T08:00:00.000Z', completedAt: '2026-11-02T09:00:00.000Z',
        items: [{ itemId: 'woi_1', quantity: 4 }], picks: [{ variantId: '44001', locationId: '101', quantity: 1.68 }] }],
      qcReviews: [{ reviewId: 'qc_1', buildRunId: 'run-d', decision: 'rejected', items: [{ itemId: 'woi_1', approvedQuantity: 3, failedQuantity: 1 }], createdAt: '2026-11-02T09:30:00.000Z' }],
      reworkItems: [{ reworkItemId: 'rw_1', description: 'Re-pour', quantity: 1, status: 'open', buildRunId: 'run-d', createdAt: '2026-11-02T09:40:00.000Z' }],
    }),
  ], {
    preassembled: [{ itemId: 'ASM-SHELF', locationId: '101', quantity: 2 }],
    reservations: [{ kind: 'order', itemId: '44001', locationId: '101', orderId: '5001', quantity: 1 }],
  });
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

describe('a work order\'s parts lead to its items and runs; its header to its assignee and orders', () => {
  it('a review and a rework item lead to their run; run items, review items, contributions, item plans and warnings to their item', async () => {
    const d = await ok(`{ workOrder(workOrderId: "wo_done") {
      assignee { assigneeId displayName } sourceOrderIds sourceOrders { orderId name }
      buildRuns { buildRunId items { itemId item { itemId ownerId } } }
      qcReviews { buildRunId buildRun { buildRunId status } items { itemId item { itemId quantity } } }
      reworkItems { buildRunId buildRun { buildRunId } }
      contributions { itemId item { itemId } }
      itemConsumption { itemId item { itemId } }
    } }`);
    const wo = d.workOrder;
    expect(wo.assignee).toEqual({ assigneeId: 'asg_ana', displayName: 'Ana' });
    expect(wo.sourceOrderIds).toEqual(['5001']);
    expect(wo.sourceOrders).toEqual([{ orderId: '5001', name: '#1001' }]);
    expect(wo.buildRuns).toEqual([{ buildRunId: 'run-d', items: [{ itemId: 'woi_1', item: { itemId: 'woi_1', ownerId: 'BOM-1001' } }] }]);
    expect(wo.qcReviews).toEqual([{ buildRunId: 'run-d', buildRun: { buildRunId: 'run-d', status: 'completed' }, items: [{ itemId: 'woi_1', item: { itemId: 'woi_1', quantity: '4' } }] }]);
    expect(wo.reworkItems).toEqual([{ buildRunId: 'run-d', buildRun: { buildRunId: 'run-d' } }]);
    expect(wo.contributions.length).toBeGreaterThan(0);
    for (const c of wo.contributions) expect(c.item).toEqual({ itemId: c.itemId });
    for (const c of wo.itemConsumption) expect(c.item).toEqual({ itemId: c.itemId });
  });

  it('the run history and a material plan read alone lead to items too; an unassigned work order has no assignee', async () => {
    const d = await ok(`{
      workOrderBuildRuns(workOrderId: "wo_done") { buildRuns { items { item { ownerId } } } }
      workOrderMaterialPlan(workOrderId: "wo_done") { contributions { itemId item { itemId } } }
      workOrderConnection(q: "wo_kit") { nodes { assignee { displayName } sourceOrders { orderId } } }
    }`);
    expect(d.workOrderBuildRuns.buildRuns[0].items).toEqual([{ item: { ownerId: 'BOM-1001' } }]);
    for (const c of d.workOrderMaterialPlan.contributions) expect(c.item).toEqual({ itemId: c.itemId });
    expect(d.workOrderConnection.nodes).toEqual([{ assignee: { displayName: 'Ana' }, sourceOrders: [] }]);
  });
});

describe('catalogue, stock and order figures lead to their objects', () => {
  it('a rule\'s line change leads to the material used and the one it replaces; versions and rules to their bill', async () => {
    const d = await ok(`{
      bomLocationRules(bomId: "BOM-1001") { bom { bomId } locations { locationId rules { lineChanges { change lineType nodeId replacesNodeId
        material { variantId } assemblyBill { assemblyId } replacesMaterial { variantId } replacesAssemblyBill { assemblyId } } } } }
      billVersions(ownerType: sub_assembly, ownerId: "ASM-1") { bom { bomId } assemblyBill { assemblyId } }
    }`);
    expect(d.bomLocationRules.bom).toEqual({ bomId: 'BOM-1001' });
    const at102 = d.bomLocationRules.locations.find((l: Json) => l.locationId === '102');
    expect(at102.rules[0].lineChanges).toEqual([{
      change: 'replace', lineType: 'raw', nodeId: 'VMAT-VAR-0002', replacesNodeId: '44001',
      material: { variantId: 'VMAT-VAR-0002' }, assemblyBill: null, replacesMaterial: { variantId: '44001' }, replacesAssemblyBill: null,
    }]);
    expect(d.billVersions).toEqual({ bom: null, assemblyBill: { assemblyId: 'ASM-1' } });
  });

  it('stock levels lead to their locations, a shelf to its bill, an order reservation to its order, an order\'s breakdown to its BOMs and materials', async () => {
    const d = await ok(`{
      rawMaterialInventory(variantId: "VMAT-VAR-0002") { levels { locationId location { name } } }
      assemblyBillPreassembled(assemblyId: "ASM-SHELF") { itemType material { variantId } assemblyBill { assemblyId } levels { location { name } } }
      rawMaterialCommitments(variantId: "44001") { levels { holders { holderType holderId order { name } bom { bomId } } } }
      order(id: "5001") { breakdown { boms { bomId bom { name } materials { variantId material { variantId } } } totalMaterials { variantId material { productName } } } }
    }`);
    expect(d.rawMaterialInventory.levels).toEqual([{ locationId: '101', location: { name: 'Main Workshop' } }, { locationId: '102', location: { name: 'Downtown Store' } }]);
    expect(d.assemblyBillPreassembled).toEqual({ itemType: 'assemblyBill', material: null, assemblyBill: { assemblyId: 'ASM-SHELF' }, levels: [{ location: { name: 'Main Workshop' } }] });
    expect(d.rawMaterialCommitments.levels.flatMap((l: Json) => l.holders)).toEqual([{ holderType: 'order', holderId: '5001', order: { name: '#1001' }, bom: null }]);
    const breakdown = d.order.breakdown;
    expect(breakdown.boms.map((b: Json) => b.bom)).toEqual([{ name: 'Large candle' }]);
    for (const m of breakdown.boms[0].materials) expect(m.material).toEqual({ variantId: m.variantId });
    expect(breakdown.totalMaterials.map((m: Json) => m.material.productName).sort()).toEqual(['Cotton wick', 'Soy wax']);
  });

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
