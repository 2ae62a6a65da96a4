import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { graphqlCaller } from '../helpers/graphql-payloads.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';

// Issue 30, item 3: what a work order still holds (docs/work-orders.md, "The material plan").
// remaining = what the units not yet started need (shelves first) + manual lines × (Q − started)/Q;
// picked = what runs took; allocated (the plan's required) = their sum. A production run of q of Q
// units consumes q/Q of every manual line, as picks of the run, reversed with it.
//
// BOM-1001 = 0.4 wax 44001 (+5 % waste) + 1 × ASM-1 (= 1 wick VMAT-VAR-0001); 3 ASM-1 on the shelf at 101.
// wo_ten: 10 units at 101 and a manual line of 5 resin (VMAT-VAR-0002, level 10 at 101).

let t: TestApp;
let key: string;
let smallKey: string;
let bigKey: string;
const shop = uniqueShopId('wo-alloc');
const smallShop = uniqueShopId('wo-alloc-s');
const bigShop = uniqueShopId('wo-alloc-b');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [
    workOrder('wo_ten', 'in_progress', { manualMaterials: [{ variantId: 'VMAT-VAR-0002', quantity: 5, locationId: null, note: 'glaze' }] }),
    workOrder('wo_three', 'in_progress', {
      items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity: 3, completedQuantity: 0 }],
      manualMaterials: [{ variantId: 'VMAT-VAR-0001', quantity: 1, locationId: null, note: null }],
    }),
  ], { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 3 }] })));
  key = await t.createKey(shop, ['read', 'write']);
  // Round trips: one work order against 40 at two locations, each with two items, manual lines, runs (with units and picks) and shelves.
  const many = Array.from({ length: 40 }, (_, i) => workOrder(`wo_${i}`, i % 3 ? 'in_progress' : 'ready', {
    defaultConsumptionLocationId: i % 2 ? '102' : '101',
    items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 5 + i, completedQuantity: 0 },
      { itemId: 'woi_2', ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: 2, completedQuantity: 0 }],
    manualMaterials: [{ variantId: 'VMAT-VAR-0001', quantity: 3, locationId: null, note: null }, { variantId: 'VMAT-VAR-0002', quantity: 1, locationId: '101', note: null }],
    buildRuns: [1, 2].map((n) => ({ buildRunId: `r${n}`, status: n === 2 && i % 4 === 0 ? 'reversed' : 'started', runType: 'production', startedAt: '2026-11-02T10:00:00.000Z', completedAt: null,
      items: [{ itemId: 'woi_1', quantity: 1 }], picks: [{ variantId: 'VMAT-VAR-0001', locationId: '101', quantity: 1 }] })),
  }));
  await t.load(toDataset(workOrderShop(smallShop, [workOrder('wo_one', 'ready', {})], { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 1 }] })));
  await t.load(toDataset(workOrderShop(bigShop, many, { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 4 }, { itemId: 'ASM-1', locationId: '102', quantity: 2 }] })));
  smallKey = await t.createKey(smallShop, ['read']);
  bigKey = await t.createKey(bigShop, ['read']);
});
afterAll(() => t.close());

const tokenOf = async (id: string) => (await t.get(`/api/v1/work-orders/${id}`, key)).body.data.updatedAt as string;
const start = async (id: string, buildRunId: string, quantity: number) =>
  t.request({ method: 'PATCH', url: `/api/v1/work-orders/${id}/build-runs`, key, headers: { 'content-type': 'application/json' },
    payload: { expectedUpdatedAt: await tokenOf(id), buildRunId, items: [{ itemId: 'woi_1', quantity }] } });
const gql = graphqlCaller(() => t, () => key);
const reverse = async (id: string, run: string) => gql(`mutation($id: ID!, $run: ID!, $t: DateTime!) { reverseBuildRun(workOrderId: $id, buildRunId: $run, expectedUpdatedAt: $t) {
  buildRun { status } userErrors { code message } } }`, { id, run, t: await tokenOf(id) });
const plan = async (id: string) => {
  const materials = (await t.get(`/api/v1/work-orders/${id}/material-plan`, key)).body.data.materials as any[];
  return Object.fromEntries(materials.map((m) => [m.variantId, { required: m.required, picked: m.picked, remaining: m.remaining }]));
};
const holder = async (variantId: string, id: string) => {
  const data = (await t.get(`/api/v1/raw-materials/${variantId}/work-order-allocation?locationIds=101`, key)).body.data;
  const h = data.levels[0]?.holders.find((x: any) => x.holderId === id);
  return h ? { picked: h.picked, remaining: h.remaining, allocated: h.allocated } : null;
};
/** The virtual resin's level at 101 and its build-run residual there, from the stock tables. */
const resin = async () => {
  const snap = await stockSnapshot(t.orm, shop);
  return { level: snap['level|VMAT-VAR-0002|101'], residual: snap['residual|buildRun|VMAT-VAR-0002|101'] ?? '0' };
};

