import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { liveLevel, stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { graphqlCaller } from '../helpers/graphql-payloads.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('wo-run');
const negShop = uniqueShopId('wo-run-neg');
let negKey: string;

const resinItem = (quantity = 10) => [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity, completedQuantity: 0 }];

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [
    workOrder('wo_carry', 'in_progress', { items: resinItem() }),
    workOrder('wo_carry2', 'in_progress', { items: resinItem(), defaultConsumptionLocationId: '102' }),
    workOrder('wo_shelf', 'in_progress'),
    workOrder('wo_rule', 'in_progress', { defaultConsumptionLocationId: '102' }),
    workOrder('wo_clamp', 'in_progress', { items: resinItem(100) }),
    workOrder('wo_reverse', 'in_progress'),
    workOrder('wo_retry', 'in_progress', { items: resinItem() }),
    workOrder('wo_race', 'in_progress', { items: [{ itemId: 'woi_1', ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: 10, completedQuantity: 0 }] }),
    workOrder('wo_stale', 'in_progress', { items: resinItem() }),
    workOrder('wo_draft', 'draft', { items: resinItem() }),
    workOrder('wo_qc', 'quality_control', {
      items: resinItem(),
      reworkItems: [{ reworkItemId: 'rw-1', description: 'Bubbles', quantity: 1, status: 'open', createdAt: T0 }],
    }),
    workOrder('wo_only', 'in_progress', { items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-3000', quantity: 5, completedQuantity: 0 }] }),
    workOrder('wo_complete', 'in_progress', { items: [
      { itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 4, completedQuantity: 0 },
      { itemId: 'woi_2', ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: 6, completedQuantity: 0 },
    ] }),
  ], { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 3 }, { itemId: 'ASM-ONLY', locationId: '101', quantity: 2 }] })));
  await t.load(toDataset(workOrderShop(negShop, [workOrder('wo_neg', 'in_progress', { items: resinItem(100) })], {
    shop: { id: negShop, name: 'Negative', settings: { allowNegativeInventory: true, materialRequirementsMetafield: false } },
  })));
  key = await t.createKey(shop, ['read', 'write']);
  negKey = await t.createKey(negShop, ['read', 'write']);
});
afterAll(() => t.close());

const tokenOf = async (id: string, k = key) => (await t.get(`/api/v1/work-orders/${id}`, k)).body.data.updatedAt as string;
const start = async (id: string, body: Record<string, unknown>, k = key) =>
  t.request({ method: 'PATCH', url: `/api/v1/work-orders/${id}/build-runs`, key: k, headers: { 'content-type': 'application/json' },
    payload: { expectedUpdatedAt: await tokenOf(id, k), ...body } });
const run = (buildRunId: string, quantity: number, itemId = 'woi_1') => ({ buildRunId, items: [{ itemId, quantity }] });
const gql = graphqlCaller(() => t, () => key);
// GraphQL answers a payload: the run, or null and the user error (returned as `errors` here, as REST would fail).
const runChange = (name: 'completeBuildRun' | 'reverseBuildRun') => async (id: string, buildRunId: string) => {
  const body = await gql(`mutation($id: ID!, $run: ID!, $t: DateTime!) { ${name}(workOrderId: $id, buildRunId: $run, expectedUpdatedAt: $t) {
    buildRun { status workOrderUpdatedAt } userErrors { code message } } }`, { id, run: buildRunId, t: await tokenOf(id) });
  const payload = body.data?.[name];
  return { errors: body.errors ?? (payload?.userErrors.length ? payload.userErrors : undefined), data: { [name]: payload?.buildRun } };
};
const complete = runChange('completeBuildRun');
const reverse = runChange('reverseBuildRun');
const history = (shopId: string, buildRunId: string) => t.orm.em.fork().execute<any[]>(
  `select variant_id, location_id, stock, delta::text, source, work_order_id from inventory_adjustments where shop_id = ? and build_run_id = ? order by variant_id`, [shopId, buildRunId]);

