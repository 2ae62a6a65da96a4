import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

let t: TestApp;
let key: string;
let bigKey: string;
const shop = uniqueShopId('wo-read');
const bigShop = uniqueShopId('wo-read-big');

const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const run = (id: string, status: string, quantity: number, picks: object[] = []) => ({
  buildRunId: id, status, runType: 'production', startedAt: T0, completedAt: status === 'completed' ? T0 : null, items: [{ itemId: 'woi_1', quantity }], picks,
});

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [
    workOrder('wo_a', 'in_progress', { name: 'Fair candles', tags: ['fair', 'gift'], priority: 'high', dueDate: '2026-01-10', updatedAt: at(5),
      assigneeId: 'asg_ana', manualMaterials: [{ variantId: 'VMAT-VAR-0002', quantity: 1.5, locationId: null, note: 'spare' }],
      buildRuns: [run('r-live', 'started', 2, [{ variantId: '44001', locationId: '101', quantity: 0.84 }, { variantId: 'ASM-1', locationId: '101', quantity: 2 }]),
        run('r-gone', 'reversed', 1, [{ variantId: '44001', locationId: '101', quantity: 0.42 }])] }),
    workOrder('wo_b', 'draft', { name: 'Market stock', tags: ['market'], priority: 'low', assigneeId: 'asg_zoe', updatedAt: at(9), sourceType: 'flow' }),
    workOrder('wo_c', 'ready', { name: 'Gift boxes', tags: ['gift'], priority: 'urgent', assigneeId: 'asg_bob', productionLocationId: '102', updatedAt: at(1) }),
    workOrder('wo_d', 'completed', { name: 'Old batch', tags: [], assigneeId: null, updatedAt: at(3), dueDate: '2026-01-01' }),
    workOrder('wo_e', 'cancelled', { name: 'Dropped', productionLocationId: null, updatedAt: at(7), sourceType: 'empty', items: [] }),
    workOrder('wo_f', 'ready', { name: 'Unlocated', productionLocationId: null, assigneeId: 'asg_zoe', updatedAt: at(2),
      items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity: 1000, completedQuantity: 0 }] }),
  ])));
  // A bigger shop for round-trip counts: many work orders with several items and runs each.
  const many = Array.from({ length: 60 }, (_, i) => workOrder(`wo_${String(i).padStart(3, '0')}`, i % 2 ? 'in_progress' : 'ready', {
    tags: [`t${i % 7}`], updatedAt: at(i),
    items: [1, 2, 3, 4].map((n) => ({ itemId: `woi_${n}`, ownerType: n % 2 ? 'bom' : 'sub_assembly', ownerId: n % 2 ? 'BOM-1001' : 'ASM-1', quantity: n, completedQuantity: 0 })),
    buildRuns: [1, 2, 3].map((n) => ({ ...run(`r${n}`, 'started', 1, [{ variantId: 'VMAT-VAR-0001', locationId: '101', quantity: 1 }]), items: [{ itemId: 'woi_1', quantity: 1 }] })),
  }));
  await t.load(toDataset(workOrderShop(bigShop, [...many, workOrder('wo_small', 'ready', {})])));
  key = await t.createKey(shop, ['read']);
  bigKey = await t.createKey(bigShop, ['read']);
});
afterAll(() => t.close());

const list = (query = '', k = key) => t.get(`/api/v1/work-orders${query}`, k);
const ids = (body: any) => body.data.rows.map((r: { workOrderId: string }) => r.workOrderId);

