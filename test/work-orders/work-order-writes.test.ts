import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryStats } from '../../src/db/query-stats.ts';
import { exact } from '../../src/kernel/numbers/index.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { graphqlCaller, outcome, USER_ERRORS } from '../helpers/graphql-payloads.ts';

let t: TestApp;
let key: string;
let readKey: string;
let otherKey: string;
const shop = uniqueShopId('gql-wo-create');
const other = uniqueShopId('gql-wo-create-other');

beforeAll(async () => {
  t = await createTestApp();
  // Two work orders from the dataset: their short ids are WO-0001 and WO-0002.
  await t.load(toDataset(workOrderShop(shop, [
    workOrder('wo_old_1', 'ready', { createdAt: '2026-10-01T09:00:00.000Z' }),
    workOrder('wo_old_2', 'completed', { createdAt: '2026-10-02T09:00:00.000Z' }),
  ])));
  // Another shop: it has BOM-1001 but not BOM-2000, and none of the first shop's work orders.
  await t.load(toDataset(datasetJson(other)));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

const gql = graphqlCaller(() => t, () => key);

const CREATE = `mutation Create($input: CreateWorkOrderInput!) { createWorkOrder(input: $input) { createdWorkOrder { workOrderId shortId updatedAt } ${USER_ERRORS} } }`;
/** Creates a work order; returns its result or its failure. */
const create = async (input: Record<string, unknown>, k = key, stats?: QueryStats) => outcome(await gql(CREATE, { input }, k, stats), 'createWorkOrder');

// The selection REST's GET /work-orders/{id} runs, read from the facade's own operation files.
const facade = (file: string) => readFileSync(new URL(`../../rest-facade/routes/work-orders/${file}`, import.meta.url), 'utf8');
const WHOLE_READ = ['get.graphql', 'header.fragment.graphql', 'build-run.fragment.graphql', 'warning.fragment.graphql'].map(facade).join('\n');

/** Decimals compared by value (REST writes numbers, GraphQL strings); absent and null are the same. */
function byValue(value: unknown): unknown {
  if (typeof value === 'number') return exact(String(value)).toFixed();
  if (typeof value === 'string' && /^-?\d+\.\d+$/.test(value)) return exact(value).toFixed();
  if (Array.isArray(value)) return value.map(byValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, byValue(v)]));
  }
  return value;
}

const FULL_INPUT = {
  name: '  Fair candles  ', sourceType: 'bom', description: 'For the winter fair', notes: 'Use new jars', priority: 'high', dueDate: '2026-12-20',
  assigneeId: 'asg_ana', productionLocationId: '101', defaultConsumptionLocationId: '102', sourceTodoId: 'todo_42', sourceOrderIds: ['5001'],
  tags: ['fair', 'winter'], plannedLaborCost: '120.5', actualLaborCost: null,
  items: [{ bomId: 'BOM-1001', quantity: '12' }, { bomId: 'BOM-2000', quantity: '0.333333' }],
  manualMaterials: [{ variantId: 'VMAT-VAR-0002', quantity: '1.25', locationId: '101', note: 'spare resin' }, { variantId: '44001', quantity: 2 }],
  actorUserId: 'user_7', actorDisplayName: 'Ana',
};

