import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule (issue 18, item 5): the graph links what a dashboard walks. Materials lead to the bills that
// use them (`MaterialUsage.bom` / `.assemblyBill`), a BOM to the work orders that build it
// (`Bom.workOrders`, a cursor connection), a work order to its runs, and a work-order item back to
// what it builds — all in ONE request whose SQL statement count does not grow with the number of
// materials, BOMs or work orders.

type Json = Record<string, any>;

let t: TestApp;
const T0 = '2026-11-02T10:00:00.000Z';

/**
 * A shop of `n` chains: material VMAT-VAR-W<i> is used by BOM-90<i> (its recipe line) and by ASM-W-<i> (an
 * assembly bill); BOM-90<i> is built by two work orders, wo_w_<i>_a (in progress, one completed run
 * that picked the material) and wo_w_<i>_b (a draft).
 */
function walkShop(shopId: string, n: number): Json {
  const ids = Array.from({ length: n }, (_, i) => String(i).padStart(2, '0'));
  const workOrder = (i: string, suffix: string, status: string, runs: Json[]) => ({
    workOrderId: `wo_w_${i}_${suffix}`, name: `Chain ${i} ${suffix}`, status, priority: 'normal', assigneeId: null, sourceType: 'bom',
    productionLocationId: '101', createdAt: '2026-11-01T09:00:00.000Z', updatedAt: suffix === 'a' ? T0 : '2026-11-01T10:00:00.000Z',
    items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: `BOM-90${i}`, quantity: 2, completedQuantity: runs.length ? 1 : 0 }],
    buildRuns: runs,
  });
  return datasetJson(shopId, {
    materials: ids.map((i) => ({
      variantId: `VMAT-VAR-W${i}`, productId: `VMAT-PROD-W${i}`, inventoryItemId: `VMAT-INV-W${i}`, productName: `Material ${i}`, variantName: null,
      sku: null, vendor: 'WalkCo', unit: 'pcs', unitCost: 1, unitPrice: 0, levels: [{ locationId: '101', available: 100 }],
    })),
    assemblyBills: ids.map((i) => ({
      assemblyId: `ASM-W-${i}`, name: `Assembly ${i}`, rawMaterialReferences: [{ nodeId: `VMAT-VAR-W${i}`, quantity: 3 }], subAssemblyReferences: [], costFactorReferences: [],
    })),
    boms: ids.map((i) => ({
      bomId: `BOM-90${i}`, name: `Product ${i}`, status: 'active', variantId: null,
      rawMaterialReferences: [{ nodeId: `VMAT-VAR-W${i}`, quantity: 2 }], subAssemblyReferences: [], costFactorReferences: [],
    })),
    workOrders: ids.flatMap((i) => [
      workOrder(i, 'a', 'in_progress', [{
        buildRunId: `run-${i}`, status: 'completed', runType: 'production', startedAt: '2026-11-02T08:00:00.000Z', completedAt: '2026-11-02T09:00:00.000Z',
        items: [{ itemId: 'woi_1', quantity: 1 }], picks: [{ variantId: `VMAT-VAR-W${i}`, locationId: '101', quantity: 2 }],
      }]),
      workOrder(i, 'b', 'draft', []),
    ]),
  });
}

// A dashboard's walk, within the default complexity limit: 20 materials, the BOMs using each, 5
// work orders per BOM, each with its runs and its items back to their BOMs.
const WALK = `{
  rawMaterialConnection(vendorFilter: ["WalkCo"], first: 20) {
    totalCount
    nodes {
      variantId
      connections {
        subAssemblies { ownerId assemblyBill { assemblyId name } }
        boms {
          ownerId quantity
          bom {
            bomId name
            workOrders(first: 5, sortBy: name) {
              totalCount
              nodes {
                workOrderId status
                workOrder {
                  items { ownerId bom { bomId } }
                  buildRuns { buildRunId status }
                }
              }
            }
          }
        }
      }
    }
  }
}`;

const small = uniqueShopId('walk-2');
const large = uniqueShopId('walk-20');
let smallKey: string;
let largeKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(walkShop(small, 2)));
  await t.load(toDataset(walkShop(large, 20)));
  smallKey = await t.createKey(small, ['read']);
  largeKey = await t.createKey(large, ['read']);
});
afterAll(() => t.close());

async function walk(key: string): Promise<{ data: Json; statements: number }> {
  const { status, body, statements } = await t.graphql(key, WALK);
  expect(body.errors).toBeUndefined();
  expect(status).toBe(200);
  return { data: body.data, statements };
}

