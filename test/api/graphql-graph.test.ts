import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

type Json = Record<string, any>;

let t: TestApp;
let key: string;
let otherKey: string;
let bomKey: string;
const shop = uniqueShopId('graph');
const bomShop = uniqueShopId('graph-bom');
const otherShop = uniqueShopId('graph-other');

const resinItem = (quantity: number) => [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity, completedQuantity: 0 }];

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [
    workOrder('wo_run', 'in_progress'),
    workOrder('wo_resin', 'in_progress', { items: resinItem(5), defaultConsumptionLocationId: '102' }),
    workOrder('wo_draft', 'draft', { items: resinItem(2), tags: ['gift'] }),
  ])));
  // The other shop has a material with the same id (VMAT-VAR-0001) and no history.
  await t.load(toDataset(datasetJson(otherShop)));
  await t.load(bomShopDataset(bomShop));
  bomKey = await t.createKey(bomShop, ['read']);
  key = await t.createKey(shop, ['read', 'write']);
  otherKey = await t.createKey(otherShop, ['read', 'write']);

  // History: three inventory updates of the wick, one of the resin, then a build run taking wicks and resin.
  for (const updates of [[{ locationId: '101', delta: '1.5' }], [{ locationId: '101', absolute: '10' }, { locationId: '102', delta: '4' }], [{ locationId: '101', delta: '-20' }]]) {
    await ok(`mutation ($u: [RawMaterialInventoryUpdateInput!]!) { adjustRawMaterialInventory(variantId: "VMAT-VAR-0001", updates: $u) { rawMaterialInventoryBatch { okCount } userErrors { code message } } }`, { u: updates });
  }
  await ok(`mutation { adjustRawMaterialInventory(variantId: "VMAT-VAR-0002", updates: [{ locationId: "101", delta: "1" }]) { rawMaterialInventoryBatch { okCount } userErrors { code message } } }`);
  await ok(`mutation ($t: DateTime!) { startBuildRun(workOrderId: "wo_resin", expectedUpdatedAt: $t, buildRunId: "run-1", items: [{ itemId: "woi_1", quantity: "5" }]) { buildRun { status } userErrors { code message } } }`, { t: T0 });
});
afterAll(() => t.close());

const gql = (query: string, variables: Json = {}, as = key) => t.graphql(as, query, variables);

async function ok(query: string, variables: Json = {}, as = key): Promise<Json> {
  const { body } = await gql(query, variables, as);
  expect(body.errors).toBeUndefined();
  // A mutation's failure is in its payload's userErrors.
  for (const value of Object.values(body.data ?? {})) expect((value as Json | null)?.userErrors ?? []).toEqual([]);
  return body.data;
}

/** The recorded history of a material, newest first, as stored (the oracle of the reads). */
async function stored(shopId: string, variantId: string): Promise<Json[]> {
  return t.orm.em.fork().execute<Json[]>(
    `select id, location_id, trim_scale(before)::text as before, trim_scale(after)::text as after, trim_scale(delta)::text as delta,
            trim_scale(requested_delta)::text as requested_delta, source, work_order_id, build_run_id
       from inventory_adjustments where shop_id = ? and variant_id = ? and stock = 'material' order by created_at desc, id desc`, [shopId, variantId]);
}

const ADJUSTMENT = 'adjustmentId locationId before after delta requestedDelta source workOrderId buildRunId requestId createdAt';