describe('residual carry', () => {
  it('three 0.4 builds deduct 0, 0, 1 and carry 0.2; each pick records the 0.4 consumed', async () => {
    const levels: string[] = [];
    for (const id of ['carry-1', 'carry-2', 'carry-3']) {
      const res = await start('wo_carry', run(id, 1));
      expect(res.statusCode).toBe(200);
      expect(res.json().data.picks).toEqual([{ stock: 'material', itemId: 'VMAT-VAR-0002', locationId: '101', quantity: 0.4, deducted: id === 'carry-3' ? 1 : 0 }]);
      levels.push((await stockSnapshot(t.orm, shop))['level|VMAT-VAR-0002|101']!);
    }
    expect(levels).toEqual(['10', '10', '9']);
    const residual = (await t.get('/api/v1/raw-materials/VMAT-VAR-0002/residual', key)).body.data;
    expect(JSON.stringify(residual)).toContain('0.2');
    expect((await stockSnapshot(t.orm, shop))['residual|buildRun|VMAT-VAR-0002|101']).toBe('0.2');
    expect(await history(shop, 'carry-3')).toEqual([{ variant_id: 'VMAT-VAR-0002', location_id: '101', stock: 'material', delta: '-1.000000', source: 'build_run', work_order_id: 'wo_carry' }]);
    expect(await history(shop, 'carry-1')).toEqual([]);
  });
});

describe('what a run consumes', () => {
  it('pre-assembled shelves before components; platform-linked wax goes to the outbox and live reads include it', async () => {
    const before = await stockSnapshot(t.orm, shop);
    const res = await start('wo_shelf', run('shelf-1', 5));
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    // 5 candles: 3 wick assemblies from the shelf, 2 built from wicks; wax 0.42 × 5 = 2.1 (2 deducted, 0.1 carried).
    expect(data.picks).toEqual([
      { stock: 'material', itemId: '44001', locationId: '101', quantity: 2.1, deducted: 2 },
      { stock: 'material', itemId: 'VMAT-VAR-0001', locationId: '101', quantity: 2, deducted: 2 },
      { stock: 'preassembled', itemId: 'ASM-1', locationId: '101', quantity: 3, deducted: 3 },
    ]);
    expect(data).toMatchObject({ buildRunId: 'shelf-1', status: 'started', runType: 'production', warnings: [] });
    const after = await stockSnapshot(t.orm, shop);
    expect(after['shelf|ASM-1|101']).toBeUndefined();
    expect(Number(after['level|VMAT-VAR-0001|101'])).toBe(Number(before['level|VMAT-VAR-0001|101']) - 2);
    expect(after['platform|44001|101']).toBe(before['platform|44001|101']);
    expect(liveLevel(after, '44001', '101')).toBe(liveLevel(before, '44001', '101') - 2);
    const inventory = (await t.get('/api/v1/raw-materials/44001/inventory?locationIds=101', key)).body.data;
    expect(inventory.totalAvailable).toBe(liveLevel(after, '44001', '101'));
  });

  it('location rules apply at the consumption location (102: resin 0.5 instead of wax), and a short level clamps at zero with a warning', async () => {
    const res = await start('wo_rule', run('rule-1', 2));
    const data = res.json().data;
    expect(data.picks).toEqual([
      { stock: 'material', itemId: 'VMAT-VAR-0001', locationId: '102', quantity: 2, deducted: 0 },
      { stock: 'material', itemId: 'VMAT-VAR-0002', locationId: '102', quantity: 1, deducted: 1 },
    ]);
    expect(data.warnings).toEqual([{
      code: 'NEGATIVE_INVENTORY', message: expect.stringContaining('VMAT-VAR-0001'), remedy: expect.any(String),
      variantId: 'VMAT-VAR-0001', locationId: '102', quantity: 2,
    }]);
    expect((await stockSnapshot(t.orm, shop))['level|VMAT-VAR-0001|102']).toBeUndefined();
  });

  it('clamping: without negative inventory a level stops at zero and the shortfall is named', async () => {
    const level = Number((await stockSnapshot(t.orm, shop))['level|VMAT-VAR-0002|101']);
    const res = await start('wo_clamp', run('clamp-1', 50)); // needs 20
    const data = res.json().data;
    expect(data.picks[0]).toMatchObject({ itemId: 'VMAT-VAR-0002', quantity: 20, deducted: level });
    expect(data.warnings[0]).toMatchObject({ code: 'NEGATIVE_INVENTORY', variantId: 'VMAT-VAR-0002', locationId: '101', quantity: 20 - level });
    expect((await stockSnapshot(t.orm, shop))['level|VMAT-VAR-0002|101']).toBeUndefined();
  });

  it('negative inventory allowed: the level goes below zero and the response still warns', async () => {
    const res = await start('wo_neg', run('neg-1', 50), negKey);
    const data = res.json().data;
    expect(data.picks[0]).toMatchObject({ itemId: 'VMAT-VAR-0002', quantity: 20, deducted: 20 });
    expect(data.warnings[0]).toMatchObject({ code: 'NEGATIVE_INVENTORY', variantId: 'VMAT-VAR-0002', quantity: 10 });
    expect((await stockSnapshot(t.orm, negShop))['level|VMAT-VAR-0002|101']).toBe('-10');
  });

  it('an onlyConsumePreassembled bill never comes from components: its shortfall is a warning', async () => {
    const res = await start('wo_only', run('only-1', 5));
    const data = res.json().data;
    expect(data.picks).toEqual([{ stock: 'preassembled', itemId: 'ASM-ONLY', locationId: '101', quantity: 2, deducted: 2 }]);
    expect(data.warnings).toEqual([expect.objectContaining({ code: 'PREASSEMBLED_SHORT', itemId: 'ASM-ONLY', quantity: 3 })]);
  });
});