describe('GET /work-orders', () => {
  it('flat header rows, newest change first by default, with total and hasMore', async () => {
    const res = await list('?pageSize=2');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(['wo_b', 'wo_e']);
    expect(res.body.data).toMatchObject({ total: 6, hasMore: true });
    const row = (await list('?q=Fair')).body.data.rows[0];
    expect(row).toEqual({
      workOrderId: 'wo_a', shortId: expect.stringMatching(/^WO-\d{4}$/), name: 'Fair candles', description: null, notes: null, status: 'in_progress',
      priority: 'high', dueDate: '2026-01-10', assigneeId: 'asg_ana', assigneeName: 'Ana', productionLocationId: '101', productionLocationName: 'Main Workshop',
      defaultConsumptionLocationId: null, sourceType: 'bom', sourceFlowId: null, sourceTodoId: null, sourceOrderIds: [], tags: ['fair', 'gift'],
      plannedLaborCost: null, actualLaborCost: null, createdAt: '2026-11-01T09:00:00.000Z', updatedAt: at(5),
    });
    expect((await list('?page=3&pageSize=5')).body.data).toMatchObject({ rows: [], total: 6, hasMore: false });
  });

  it('filters: q over name, short id and assignee name; status and tags comma-separated OR; location, assignee, source type', async () => {
    expect(ids((await list('?q=gift')).body)).toEqual(['wo_c']);
    expect(ids((await list('?q=zoe')).body).sort()).toEqual(['wo_b', 'wo_f']);
    const shortId = (await list('?q=Fair')).body.data.rows[0].shortId;
    expect(ids((await list(`?q=${shortId.toLowerCase()}`)).body)).toEqual(['wo_a']);
    expect(ids((await list('?status=draft,ready')).body).sort()).toEqual(['wo_b', 'wo_c', 'wo_f']);
    expect(ids((await list('?tags=market,fair')).body).sort()).toEqual(['wo_a', 'wo_b']);
    expect(ids((await list('?locationId=102')).body)).toEqual(['wo_c']);
    expect(ids((await list('?assignedTo=asg_ana')).body).sort()).toEqual(['wo_a', 'wo_e']);
    expect(ids((await list('?sourceType=flow')).body)).toEqual(['wo_b']);
    expect(ids((await list('?q=%25')).body)).toEqual([]);
  });

  it('facets count the filtered, unpaged result with labels (status word, location name, display name, tag)', async () => {
    const facets = (await list('?status=draft,ready,in_progress&pageSize=1')).body.data.facets;
    expect(facets.status).toEqual([
      { value: 'draft', label: 'draft', count: 1 }, { value: 'ready', label: 'ready', count: 2 }, { value: 'in_progress', label: 'in_progress', count: 1 },
    ]);
    expect(facets.location).toEqual([
      { value: '101', label: 'Main Workshop', count: 2 }, { value: '102', label: 'Downtown Store', count: 1 }, { value: null, label: 'No location', count: 1 },
    ]);
    expect(facets.assignee).toEqual([
      { value: 'asg_zoe', label: 'Zoe', count: 2 }, { value: 'asg_ana', label: 'Ana', count: 1 }, { value: 'asg_bob', label: 'Bob', count: 1 },
    ]);
    expect(facets.tag).toEqual([{ value: 'gift', label: 'gift', count: 2 }, { value: 'fair', label: 'fair', count: 1 }, { value: 'market', label: 'market', count: 1 }]);
  });

  it('sorting: priority (urgent first by default), name, status by the state table, dueDate with blanks last; ties on id; unknown sortBy ignored', async () => {
    expect(ids((await list('?sortBy=priority')).body).slice(0, 2)).toEqual(['wo_c', 'wo_a']);
    expect(ids((await list('?sortBy=priority&sortDir=asc')).body)[0]).toBe('wo_b');
    expect(ids((await list('?sortBy=name')).body)).toEqual(['wo_e', 'wo_a', 'wo_c', 'wo_b', 'wo_d', 'wo_f']);
    expect(ids((await list('?sortBy=status')).body)).toEqual(['wo_b', 'wo_c', 'wo_f', 'wo_a', 'wo_d', 'wo_e']);
    expect(ids((await list('?sortBy=dueDate')).body).slice(0, 2)).toEqual(['wo_d', 'wo_a']);
    expect(ids((await list('?sortBy=bogus')).body)).toEqual(ids((await list('')).body));
  });

  it('bad input is 400 naming the parameter: pageSize 0 or 101, an unknown status or source type, a global location id, another list\'s filter', async () => {
    for (const [query, field] of [['?pageSize=101', 'pageSize'], ['?pageSize=0', 'pageSize'], ['?status=ready,shipped', 'status'],
      ['?sourceType=magic', 'sourceType'], ['?locationId=gid://shopify/Location/101', 'locationId'], ['?statusFilter=active', 'statusFilter'], ['?sortDir=up', 'sortDir']]) {
      const res = await list(query!);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0].field, query).toMatch(new RegExp(`^${field}`));
    }
  });

  it('SQL round trips are the same for 1 or 100 rows and for a small or a big shop', async () => {
    const counts = await Promise.all([
      list('?pageSize=1', bigKey), list('?pageSize=100', bigKey), list('?pageSize=100&q=wo&tags=t1,t2', bigKey), list('?pageSize=100'),
    ]);
    expect(counts[1]!.body.data.rows).toHaveLength(61);
    expect(new Set(counts.map((c) => c.headers['x-query-count'])).size).toBe(1);
  });
});