describe('RawMaterial.adjustments: the inventory history REST records and cannot read back', () => {
  it('lists every recorded change of the material, newest first, with the figures the inventory update and the build run recorded', async () => {
    const d = await ok(`{ rawMaterial(variantId: "VMAT-VAR-0002") { adjustments { totalCount edges { node { ${ADJUSTMENT} } } } } }`);
    const nodes = d.rawMaterial.adjustments.edges.map((e: Json) => e.node);
    expect(nodes.map((n: Json) => n.adjustmentId)).toEqual((await stored(shop, 'VMAT-VAR-0002')).map((r) => r.id));
    // Newest: the run took 5 × 0.4 = 2 of the resin at 102; before it, the update added 1 at 101 (10 → 11).
    expect(nodes[0]).toMatchObject({ locationId: '102', before: '10', after: '8', delta: '-2', source: 'build_run', workOrderId: 'wo_resin', buildRunId: 'run-1' });
    expect(nodes.at(-1)).toMatchObject({ locationId: '101', before: '10', after: '11', delta: '1', requestedDelta: '1', source: 'api', workOrderId: null, buildRunId: null });
    expect(nodes.at(-1).requestId).toEqual(expect.any(String));
    expect(d.rawMaterial.adjustments.totalCount).toBe(nodes.length);
  });

  it('a clamped update records what was asked (requestedDelta) beside what was applied (delta)', async () => {
    const d = await ok(`{ rawMaterial(variantId: "VMAT-VAR-0001") { adjustments(first: 1) { edges { node { locationId before after delta requestedDelta source } } } } }`);
    expect(d.rawMaterial.adjustments.edges[0].node).toEqual({ locationId: '101', before: '10', after: '0', delta: '-10', requestedDelta: '-20', source: 'api' });
  });

  it('pages through the history by cursor, forward and backward, each change once and in order', async () => {
    const expected = (await stored(shop, 'VMAT-VAR-0001')).map((r) => r.id);
    expect(expected.length).toBe(4);
    const query = `query ($first: Int, $after: String, $last: Int, $before: String) { rawMaterial(variantId: "VMAT-VAR-0001") {
      adjustments(first: $first, after: $after, last: $last, before: $before) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { node { adjustmentId } } } } }`;
    const forward: string[] = [];
    let after: string | null = null;
    for (;;) {
      const a: Json = (await ok(query, { first: 1, after })).rawMaterial.adjustments;
      forward.push(...a.edges.map((e: Json) => e.node.adjustmentId));
      expect(a.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(a.totalCount).toBe(4);
      if (!a.pageInfo.hasNextPage) break;
      after = a.pageInfo.endCursor;
    }
    expect(forward).toEqual(expected);
    const lastTwo = (await ok(query, { last: 3 })).rawMaterial.adjustments;
    expect(lastTwo.edges.map((e: Json) => e.node.adjustmentId)).toEqual(expected.slice(1));
    expect(lastTwo.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = (await ok(query, { last: 5, before: lastTwo.pageInfo.startCursor })).rawMaterial.adjustments;
    expect(before.edges.map((e: Json) => e.node.adjustmentId)).toEqual(expected.slice(0, 1));
  });

  it('another shop\'s key reads its own material of the same id: none of this shop\'s history', async () => {
    const d = await ok(`{ rawMaterial(variantId: "VMAT-VAR-0001") { adjustments { totalCount edges { node { adjustmentId } } } } }`, {}, otherKey);
    expect(d.rawMaterial.adjustments).toEqual({ totalCount: 0, edges: [] });
  });

  it('a page size out of range is INVALID_INPUT naming the argument', async () => {
    for (const [args, message] of [['first: 0', 'first: must be between 1 and 1000'], ['last: 1001', 'last: must be between 1 and 1000'], ['after: "x"', 'after: is not a cursor']]) {
      const { body } = await gql(`{ rawMaterial(variantId: "VMAT-VAR-0001") { adjustments(${args}) { totalCount } } }`);
      expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
      expect(body.errors[0].message).toContain(message);
    }
  });

  it('the histories of a whole page of materials cost one statement: the count does not grow with the page size', async () => {
    const query = `query ($first: Int) { rawMaterialConnection(first: $first) { edges { node { variantId adjustments(first: 2) { totalCount edges { node { adjustmentId delta } } } } } } }`;
    const one = await gql(query, { first: 1 });
    const all = await gql(query, { first: 50 });
    expect(all.body.errors).toBeUndefined();
    const histories = all.body.data.rawMaterialConnection.edges.map((e: Json) => [e.node.variantId, e.node.adjustments.totalCount]);
    expect(Object.fromEntries(histories)).toMatchObject({ 'VMAT-VAR-0001': 4, 'VMAT-VAR-0002': 2 });
    expect(histories.length).toBeGreaterThan(2);
    expect(all.statements).toBe(one.statements);
    const without = await gql(`query ($first: Int) { rawMaterialConnection(first: $first) { edges { node { variantId } } } }`, { first: 50 });
    expect(all.statements - without.statements).toBe(1);
  });
});

describe('Bom.buildable', () => {
  const buildable = 'bomId variantId hasSellableSplit globalFallback totals { maxBuildable sellable } perLocation { locationId maxBuildable sellable limitingComponents { nodeId maxUnitsByThisComponent } }';

  for (const [label, shopOf, keyOf, count] of [
    ['the work-order shop (a shelf-only assembly, a rule at 102)', () => shop, () => key, 3],
    ['the BOM shop (rules swapping materials, a gift set with only pre-assembled boxes, a BOM without variant)', () => bomShop, () => bomKey, 3],
  ] as const) {
    it(`gives each BOM of a page the figures bomBuildable gives it alone, in every location scope: ${label}`, async () => {
      expect(shopOf()).toBeTruthy();
      for (const scope of [null, ['101'], ['102', '103'], ['999']]) {
        const d = await ok(`query ($s: [ID!]) { bomConnection(first: 10) { edges { node { bomId buildable(locationIds: $s) { ${buildable} } } } } }`, { s: scope }, keyOf());
        expect(d.bomConnection.edges.length).toBe(count);
        for (const e of d.bomConnection.edges) {
          const one = await ok(`query ($b: String!, $s: [String!]) { bomBuildable(bomId: $b, locationIds: $s) { ${buildable} } }`, { b: e.node.bomId, s: scope }, keyOf());
          expect(e.node.buildable).toEqual(one.bomBuildable);
        }
      }
    });
  }

  it('a page of BOMs costs the statements of one BOM: the count does not grow with the page size', async () => {
    const query = `query ($n: Int) { bomConnection(first: $n) { edges { node { bomId buildable(locationIds: ["101"]) { totals { maxBuildable } perLocation { limitingComponents { name } } } } } } }`;
    const one = await gql(query, { n: 1 }, bomKey);
    const all = await gql(query, { n: 10 }, bomKey);
    expect(all.body.data.bomConnection.edges.length).toBe(3);
    expect(all.statements).toBe(one.statements);
  });

  it('a location id that is not a bare number is INVALID_INPUT on locationIds', async () => {
    const { body } = await gql(`{ bomConnection(first: 2) { edges { node { buildable(locationIds: ["gid://shopify/Location/101"]) { bomId } } } } }`);
    expect(body.errors[0].extensions.code).toBe('INVALID_INPUT');
    expect(body.errors[0].message).toContain('locationIds');
  });

  it('the same BOM asked twice in one operation is computed once (its statements are not repeated)', async () => {
    const once = await gql(`{ bom(bomId: "BOM-1001") { buildable { totals { maxBuildable } } } }`);
    const twice = await gql(`{ a: bom(bomId: "BOM-1001") { buildable { totals { maxBuildable } } } b: bom(bomId: "BOM-1001") { buildable { totals { maxBuildable } } } }`);
    expect(twice.body.data.a).toEqual(once.body.data.bom);
    const overhead = (await gql('{ __typename }')).statements;
    const bomRead = (await gql(`{ bom(bomId: "BOM-1001") { bomId } }`)).statements - overhead;
    const buildableOnce = once.statements - overhead - bomRead;
    expect(buildableOnce).toBeGreaterThan(0);
    expect(twice.statements - overhead - 2 * bomRead).toBe(buildableOnce);
  });
});

describe('WorkOrderRow.workOrder: from the work-order connection to the whole work order', () => {
  const whole = 'workOrderId status items { itemId ownerId quantity builtQuantity remainingQuantity } materials { variantId locationId required picked } buildRuns { buildRunId status picks { itemId quantity } } availableTransitions { to } warnings { code }';

  it('each row leads to the same work order workOrder(workOrderId) reads, with its items, plan and runs', async () => {
    const d = await ok(`{ workOrderConnection(sortBy: name) { totalCount edges { node { workOrderId workOrder { ${whole} } } } } }`);
    expect(d.workOrderConnection.totalCount).toBe(3);
    for (const e of d.workOrderConnection.edges) {
      const one = await ok(`query ($id: ID!) { workOrder(workOrderId: $id) { ${whole} } }`, { id: e.node.workOrderId });
      expect(e.node.workOrder).toEqual(one.workOrder);
    }
    const resin = d.workOrderConnection.edges.find((e: Json) => e.node.workOrderId === 'wo_resin').node.workOrder;
    expect(resin.buildRuns).toEqual([{ buildRunId: 'run-1', status: 'started', picks: [{ itemId: 'VMAT-VAR-0002', quantity: '2' }] }]);
  });

  it('the whole work orders of a page cost the statements of one: a page of 1 or of 6 alike work orders, the same count', async () => {
    const alike = (n: number) => Array.from({ length: n }, (_, i) =>
      workOrder(`wo_${i}`, 'in_progress', { items: resinItem(i + 1), defaultConsumptionLocationId: '102' }));
    const small = uniqueShopId('graph-wo-1');
    const large = uniqueShopId('graph-wo-6');
    await t.load(toDataset(workOrderShop(small, alike(1))));
    await t.load(toDataset(workOrderShop(large, alike(6))));
    const query = `{ workOrderConnection(sortBy: name) { edges { node { workOrder { ${whole} } } } } }`;
    const one = await gql(query, {}, await t.createKey(small, ['read']));
    const six = await gql(query, {}, await t.createKey(large, ['read']));
    expect(one.body.errors).toBeUndefined();
    expect(six.body.data.workOrderConnection.edges).toHaveLength(6);
    expect(six.body.data.workOrderConnection.edges.map((e: Json) => e.node.workOrder.items[0].quantity)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(six.statements).toBe(one.statements);
    expect(one.statements).toBeGreaterThan(5); // the header, the parts (one statement) and the plan's reads are really counted
  });

  it('filters of the connection apply before the rows are followed (tags: gift → only wo_draft)', async () => {
    const d = await ok(`{ workOrderConnection(tags: ["gift"]) { edges { node { workOrder { workOrderId status } } } } }`);
    expect(d.workOrderConnection.edges.map((e: Json) => e.node.workOrder)).toEqual([{ workOrderId: 'wo_draft', status: 'draft' }]);
  });
});