describe('reversal and completion (GraphQL)', () => {
  it('reversing a run restores every level, shelf, residual and pending push exactly', async () => {
    const before = await stockSnapshot(t.orm, shop);
    expect((await start('wo_reverse', run('rev-1', 3))).statusCode).toBe(200);
    expect(await stockSnapshot(t.orm, shop)).not.toEqual(before);
    const res = await reverse('wo_reverse', 'rev-1');
    expect(res.errors).toBeUndefined();
    expect(res.data.reverseBuildRun.status).toBe('reversed');
    expect(await stockSnapshot(t.orm, shop)).toEqual(before);
    const plan = (await t.get('/api/v1/work-orders/wo_reverse/material-plan', key)).body.data;
    expect(plan.materials.every((m: { picked: number }) => m.picked === 0)).toBe(true);
  });

  it('reversing one of three carried builds gives back exactly what it would not have taken (residual included)', async () => {
    const before = await stockSnapshot(t.orm, shop);
    for (const id of ['c2-1', 'c2-2', 'c2-3']) expect((await start('wo_carry2', run(id, 1))).statusCode).toBe(200);
    expect((await stockSnapshot(t.orm, shop))['residual|buildRun|VMAT-VAR-0002|102']).toBe('0.2');
    await reverse('wo_carry2', 'c2-2');
    await reverse('wo_carry2', 'c2-1');
    await reverse('wo_carry2', 'c2-3');
    expect(await stockSnapshot(t.orm, shop)).toEqual(before);
  });

  it('completing adds the quantities to completedQuantity and to the shelves of what was built; reversing takes them back', async () => {
    const before = await stockSnapshot(t.orm, shop);
    const res = await start('wo_complete', { buildRunId: 'done-1', items: [{ itemId: 'woi_1', quantity: 2 }, { itemId: 'woi_2', quantity: 1 }] });
    expect(res.statusCode).toBe(200);
    const done = await complete('wo_complete', 'done-1');
    expect(done.data.completeBuildRun.status).toBe('completed');
    const data = (await t.get('/api/v1/work-orders/wo_complete', key)).body.data;
    expect(data.items.map((i: any) => [i.itemId, i.completedQuantity, i.builtQuantity])).toEqual([['woi_1', 2, 2], ['woi_2', 1, 1]]);
    const after = await stockSnapshot(t.orm, shop);
    expect(Number(after['shelf|44100|101'] ?? 0)).toBe(Number(before['shelf|44100|101'] ?? 0) + 2);
    await reverse('wo_complete', 'done-1');
    expect(await stockSnapshot(t.orm, shop)).toEqual(before);
    const again = (await t.get('/api/v1/work-orders/wo_complete', key)).body.data;
    expect(again.items.map((i: any) => i.completedQuantity)).toEqual([0, 0]);
  });
});

