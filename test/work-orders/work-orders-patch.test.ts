import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

let t: TestApp;
let key: string;
let readKey: string;
const shop = uniqueShopId('wo-patch');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [
    ...['wo_all', 'wo_clear', 'wo_missing', 'wo_assignee', 'wo_stale', 'wo_bad', 'wo_noop', 'wo_race'].map((id) =>
      workOrder(id, 'ready', { description: 'desc', notes: 'notes', dueDate: '2026-12-01', tags: ['fair'], sourceFlowId: 'flow_weekly', sourceTodoId: 'todo_42',
        sourceOrderIds: ['5001'], plannedLaborCost: 100, actualLaborCost: 12.5, defaultConsumptionLocationId: '101' })),
    // Assigned to Bob before he was retired.
    workOrder('wo_kept', 'ready', { assigneeId: 'asg_bob' }),
  ])));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

const patch = (id: string, body: Record<string, unknown>, k = key) => t.patch(`/api/v1/work-orders/${id}`, k, { expectedUpdatedAt: T0, ...body });
const read = async (id: string) => (await t.get(`/api/v1/work-orders/${id}`, key)).body.data;

describe('PATCH /work-orders/{id}', () => {
  it('sets every editable header field and returns the new token, which the next read shows', async () => {
    const res = await patch('wo_all', {
      name: 'Renamed', description: 'New description', notes: 'New notes', priority: 'urgent', dueDate: '2027-01-31', assigneeId: 'asg_zoe',
      productionLocationId: '102', defaultConsumptionLocationId: '103', sourceFlowId: 'flow_weekly', sourceTodoId: 'todo_42',
      sourceOrderIds: ['5001'], tags: ['x', 'y'], plannedLaborCost: 250.125, actualLaborCost: 0.000001, someUnknownField: 'ignored',
    });
    expect(res.statusCode).toBe(200);
    const { workOrderId, updatedAt } = res.json().data;
    expect(workOrderId).toBe('wo_all');
    expect(new Date(updatedAt).getTime()).toBeGreaterThan(new Date(T0).getTime());
    expect(await read('wo_all')).toMatchObject({
      name: 'Renamed', description: 'New description', notes: 'New notes', priority: 'urgent', dueDate: '2027-01-31', assigneeId: 'asg_zoe', assigneeName: 'Zoe',
      productionLocationId: '102', productionLocationName: 'Downtown Store', defaultConsumptionLocationId: '103', sourceOrderIds: ['5001'], tags: ['x', 'y'],
      plannedLaborCost: 250.125, actualLaborCost: 0.000001, updatedAt,
    });
  });

  it('null clears a field (arrays to []); absent fields stay', async () => {
    const res = await patch('wo_clear', {
      description: null, notes: null, dueDate: null, assigneeId: null, productionLocationId: null, defaultConsumptionLocationId: null,
      sourceFlowId: null, sourceTodoId: null, sourceOrderIds: null, tags: null, plannedLaborCost: null, actualLaborCost: null,
    });
    expect(res.statusCode).toBe(200);
    expect(await read('wo_clear')).toMatchObject({
      name: 'Work order wo_clear', priority: 'normal', description: null, notes: null, dueDate: null, assigneeId: null, productionLocationId: null,
      defaultConsumptionLocationId: null, sourceFlowId: null, sourceTodoId: null, sourceOrderIds: [], tags: [], plannedLaborCost: null, actualLaborCost: null,
    });
  });

  it('missing location, flow, task, order or assignee: 404 naming each one, nothing written', async () => {
    const res = await patch('wo_missing', {
      name: 'Should not stick', productionLocationId: '999', defaultConsumptionLocationId: '998', sourceFlowId: 'flow_nope', sourceTodoId: 'todo_nope',
      sourceOrderIds: ['5001', '7777'], assigneeId: 'asg_nope',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().missing).toEqual([
      { kind: 'location', id: '999' }, { kind: 'location', id: '998' }, { kind: 'flow', id: 'flow_nope' }, { kind: 'task', id: 'todo_nope' },
      { kind: 'order', id: '7777' }, { kind: 'assignee', id: 'asg_nope' },
    ]);
    expect(await read('wo_missing')).toMatchObject({ name: 'Work order wo_missing', productionLocationId: '101', updatedAt: T0 });
  });

  it('a retired assignee is 400 naming assigneeId; an active one works', async () => {
    const retired = await patch('wo_assignee', { assigneeId: 'asg_bob' });
    expect(retired.statusCode).toBe(400);
    expect(retired.json().errors).toEqual([{ field: 'assigneeId', message: expect.stringContaining('retired') }]);
    expect((await patch('wo_assignee', { assigneeId: 'asg_zoe' })).statusCode).toBe(200);
  });

  it('a retired assignee the work order already names may be re-sent unchanged; assigning them anew stays 400', async () => {
    const before = await read('wo_kept');
    expect(before).toMatchObject({ assigneeId: 'asg_bob', assigneeName: 'Bob' });
    const resent = await patch('wo_kept', {
      expectedUpdatedAt: before.updatedAt, name: 'Kept, renamed', description: before.description, priority: before.priority, assigneeId: before.assigneeId,
      productionLocationId: before.productionLocationId,
    });
    expect(resent.statusCode).toBe(200);
    const after = await read('wo_kept');
    expect(after).toMatchObject({ name: 'Kept, renamed', assigneeId: 'asg_bob', updatedAt: resent.json().data.updatedAt });
    const cleared = await patch('wo_kept', { expectedUpdatedAt: after.updatedAt, assigneeId: null });
    expect(cleared.statusCode).toBe(200);
    const again = await patch('wo_kept', { expectedUpdatedAt: cleared.json().data.updatedAt, assigneeId: 'asg_bob' });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual([{ field: 'assigneeId', message: expect.stringContaining('retired') }]);
    expect(await read('wo_kept')).toMatchObject({ assigneeId: null, updatedAt: cleared.json().data.updatedAt });
  });

  it('a stale expectedUpdatedAt is 409 and nothing is overwritten; a missing one is 400', async () => {
    const stale = await patch('wo_stale', { name: 'Late', expectedUpdatedAt: '2026-11-02T09:59:59.999Z' });
    expect(stale.statusCode).toBe(409);
    expect((await read('wo_stale')).name).toBe('Work order wo_stale');
    const missing = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_stale', key, payload: { name: 'x' }, headers: { 'content-type': 'application/json' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('expectedUpdatedAt');
  });

  it('typed fields: wrong types and values are 400 naming the field; name and priority cannot be cleared', async () => {
    for (const [body, field] of [
      [{ name: null }, 'name'], [{ name: '' }, 'name'], [{ priority: null }, 'priority'], [{ priority: 'asap' }, 'priority'], [{ dueDate: '2026-02-30' }, 'dueDate'],
      [{ dueDate: 'tomorrow' }, 'dueDate'], [{ tags: 'fair' }, 'tags'], [{ plannedLaborCost: -1 }, 'plannedLaborCost'],
      [{ plannedLaborCost: 1.0000001 }, 'plannedLaborCost'], [{ productionLocationId: 'gid://shopify/Location/101' }, 'productionLocationId'],
      [{ expectedUpdatedAt: 'yesterday' }, 'expectedUpdatedAt'],
    ] as const) {
      const res = await patch('wo_bad', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].field, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    expect((await read('wo_bad')).updatedAt).toBe(T0);
  });

  it('a body that changes nothing returns the current token and writes nothing', async () => {
    const res = await patch('wo_noop', { unknown: 1 });
    expect(res.json().data).toEqual({ workOrderId: 'wo_noop', updatedAt: T0 });
  });

  it('concurrent edits with one token: exactly one wins', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => patch('wo_race', { name: `Edit ${i}` })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(9);
  });

  it('a read key is 403; an unknown work order 404', async () => {
    expect((await patch('wo_all', { name: 'x' }, readKey)).statusCode).toBe(403);
    expect((await patch('wo_nope', { name: 'x' })).statusCode).toBe(404);
  });
});