describe('createWorkOrder', () => {
  it('creates a draft with the next short id, its items and manual lines, exactly; the workOrder query and REST GET read it back the same', async () => {
    const body = await create(FULL_INPUT);
    expect(body.failure).toBeNull();
    const created = body.result;
    expect(created.workOrderId).toMatch(/^wo_[0-9a-f-]{36}$/);
    expect(created.shortId).toBe('WO-0003');

    const graph = await gql(WHOLE_READ, { id: created.workOrderId, includeItemConsumption: false });
    expect(graph.errors).toBeUndefined();
    const wo = graph.data.workOrder;
    expect(wo).toMatchObject({
      workOrderId: created.workOrderId, shortId: 'WO-0003', name: 'Fair candles', status: 'draft', priority: 'high', dueDate: '2026-12-20',
      assigneeId: 'asg_ana', assigneeName: 'Ana', productionLocationId: '101', productionLocationName: 'Main Workshop', defaultConsumptionLocationId: '102',
      sourceType: 'bom', sourceTodoId: 'todo_42', sourceOrderIds: ['5001'], tags: ['fair', 'winter'], plannedLaborCost: '120.5', actualLaborCost: null,
      createdAt: created.updatedAt, updatedAt: created.updatedAt,
    });
    expect(wo.items).toEqual([
      expect.objectContaining({ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: '12', completedQuantity: '0' }),
      expect.objectContaining({ itemId: 'woi_2', ownerType: 'bom', ownerId: 'BOM-2000', quantity: '0.333333', completedQuantity: '0' }),
    ]);
    // Manual lines feed the plan at their own location, else the default consumption location.
    expect(wo.contributions.filter((c: any) => c.source === 'manual')).toEqual([
      expect.objectContaining({ variantId: 'VMAT-VAR-0002', locationId: '101', quantity: '1.25', note: 'spare resin' }),
      expect.objectContaining({ variantId: '44001', locationId: '102', quantity: '2', note: null }),
    ]);
    // A draft with items and a production location may go to ready, to in_progress directly, or be cancelled.
    expect(wo.availableTransitions.map((m: any) => m.to)).toEqual(['ready', 'in_progress', 'cancelled']);
    expect(wo.lifecycleEvents).toEqual([expect.objectContaining({ fromStatus: null, toStatus: 'draft', actorUserId: 'user_7', actorDisplayName: 'Ana' })]);

    const rest = await t.get(`/api/v1/work-orders/${created.workOrderId}`, key);
    expect(rest.status).toBe(200);
    expect(byValue(rest.body.data)).toEqual(byValue(wo));
  });

  it('the created work order takes REST writes: its token works for a header PATCH', async () => {
    const { result: created } = await create({ name: 'Patch me', sourceType: 'empty' });
    const res = await t.request({
      method: 'PATCH', url: `/api/v1/work-orders/${created.workOrderId}`, key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: created.updatedAt, name: 'Patched' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('each source type asks for its own source: sa builds assembly bills, orders names orders, flow names a flow, empty nothing', async () => {
    const ok = await Promise.all([
      create({ name: 'Wick batch', sourceType: 'sa', items: [{ assemblyId: 'ASM-1', quantity: '50' }] }),
      create({ name: 'For order 1001', sourceType: 'orders', sourceOrderIds: ['5001'], items: [{ bomId: 'BOM-1001', quantity: 2 }] }),
      create({ name: 'Weekly', sourceType: 'flow', sourceFlowId: 'flow_weekly' }),
      create({ name: 'Blank', sourceType: 'empty' }),
    ]);
    for (const body of ok) expect(body.failure).toBeNull();
    const sa = await gql('query($id: ID!) { workOrder(workOrderId: $id) { sourceType items { ownerType ownerId quantity } } }', { id: ok[0].result.workOrderId });
    expect(sa.data.workOrder).toEqual({ sourceType: 'sa', items: [{ ownerType: 'sub_assembly', ownerId: 'ASM-1', quantity: '50' }] });

    const refused = [
      [{ name: 'x', sourceType: 'bom' }, 'items'],
      [{ name: 'x', sourceType: 'bom', items: [{ assemblyId: 'ASM-1', quantity: 1 }] }, 'items'],
      [{ name: 'x', sourceType: 'sa', items: [{ bomId: 'BOM-1001', quantity: 1 }] }, 'items'],
      [{ name: 'x', sourceType: 'orders' }, 'sourceOrderIds'],
      [{ name: 'x', sourceType: 'flow' }, 'sourceFlowId'],
      [{ name: 'x', sourceType: 'empty', items: [{ bomId: 'BOM-1001', assemblyId: 'ASM-1', quantity: 1 }] }, 'items[0]'],
    ] as const;
    for (const [input, field] of refused) {
      const body = await create(input);
      expect(body.failure?.code, JSON.stringify(input)).toBe('INVALID_INPUT');
      expect(body.failure?.message).toMatch(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
    }
  });

  it('an orders work order sent without items builds the BOMs its orders contain, with the ordered quantities', async () => {
    // Order 5001 has 2 × variant 44100, the finished good of BOM-1001.
    const body = await create({ name: 'Order #1001', sourceType: 'orders', sourceOrderIds: ['5001'] });
    expect(body.failure).toBeNull();
    const read = await gql('query($id: ID!) { workOrder(workOrderId: $id) { sourceOrderIds items { itemId ownerType ownerId quantity } } }',
      { id: body.result.workOrderId });
    expect(read.data.workOrder).toEqual({ sourceOrderIds: ['5001'], items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: '2' }] });
    const unknown = await create({ name: 'Order ?', sourceType: 'orders', sourceOrderIds: ['7777'] });
    expect(unknown.failure?.message).toBe('sourceOrderIds[0]: unknown order 7777');
  });

  it('unknown BOM, assembly bill, material, location, order, flow, task or assignee: INVALID_INPUT naming every field, nothing written', async () => {
    const before = (await t.get('/api/v1/work-orders?pageSize=100', key)).body.data.total;
    const body = await create({
      name: 'Bad refs', sourceType: 'empty', items: [{ bomId: 'BOM-NOPE', quantity: 1 }, { assemblyId: 'ASM-NOPE', quantity: 1 }],
      manualMaterials: [{ variantId: 'VMAT-VAR-9999', quantity: 1, locationId: '998' }], productionLocationId: '999',
      sourceOrderIds: ['5001', '7777'], sourceFlowId: 'flow_nope', sourceTodoId: 'todo_nope', assigneeId: 'asg_nope',
    });
    expect(body.result).toBeNull();
    expect(body.failure?.code).toBe('INVALID_INPUT');
    const fields = body.failure?.message.split('; ').map((part: string) => part.split(':')[0]);
    expect(fields).toEqual([
      'items[0].bomId', 'items[1].assemblyId', 'manualMaterials[0].variantId', 'productionLocationId', 'manualMaterials[0].locationId',
      'sourceOrderIds[1]', 'sourceFlowId', 'sourceTodoId', 'assigneeId',
    ]);
    // As on REST: every field at fault in `errors`, every object not found in `missing`.
    expect(body.failure?.errors?.map((e: { field: string }) => e.field)).toEqual(fields);
    expect(body.failure?.missing).toEqual([
      { kind: 'bom', id: 'BOM-NOPE' }, { kind: 'assembly bill', id: 'ASM-NOPE' }, { kind: 'material', id: 'VMAT-VAR-9999' },
      { kind: 'location', id: '999' }, { kind: 'location', id: '998' }, { kind: 'order', id: '7777' }, { kind: 'flow', id: 'flow_nope' },
      { kind: 'task', id: 'todo_nope' }, { kind: 'assignee', id: 'asg_nope' },
    ]);
    expect((await t.get('/api/v1/work-orders?pageSize=100', key)).body.data.total).toBe(before);
  });

  it('a retired assignee cannot be given a new work order (INVALID_INPUT naming assigneeId)', async () => {
    const body = await create({ name: 'For Bob', sourceType: 'empty', assigneeId: 'asg_bob' });
    expect(body.failure?.code).toBe('INVALID_INPUT');
    expect(body.failure?.message).toMatch(/^assigneeId: assignee asg_bob is retired/);
  });

  it('quantities are positive and exact: zero, negative and 7 fractional digits are refused naming the field; big exact values keep every digit', async () => {
    for (const quantity of ['0', '-2']) {
      const body = await create({ name: 'q', sourceType: 'bom', items: [{ bomId: 'BOM-1001', quantity }] });
      expect(body.failure?.code).toBe('INVALID_INPUT');
      expect(body.failure?.message).toBe('items[0].quantity: must be greater than 0');
    }
    // More than 6 fractional digits never reaches the service: the Decimal scalar refuses the variable.
    const tooFine = await create({ name: 'q', sourceType: 'bom', items: [{ bomId: 'BOM-1001', quantity: '0.0000001' }] });
    expect(tooFine.result).toBeNull();
    expect(tooFine.failure?.message).toContain('at most 6 fractional digits');
    const manual = await create({ name: 'q', sourceType: 'empty', manualMaterials: [{ variantId: '44001', quantity: '0' }] });
    expect(manual.failure?.message).toBe('manualMaterials[0].quantity: must be greater than 0');
    const big = await create({ name: 'Big', sourceType: 'bom', items: [{ bomId: 'BOM-2000', quantity: '12345678901.000001' }] });
    const read = await gql('query($id: ID!) { workOrder(workOrderId: $id) { items { quantity } } }', { id: big.result.workOrderId });
    expect(read.data.workOrder.items).toEqual([{ quantity: '12345678901.000001' }]);
  });

  it('header fields follow the header edit\'s rules (empty name, bad date, negative cost, too many tags)', async () => {
    const body = await create({ name: ' ', sourceType: 'empty', dueDate: '2026-02-30', plannedLaborCost: '-1' });
    expect(body.failure?.code).toBe('INVALID_INPUT');
    expect(body.failure?.message.split('; ').map((p: string) => p.split(':')[0])).toEqual(['name', 'dueDate', 'plannedLaborCost']);
    // List sizes are input limits, checked before the operation runs; the field is named the same way.
    const tags = await create({ name: 'Tagged', sourceType: 'empty', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) });
    expect(tags.failure).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'tags', message: 'must have at most 50 items, got 51' }] });
  });

  it('needs the write scope: a read-only key gets FORBIDDEN_SCOPE and nothing is created', async () => {
    const before = (await t.get('/api/v1/work-orders?pageSize=100', key)).body.data.total;
    const body = await create({ name: 'Nope', sourceType: 'empty' }, readKey);
    expect(body.failure?.code).toBe('FORBIDDEN_SCOPE');
    expect((await t.get('/api/v1/work-orders?pageSize=100', key)).body.data.total).toBe(before);
  });

  it('is tenant-scoped: another shop\'s key cannot name this shop\'s BOMs nor read the work order it made', async () => {
    const mine = await create({ name: 'Mine', sourceType: 'bom', items: [{ bomId: 'BOM-2000', quantity: 1 }] });
    const id = mine.result.workOrderId;
    const theirs = await create({ name: 'Theirs', sourceType: 'bom', items: [{ bomId: 'BOM-2000', quantity: 1 }] }, otherKey);
    expect(theirs.failure?.code).toBe('INVALID_INPUT');
    expect(theirs.failure?.message).toBe('items[0].bomId: unknown bom BOM-2000');
    const read = await gql('query($id: ID!) { workOrder(workOrderId: $id) { name } }', { id }, otherKey);
    expect(read.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await t.get(`/api/v1/work-orders/${id}`, otherKey)).status).toBe(404);
    // The other shop numbers its own work orders from WO-0001.
    const first = await create({ name: 'Theirs', sourceType: 'empty' }, otherKey);
    expect(first.result.shortId).toBe('WO-0001');
  });

  it('short ids stay unique and consecutive when creates run at once', async () => {
    const bodies = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ name: `Parallel ${i}`, sourceType: 'empty' })));
    const numbers = bodies.map((b) => Number(b.result.shortId.slice(3))).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(6);
    expect(numbers[5]! - numbers[0]!).toBe(5);
  });

  it('the REST list and its facets count the new work order under its status, location, assignee and tags', async () => {
    const list = async () => (await t.get('/api/v1/work-orders?tags=facet-check&pageSize=100', key)).body;
    const before = await list();
    expect(before.data.total).toBe(0);
    const { result: created } = await create({ name: 'Faceted', sourceType: 'empty', tags: ['facet-check'], assigneeId: 'asg_zoe', productionLocationId: '103' });
    const after = await list();
    expect(after.data.rows.map((r: any) => [r.workOrderId, r.shortId, r.status])).toEqual([[created.workOrderId, created.shortId, 'draft']]);
    expect(after.data.facets).toEqual({
      status: [{ value: 'draft', label: 'draft', count: 1 }],
      location: [{ value: '103', label: 'Annex', count: 1 }],
      assignee: [{ value: 'asg_zoe', label: 'Zoe', count: 1 }],
      tag: [{ value: 'facet-check', label: 'facet-check', count: 1 }],
    });
    const search = await t.get(`/api/v1/work-orders?q=${created.shortId}`, key);
    expect(search.body.data.rows.map((r: any) => r.workOrderId)).toEqual([created.workOrderId]);
  });

  it('SQL statements of a create do not grow with the number of items and manual lines', async () => {
    const input = (n: number) => ({
      name: `Sized ${n}`, sourceType: 'bom', productionLocationId: '101', assigneeId: 'asg_ana', sourceOrderIds: ['5001'],
      items: Array.from({ length: n }, (_, i) => ({ bomId: i % 2 ? 'BOM-1001' : 'BOM-2000', quantity: i + 1 })),
      manualMaterials: Array.from({ length: n }, (_, i) => ({ variantId: i % 2 ? '44001' : 'VMAT-VAR-0001', quantity: 1, locationId: '102' })),
    });
    const small: QueryStats = { count: 0, queries: [] };
    const large: QueryStats = { count: 0, queries: [] };
    expect((await create(input(1), key, small)).failure).toBeNull();
    expect((await create(input(40), key, large)).failure).toBeNull();
    // A create is at least its transaction, the reference reads and the inserts: a real count, not an empty one.
    expect(small.count).toBeGreaterThanOrEqual(10);
    expect(large.count).toBe(small.count);
    expect(small.count).toBeLessThanOrEqual(20);
  });
});