describe('idempotency, tokens and states', () => {
  it('a retry with the same buildRunId returns the stored run and moves nothing; other items are 409', async () => {
    const first = await start('wo_retry', run('retry-1', 5));
    const snapshot = await stockSnapshot(t.orm, shop);
    const again = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_retry/build-runs', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: T0, ...run('retry-1', 5) } });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual({ ...first.json().data, workOrderUpdatedAt: again.json().data.workOrderUpdatedAt });
    expect(await stockSnapshot(t.orm, shop)).toEqual(snapshot);
    const other = await start('wo_retry', run('retry-1', 6));
    expect(other.statusCode).toBe(409);
    expect(await stockSnapshot(t.orm, shop)).toEqual(snapshot);
  });

  it('20 concurrent sends of one new run: one run, stock moved once', async () => {
    const token = await tokenOf('wo_race');
    const before = Number((await stockSnapshot(t.orm, shop))['level|VMAT-VAR-0001|101']);
    const results = await Promise.all(Array.from({ length: 20 }, () => t.request({
      method: 'PATCH', url: '/api/v1/work-orders/wo_race/build-runs', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: token, ...run('race-1', 5) },
    })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const runs = (await t.get('/api/v1/work-orders/wo_race/build-runs', key)).body.data.buildRuns;
    expect(runs.map((r: { buildRunId: string }) => r.buildRunId)).toEqual(['race-1']);
    // The assembly itself is being built (its shelf is not used): 5 wicks, taken once.
    expect(Number((await stockSnapshot(t.orm, shop))['level|VMAT-VAR-0001|101'])).toBe(before - 5);
    expect(await history(shop, 'race-1')).toHaveLength(1);
  });

  it('a stale expectedUpdatedAt is 409 and moves nothing', async () => {
    const snapshot = await stockSnapshot(t.orm, shop);
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_stale/build-runs', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: '2026-01-01T00:00:00.000Z', ...run('stale-1', 1) } });
    expect(res.statusCode).toBe(409);
    expect(await stockSnapshot(t.orm, shop)).toEqual(snapshot);
  });

  it('runs start only in in_progress, quality_control (rework) and qc_approved: NOT_BUILDABLE_STATE elsewhere', async () => {
    const draft = await start('wo_draft', run('d-1', 1));
    expect(draft.statusCode).toBe(409);
    expect(draft.json().blockers[0].code).toBe('NOT_BUILDABLE_STATE');
    const production = await start('wo_qc', run('qc-1', 1));
    expect(production.json().blockers[0].code).toBe('NOT_BUILDABLE_STATE');
    const rework = await start('wo_qc', { ...run('qc-2', 1), runType: 'rework', reworkItemIds: ['rw-1'] });
    expect(rework.statusCode).toBe(200);
    expect(rework.json().data).toMatchObject({ runType: 'rework', reworkItemIds: ['rw-1'] });
  });

  it('an unknown item or rework item is 404 naming it; a bad body is 400 naming the field', async () => {
    const res = await start('wo_stale', run('x-1', 1, 'woi_nope'));
    expect(res.statusCode).toBe(404);
    expect(res.json().missing).toEqual([{ kind: 'work order item', id: 'woi_nope' }]);
    const zero = await start('wo_stale', run('x-2', 0));
    expect(zero.statusCode).toBe(400);
    expect(zero.json().errors[0].field).toMatch(/items/);
    const badId = await start('wo_stale', run('has space', 1));
    expect(badId.statusCode).toBe(400);
    expect(badId.json().errors[0].field).toMatch(/buildRunId/);
    const rework = await start('wo_qc', { ...run('qc-3', 1), runType: 'rework', reworkItemIds: ['rw-nope'] });
    expect(rework.statusCode).toBe(404);
  });
});

describe('statements of a start', () => {
  const countShop = uniqueShopId('wo-run-count');
  let countKey: string;
  beforeAll(async () => {
    await t.load(toDataset(workOrderShop(countShop, [workOrder('wo_mix', 'in_progress', { items: [
      { itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 10, completedQuantity: 0 },
      { itemId: 'woi_2', ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: 6, completedQuantity: 0 },
    ] })], { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 3 }] })));
    countKey = await t.createKey(countShop, ['read', 'write']);
  });

  it('a start costs 11 statements (begin and commit included; the key lookup adds one), whatever kinds of stock it moves', async () => {
    // Every kind of write at once: 3 shelf units and 1 wick built from the virtual level (ASM-1 × 4),
    // wax 0.42 × 3 = 1.26 (1 whole unit to the outbox, 0.26 carried), the storefront markers, the history.
    const mixed = await start('wo_mix', { buildRunId: 'mix-1', items: [{ itemId: 'woi_1', quantity: 3 }, { itemId: 'woi_2', quantity: 1 }] }, countKey);
    expect(mixed.statusCode).toBe(200);
    expect(mixed.json().data.picks).toEqual([
      { stock: 'material', itemId: '44001', locationId: '101', quantity: 1.26, deducted: 1 },
      { stock: 'material', itemId: 'VMAT-VAR-0001', locationId: '101', quantity: 1, deducted: 1 },
      { stock: 'preassembled', itemId: 'ASM-1', locationId: '101', quantity: 3, deducted: 3 },
    ]);
    expect(Number(mixed.headers['x-query-count'])).toBe(11);
    // One virtual material only (the shelf is empty now): the same statements.
    const plain = await start('wo_mix', { buildRunId: 'mix-2', items: [{ itemId: 'woi_2', quantity: 1 }] }, countKey);
    expect(plain.json().data.picks).toEqual([{ stock: 'material', itemId: 'VMAT-VAR-0001', locationId: '101', quantity: 1, deducted: 1 }]);
    expect(plain.headers['x-query-count']).toBe(mixed.headers['x-query-count']);
    const snapshot = await stockSnapshot(t.orm, countShop);
    expect(snapshot['residual|buildRun|44001|101']).toBe('0.26');
    expect(snapshot['pending|44001|101']).toBe('-1');
    expect(snapshot['shelf|ASM-1|101']).toBeUndefined();
  });
});