describe('materials → BOMs → work orders → build runs in one /graphql request', () => {
  it('each material leads to the bills that use it, each BOM to the work orders that build it, each work order to its runs and back to its BOM', async () => {
    const { data } = await walk(smallKey);
    expect(data.rawMaterialConnection.totalCount).toBe(2);
    const [first] = data.rawMaterialConnection.nodes;
    expect(first.variantId).toBe('VMAT-VAR-W00');
    expect(first.connections.subAssemblies).toEqual([{ ownerId: 'ASM-W-00', assemblyBill: { assemblyId: 'ASM-W-00', name: 'Assembly 00' } }]);
    expect(first.connections.boms).toHaveLength(1);
    const usage = first.connections.boms[0];
    expect(usage).toMatchObject({ ownerId: 'BOM-9000', quantity: '2', bom: { bomId: 'BOM-9000', name: 'Product 00' } });
    const orders = usage.bom.workOrders;
    expect(orders.totalCount).toBe(2);
    expect(orders.nodes.map((w: Json) => [w.workOrderId, w.status])).toEqual([['wo_w_00_a', 'in_progress'], ['wo_w_00_b', 'draft']]);
    const [running, draft] = orders.nodes.map((w: Json) => w.workOrder);
    expect(running.items).toEqual([{ ownerId: 'BOM-9000', bom: { bomId: 'BOM-9000' } }]);
    expect(running.buildRuns).toEqual([{ buildRunId: 'run-00', status: 'completed' }]);
    expect(draft.buildRuns).toEqual([]);
  });

  it('the walk costs the same SQL statements for 2 chains as for 20 (materials, uses, BOMs, work-order pages, whole work orders, runs, links)', async () => {
    const two = await walk(smallKey);
    const twenty = await walk(largeKey);
    expect(twenty.data.rawMaterialConnection.totalCount).toBe(20);
    const chains = twenty.data.rawMaterialConnection.nodes.map((m: Json) => {
      const bom = m.connections.boms[0].bom;
      return `${m.variantId}>${bom.bomId}>${bom.workOrders.nodes.map((w: Json) => `${w.workOrderId}:${w.workOrder.buildRuns.length}`).join(',')}`;
    });
    expect(chains).toEqual(Array.from({ length: 20 }, (_, n) => {
      const i = String(n).padStart(2, '0');
      return `VMAT-VAR-W${i}>BOM-90${i}>wo_w_${i}_a:1,wo_w_${i}_b:0`;
    }));
    console.info(`materials → BOMs → work orders → runs: ${two.statements} statements for 2 chains, ${twenty.statements} for 20`);
    expect(twenty.statements).toBe(two.statements);
  });
});

describe('Bom.workOrders', () => {
  const key = () => largeKey;
  const page = async (args: string) => (await t.graphql(key(), `{ bom(bomId: "BOM-9003") { workOrders(${args}) {
      totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { workOrderId status } } } } }`));

  it('lists only the work orders with an item that builds the BOM, with the filters of workOrderConnection, and pages by cursor', async () => {
    const all = await page('sortBy: name');
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data.bom.workOrders.edges.map((e: Json) => e.node.workOrderId)).toEqual(['wo_w_03_a', 'wo_w_03_b']);
    const drafts = await page('status: [draft]');
    expect(drafts.body.data.bom.workOrders).toMatchObject({ totalCount: 1, edges: [{ node: { workOrderId: 'wo_w_03_b', status: 'draft' } }] });
    const first = await page('sortBy: name, first: 1');
    expect(first.body.data.bom.workOrders).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const cursor = first.body.data.bom.workOrders.pageInfo.endCursor;
    const second = await page(`sortBy: name, first: 1, after: "${cursor}"`);
    expect(second.body.data.bom.workOrders).toMatchObject({
      totalCount: 2, pageInfo: { hasNextPage: false, hasPreviousPage: true }, edges: [{ node: { workOrderId: 'wo_w_03_b' } }],
    });
  });

  it('is the same list as workOrderConnection(bomId:)', async () => {
    const { body } = await t.graphql(key(), `{ workOrderConnection(bomId: "BOM-9003", sortBy: name) { totalCount nodes { workOrderId } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.workOrderConnection).toEqual({ totalCount: 2, nodes: [{ workOrderId: 'wo_w_03_a' }, { workOrderId: 'wo_w_03_b' }] });
  });

  it('bad page arguments are INVALID_INPUT naming the argument, before any read', async () => {
    const tooMany = await page('first: 101');
    expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'first', message: 'must be between 1 and 100' }] });
    const foreign = await page(`after: "${Buffer.from(JSON.stringify(['workOrders:updatedAt:desc', 'x', 'y'])).toString('base64url')}"`);
    expect(foreign.body.errors[0].extensions.code).toBe('INVALID_INPUT');
    expect(foreign.body.errors[0].message).toMatch(/^after: belongs to another sort order or list/);
  });
});