describe('work-order allocation without phantoms', () => {
  it('before any run: remaining takes the pre-assembled shelf first (10 units need 10 ASM-1, 3 are on the shelf: 7 wicks), the whole manual line', async () => {
    expect(await plan('wo_ten')).toEqual({
      '44001': { required: 4.2, picked: 0, remaining: 4.2 },
      'VMAT-VAR-0001': { required: 7, picked: 0, remaining: 7 },
      'VMAT-VAR-0002': { required: 5, picked: 0, remaining: 5 },
    });
    expect(await holder('VMAT-VAR-0001', 'wo_ten')).toEqual({ picked: 0, remaining: 7, allocated: 7 });
  });

  it('a run of 4 of 10: it consumes 4/10 of the manual line (2 of 5) as a pick; remaining = the 6 units\' needs + 3 of the line; the allocation read says the same', async () => {
    const before = await resin();
    const res = await start('wo_ten', 'ten-1', 4);
    expect(res.statusCode, res.body).toBe(200);
    const picks = res.json().data.picks.map((p: any) => [p.stock, p.itemId, p.locationId, p.quantity]).sort();
    expect(picks).toEqual([
      ['material', '44001', '101', 1.68], ['material', 'VMAT-VAR-0001', '101', 1], ['material', 'VMAT-VAR-0002', '101', 2], ['preassembled', 'ASM-1', '101', 3],
    ].sort());
    // The shelf is empty now: the 6 units not yet started need 6 wicks; 6 × 0.42 wax; 5 × 6/10 resin.
    expect(await plan('wo_ten')).toEqual({
      '44001': { required: 4.2, picked: 1.68, remaining: 2.52 },
      'VMAT-VAR-0001': { required: 7, picked: 1, remaining: 6 },
      'VMAT-VAR-0002': { required: 5, picked: 2, remaining: 3 },
    });
    expect(await holder('VMAT-VAR-0002', 'wo_ten')).toEqual({ picked: 2, remaining: 3, allocated: 5 });
    expect(await holder('44001', 'wo_ten')).toEqual({ picked: 1.68, remaining: 2.52, allocated: 4.2 });
    expect(Number((await resin()).level)).toBe(Number(before.level) - 2);
  });

  it('reversing the run gives the manual pick back with the others: the plan is as before any run', async () => {
    const before = await resin();
    const body = await reverse('wo_ten', 'ten-1');
    expect(body.data.reverseBuildRun.buildRun).toEqual({ status: 'reversed' });
    const after = await resin();
    expect(Number(after.level)).toBe(Number(before.level) + 2);
    expect(after.residual).toBe(before.residual);
    expect(await plan('wo_ten')).toEqual({
      '44001': { required: 4.2, picked: 0, remaining: 4.2 },
      'VMAT-VAR-0001': { required: 7, picked: 0, remaining: 7 },
      'VMAT-VAR-0002': { required: 5, picked: 0, remaining: 5 },
    });
  });

  it('three runs of 1 of 3 units consume a manual line of 1 exactly once (0.333333 + 0.333334 + 0.333333), leaving 0 remaining and no phantom', async () => {
    const taken: number[] = [];
    for (const id of ['three-1', 'three-2', 'three-3']) {
      const res = await start('wo_three', id, 1);
      expect(res.statusCode, res.body).toBe(200);
      taken.push(res.json().data.picks.find((p: any) => p.itemId === 'VMAT-VAR-0001').quantity);
    }
    expect(taken).toEqual([0.333333, 0.333334, 0.333333]);
    expect(await plan('wo_three')).toEqual({
      'VMAT-VAR-0001': { required: 1, picked: 1, remaining: 0 },
      'VMAT-VAR-0002': { required: 1.2, picked: 1.2, remaining: 0 },
    });
    expect(await holder('VMAT-VAR-0001', 'wo_three')).toEqual({ picked: 1, remaining: 0, allocated: 1 });
  });

  it.each(['VMAT-VAR-0001', 'VMAT-VAR-0002', '44001'])('bounded: the allocation read of %s makes the same SQL statements for 1 work order as for 40 with items, manual lines, runs and shelves at two locations', async (variantId) => {
    const one = await t.get(`/api/v1/raw-materials/${variantId}/work-order-allocation`, smallKey);
    const many = await t.get(`/api/v1/raw-materials/${variantId}/work-order-allocation`, bigKey);
    expect([one.status, many.status]).toEqual([200, 200]);
    expect(many.body.data.levels.length).toBeGreaterThan(0);
    expect(many.headers['x-query-count']).toBe(one.headers['x-query-count']);
  });
});