// PostgreSQL only: PGlite has one connection, so two transactions never wait for each other.
describe.runIf(usingPostgres)('the residual lock under a concurrent consumer (PostgreSQL)', () => {
  it('a start that waited for a residual row its holder then removed (its carry reached a whole unit) locks a new row and keeps its own carry', async () => {
    const lockShop = uniqueShopId('wo-run-lock');
    await t.load(toDataset(workOrderShop(lockShop, [workOrder('wo_lock', 'in_progress', { items: resinItem() })])));
    const lockKey = await t.createKey(lockShop, ['read', 'write']);
    expect((await start('wo_lock', run('lock-1', 1), lockKey)).statusCode).toBe(200);
    expect((await stockSnapshot(t.orm, lockShop))['residual|buildRun|VMAT-VAR-0002|101']).toBe('0.4');
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      // Another consumer holds the slot's residual row; it will use the carry up and remove the row.
      await other.query('begin');
      await other.query(`select quantity from residuals where shop_id = $1 and item_id = 'VMAT-VAR-0002' and location_id = '101' for update`, [lockShop]);
      const pending = start('wo_lock', run('lock-2', 1), lockKey);
      await untilBlockedBy(other);
      await other.query(`delete from residuals where shop_id = $1 and item_id = 'VMAT-VAR-0002' and location_id = '101'`, [lockShop]);
      await other.query('commit');
      const res = await pending;
      expect(res.statusCode).toBe(200);
      expect(res.json().data.picks).toEqual([{ stock: 'material', itemId: 'VMAT-VAR-0002', locationId: '101', quantity: 0.4, deducted: 0 }]);
    } finally {
      await other.end();
    }
    // Its 0.4 is carried (on a row it created and held): not lost with the row it waited for.
    expect((await stockSnapshot(t.orm, lockShop))['residual|buildRun|VMAT-VAR-0002|101']).toBe('0.4');
  });
});

/** Resolves once another backend waits for a lock this client's transaction holds. */
async function untilBlockedBy(client: pg.Client): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))');
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the start never waited for the residual row');
}