describe('GET /work-orders/{id}', () => {
  it('header at the top beside every part; items with built and remaining quantities; runs with picks', async () => {
    const data = (await t.get('/api/v1/work-orders/wo_a', key)).body.data;
    expect(data).toMatchObject({ workOrderId: 'wo_a', status: 'in_progress', assigneeName: 'Ana' });
    expect(data.items).toEqual([{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', name: 'Large candle', quantity: 10, completedQuantity: 0, builtQuantity: 2, remainingQuantity: 8 }]);
    expect(data.buildRuns.map((r: any) => [r.buildRunId, r.status, r.shortId])).toEqual([['r-gone', 'reversed', expect.stringMatching(/-R1$/)], ['r-live', 'started', expect.stringMatching(/-R2$/)]]);
    for (const part of ['qcReviews', 'reworkItems', 'documents', 'conversation', 'lifecycleEvents']) expect(data[part]).toEqual([]);
    expect(data.itemConsumption).toBeUndefined();
    expect(data.cost).toMatchObject({ plannedLaborCost: null, actualLaborCost: null });
  });

  it('materials: remaining = the needs of the units not yet started + manual lines × (Q − started)/Q, picked from runs not reversed, required = picked + remaining; contributions name their gross source', async () => {
    const data = (await t.get('/api/v1/work-orders/wo_a', key)).body.data;
    const byId = Object.fromEntries(data.materials.map((m: any) => [m.variantId, m]));
    // 10 candles, 2 started by r-live (r-gone is reversed): the 8 others need wax 0.4 × 1.05 × 8 = 3.36 and 8 wicks;
    // the manual resin 1.5 at the production location is 1.5 × 8/10 = 1.2 still to consume.
    expect(byId['44001']).toMatchObject({ locationId: '101', required: 4.2, picked: 0.84, remaining: 3.36 });
    // r-live (a dataset run) picked no wick: its 2 units' wicks are not demanded again.
    expect(byId['VMAT-VAR-0001']).toMatchObject({ required: 8, picked: 0, remaining: 8 });
    expect(byId['VMAT-VAR-0002']).toMatchObject({ required: 1.2, picked: 0, remaining: 1.2 });
    expect(data.contributions).toContainEqual({ variantId: 'VMAT-VAR-0002', locationId: '101', source: 'manual', itemId: null, ownerType: null, ownerId: null, quantity: 1.5, note: 'spare' });
    expect(data.contributions).toContainEqual({ variantId: '44001', locationId: '101', source: 'recipe', itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 4.2, note: null });
    // Cost (Σ required × unit cost): wax 6.2 × 4.2 + wick 0.05 × 8 + resin 2.5 × 1.2.
    expect(data.cost.materialCost).toBe(29.44);
  });

  it('the plan agrees with the work-order allocation read for every material', async () => {
    const plan = (await t.get('/api/v1/work-orders/wo_a/material-plan', key)).body.data;
    expect(plan.materials.length).toBeGreaterThan(0);
    for (const m of plan.materials) {
      const allocation = (await t.get(`/api/v1/raw-materials/${m.variantId}/work-order-allocation`, key)).body.data;
      const level = allocation.levels.find((l: any) => l.locationId === m.locationId);
      const holder = level?.holders.find((h: any) => h.holderId === 'wo_a');
      expect({ variantId: m.variantId, picked: holder?.picked ?? 0, remaining: holder?.remaining ?? 0 })
        .toEqual({ variantId: m.variantId, picked: m.picked, remaining: m.remaining });
    }
  });

  it('consumptionPlan: the remaining 8 candles take the 0 shelf units and the wicks and wax; includeItemConsumption adds it per item', async () => {
    const data = (await t.get('/api/v1/work-orders/wo_a?includeItemConsumption=true', key)).body.data;
    expect(data.consumptionPlan).toEqual([
      { stock: 'material', itemId: '44001', name: 'Soy wax - 1 kg bag', locationId: '101', locationName: 'Main Workshop', quantity: 3.36, available: 40, short: 0 },
      { stock: 'material', itemId: 'VMAT-VAR-0001', name: 'Cotton wick - 15 cm', locationId: '101', locationName: 'Main Workshop', quantity: 8, available: 500, short: 0 },
    ]);
    expect(data.itemConsumption).toEqual([{ itemId: 'woi_1', remainingQuantity: 8, locationId: '101', rows: data.consumptionPlan }]);
  });

  it('warnings are derived on every read, each with its remedy: overdue, retired assignee, unlocated lines, stock short', async () => {
    const a = (await t.get('/api/v1/work-orders/wo_a', key)).body.data.warnings;
    expect(a.map((w: any) => w.code)).toEqual(['OVERDUE']);
    expect(a[0].remedy).toEqual(expect.any(String));
    const c = (await t.get('/api/v1/work-orders/wo_c', key)).body.data.warnings;
    expect(c.map((w: any) => w.code)).toContain('RETIRED_ASSIGNEE');
    expect(c.find((w: any) => w.code === 'STOCK_SHORT')).toMatchObject({ variantId: 'VMAT-VAR-0001', locationId: '102', quantity: 10 });
    const f = (await t.get('/api/v1/work-orders/wo_f', key)).body.data.warnings;
    expect(f).toEqual([expect.objectContaining({ code: 'UNLOCATED_LINES', count: 1 })]);
    // A closed work order is not overdue.
    expect((await t.get('/api/v1/work-orders/wo_d', key)).body.data.warnings).toEqual([]);
  });

  it('unknown ids are 404 on the read, the plan and the run history', async () => {
    for (const url of ['/api/v1/work-orders/wo_nope', '/api/v1/work-orders/wo_nope/material-plan', '/api/v1/work-orders/wo_nope/build-runs']) {
      expect((await t.get(url, key)).status).toBe(404);
    }
  });

  it('GET /work-orders/{id}/build-runs lists the history oldest first', async () => {
    const data = (await t.get('/api/v1/work-orders/wo_a/build-runs', key)).body.data;
    expect(data.workOrderId).toBe('wo_a');
    expect(data.buildRuns.map((r: any) => r.buildRunId)).toEqual(['r-gone', 'r-live']);
    expect(data.buildRuns[1].picks).toEqual([
      { stock: 'material', itemId: '44001', locationId: '101', quantity: 0.84, deducted: null },
      { stock: 'preassembled', itemId: 'ASM-1', locationId: '101', quantity: 2, deducted: null },
    ]);
  });

  it('round trips of the whole read, the plan and the history do not grow with items, runs or the recipe', async () => {
    for (const path of ['', '/material-plan', '/build-runs']) {
      const small = await t.get(`/api/v1/work-orders/wo_small${path}`, bigKey);
      const big = await t.get(`/api/v1/work-orders/wo_001${path}`, bigKey);
      expect(big.status).toBe(200);
      expect(big.headers['x-query-count'], path).toBe(small.headers['x-query-count']);
    }
  });
});