describe('a work order made through GraphQL alone', () => {
  it('goes from create to completed — start, build run, QC, rework, completion — and REST reads every step back', async () => {
    const created = (await create({ name: 'Coasters', sourceType: 'bom', items: [{ bomId: 'BOM-2000', quantity: '5' }], productionLocationId: '101' }))
      .result;
    const id = created.workOrderId;
    let token: string = created.updatedAt;
    const step = async (mutation: string, vars: Record<string, unknown> = {}) => {
        const body = await gql(mutation, { id, token, ...vars });
      const { result, failure } = outcome(body, Object.keys(body.data)[0]!);
      expect(failure).toBeNull();
      token = result.workOrderUpdatedAt ?? result.updatedAt!;
      return result;
    };
    const move = (to: string) => step(`mutation($id: ID!, $token: DateTime!) { transitionWorkOrder(workOrderId: $id, expectedUpdatedAt: $token, to: ${to}) { workOrderTransition { status updatedAt } ${USER_ERRORS} } }`);

    await move('in_progress');
    await step(`mutation($id: ID!, $token: DateTime!) { startBuildRun(workOrderId: $id, expectedUpdatedAt: $token, buildRunId: "run-1",
      items: [{ itemId: "woi_1", quantity: "5" }]) { buildRun { status workOrderUpdatedAt } ${USER_ERRORS} } }`);
    await step(`mutation($id: ID!, $token: DateTime!) { completeBuildRun(workOrderId: $id, buildRunId: "run-1", expectedUpdatedAt: $token) { buildRun { status workOrderUpdatedAt } ${USER_ERRORS} } }`);
    await move('quality_control');
    // QC per item: four of the five units pass, one fails and is reworked.
    await step(`mutation($id: ID!, $token: DateTime!) { addQcReview(workOrderId: $id, expectedUpdatedAt: $token, buildRunId: "run-1",
      items: [{ itemId: "woi_1", approvedQuantity: "4", failedQuantity: "1" }], reviewerName: "Zoe") { workOrderRecordWrite { updatedAt } ${USER_ERRORS} } }`);
    const rework = await step(`mutation($id: ID!, $token: DateTime!) { addReworkItem(workOrderId: $id, expectedUpdatedAt: $token, description: "Polish one edge",
      quantity: "1", buildRunId: "run-1") { workOrderRecordWrite { updatedAt recordId } ${USER_ERRORS} } }`);
    await step(`mutation($id: ID!, $token: DateTime!, $rw: ID!) { resolveReworkItem(workOrderId: $id, expectedUpdatedAt: $token, reworkItemId: $rw) { workOrderRecordWrite { updatedAt } ${USER_ERRORS} } }`,
      { rw: rework.recordId });
    await move('qc_approved');
    await move('completed');

    const rest = (await t.get(`/api/v1/work-orders/${id}`, key)).body.data;
    expect(rest).toMatchObject({ status: 'completed', updatedAt: token, shortId: created.shortId });
    expect(rest.items).toEqual([expect.objectContaining({ itemId: 'woi_1', quantity: 5, completedQuantity: 5, builtQuantity: 5, remainingQuantity: 0 })]);
    expect(rest.buildRuns.map((r: any) => [r.buildRunId, r.status])).toEqual([['run-1', 'completed']]);
    expect(rest.qcReviews).toEqual([expect.objectContaining({
      buildRunId: 'run-1', decision: 'rejected', reviewerName: 'Zoe', items: [{ itemId: 'woi_1', approvedQuantity: 4, failedQuantity: 1 }],
    })]);
    expect(rest.reworkItems).toEqual([expect.objectContaining({ reworkItemId: rework.recordId, status: 'resolved', quantity: 1 })]);
    expect(rest.lifecycleEvents.map((e: any) => e.toStatus)).toEqual(['draft', 'in_progress', 'quality_control', 'qc_approved', 'completed']);
    const graph = await gql(WHOLE_READ, { id, includeItemConsumption: false });
    expect(byValue(rest)).toEqual(byValue(graph.data.workOrder));
  });
});
