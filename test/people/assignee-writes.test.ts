import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { only, USER_ERRORS } from '../helpers/graphql-payloads.ts';

let t: TestApp;
let key: string;
let readKey: string;
let otherKey: string;
const shop = uniqueShopId('gql-assignees');
const other = uniqueShopId('gql-assignees-other');

beforeAll(async () => {
  t = await createTestApp();
  // Zoe has two open work orders and a completed one; Ana one open work order.
  await t.load(toDataset(workOrderShop(shop, [
    workOrder('wo_zoe_1', 'ready', { assigneeId: 'asg_zoe' }),
    workOrder('wo_zoe_2', 'in_progress', { assigneeId: 'asg_zoe' }),
    workOrder('wo_zoe_done', 'completed', { assigneeId: 'asg_zoe' }),
    workOrder('wo_ana', 'ready', { assigneeId: 'asg_ana' }),
  ])));
  await t.load(toDataset(datasetJson(other)));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
  otherKey = await t.createKey(other, ['read', 'write']);
});
afterAll(() => t.close());

/** Runs a one-mutation document; returns its result or its failure. */
async function gql(query: string, variables: Record<string, unknown> = {}, k = key) {
  return only((await t.graphql(k, query, variables)).body);
}

const CREATE = `mutation($displayName: String!, $assigneeId: String) { createAssignee(displayName: $displayName, assigneeId: $assigneeId) { assignee { assigneeId displayName active usageCount } ${USER_ERRORS} } }`;
const RETIRE = `mutation($id: String!) { retireAssignee(assigneeId: $id) { assignee { assigneeId displayName active usageCount } ${USER_ERRORS} } }`;
const restAssignees = async (k = key, includeInactive = false) => (await t.get(`/api/v1/assignees?includeInactive=${includeInactive}`, k)).body.data.assignees;

describe('createAssignee', () => {
  it('adds an active assignee (your id, or asg_<uuid>) with no work orders; REST lists it in display-name order', async () => {
    const mine = await gql(CREATE, { displayName: '  Carla ', assigneeId: 'asg_carla' });
    expect(mine.result).toEqual({ assigneeId: 'asg_carla', displayName: 'Carla', active: true, usageCount: 0 });
    const generated = await gql(CREATE, { displayName: 'Dev' });
    expect(generated.result.assigneeId).toMatch(/^asg_[0-9a-f-]{36}$/);
    expect((await restAssignees()).map((a: any) => a.displayName)).toEqual(['Ana', 'Carla', 'Dev', 'Zoe']);
  });

  it('a new assignee can be given a work order at once', async () => {
    await gql(CREATE, { displayName: 'Eve', assigneeId: 'asg_eve' });
    const created = await gql(`mutation { createWorkOrder(input: { name: "For Eve", sourceType: empty, assigneeId: "asg_eve" }) { createdWorkOrder { workOrder { assigneeId assigneeName } } ${USER_ERRORS} } }`);
    expect(created.result.workOrder).toEqual({ assigneeId: 'asg_eve', assigneeName: 'Eve' });
    expect((await restAssignees()).find((a: any) => a.assigneeId === 'asg_eve').usageCount).toBe(1);
  });

  it('an id the shop already has is CONFLICT, retired or not: ids are never reused', async () => {
    for (const assigneeId of ['asg_ana', 'asg_bob']) {
      const body = await gql(CREATE, { displayName: 'Someone else', assigneeId });
      expect(body.failure?.code).toBe('CONFLICT');
      expect(body.failure?.message).toBe(`assignee ${assigneeId} already exists; choose another assigneeId`);
    }
    expect((await restAssignees(key, true)).find((a: any) => a.assigneeId === 'asg_bob').displayName).toBe('Bob');
  });

  it('an empty display name or an id with other characters is INVALID_INPUT naming the field', async () => {
    const body = await gql(CREATE, { displayName: ' ', assigneeId: 'has space' });
    expect(body.failure?.code).toBe('INVALID_INPUT');
    expect(body.failure?.message).toBe('displayName: must not be empty; assigneeId: must be 1–128 characters of [A-Za-z0-9._:-]');
    const long = await gql(CREATE, { displayName: 'x'.repeat(201) });
    expect(long.failure?.message).toBe('displayName: must be at most 200 characters, got 201');
  });
});

describe('retireAssignee', () => {
  it('retires: the assignee leaves the default list, keeps its work orders and their count, and they warn RETIRED_ASSIGNEE while open', async () => {
    const body = await gql(RETIRE, { id: 'asg_zoe' });
    expect(body.result).toEqual({ assigneeId: 'asg_zoe', displayName: 'Zoe', active: false, usageCount: 2 });
    expect((await restAssignees()).map((a: any) => a.assigneeId)).not.toContain('asg_zoe');
    expect((await restAssignees(key, true)).find((a: any) => a.assigneeId === 'asg_zoe')).toEqual({ assigneeId: 'asg_zoe', displayName: 'Zoe', active: false, usageCount: 2 });

    const open = (await t.get('/api/v1/work-orders/wo_zoe_1', key)).body.data;
    expect(open).toMatchObject({ assigneeId: 'asg_zoe', assigneeName: 'Zoe' });
    expect(open.warnings.map((w: any) => w.code)).toContain('RETIRED_ASSIGNEE');
    const done = (await t.get('/api/v1/work-orders/wo_zoe_done', key)).body.data;
    expect(done.assigneeName).toBe('Zoe');
    // The list still names and counts them.
    const list = (await t.get('/api/v1/work-orders?assignedTo=asg_zoe', key)).body.data;
    expect(list.total).toBe(3);
    expect(list.facets.assignee).toEqual([{ value: 'asg_zoe', label: 'Zoe', count: 3 }]);
  });

  it('a retired assignee cannot be given new work: createWorkOrder and updateWorkOrder refuse it (INVALID_INPUT)', async () => {
    await gql(RETIRE, { id: 'asg_ana' });
    const created = await gql(`mutation { createWorkOrder(input: { name: "x", sourceType: empty, assigneeId: "asg_ana" }) { createdWorkOrder { workOrderId } ${USER_ERRORS} } }`);
    expect(created.failure?.code).toBe('INVALID_INPUT');
    expect(created.failure?.message).toContain('assigneeId');
    const edit = await gql(`mutation($token: DateTime!) { updateWorkOrder(workOrderId: "wo_zoe_2", input: { expectedUpdatedAt: $token, assigneeId: "asg_ana" }) { workOrderWrite { updatedAt } ${USER_ERRORS} } }`, { token: T0 });
    expect(edit.failure?.code).toBe('INVALID_INPUT');
  });

  it('retiring a retired assignee changes nothing; an unknown one is NOT_FOUND', async () => {
    const again = await gql(RETIRE, { id: 'asg_bob' });
    expect(again.result).toEqual({ assigneeId: 'asg_bob', displayName: 'Bob', active: false, usageCount: 0 });
    const unknown = await gql(RETIRE, { id: 'asg_nope' });
    expect(unknown.failure?.code).toBe('NOT_FOUND');
  });
});

describe('assignee writes: scope and tenant', () => {
  it('a read-only key gets FORBIDDEN_SCOPE for both and nothing changes', async () => {
    const before = await restAssignees(key, true);
    expect((await gql(CREATE, { displayName: 'Nope' }, readKey)).failure?.code).toBe('FORBIDDEN_SCOPE');
    expect((await gql(RETIRE, { id: 'asg_carla' }, readKey)).failure?.code).toBe('FORBIDDEN_SCOPE');
    expect(await restAssignees(key, true)).toEqual(before);
  });

  it('another shop\'s key cannot retire this shop\'s assignee (NOT_FOUND); ids are per shop', async () => {
    const body = await gql(RETIRE, { id: 'asg_carla' }, otherKey);
    expect(body.failure?.code).toBe('NOT_FOUND');
    expect((await restAssignees()).find((a: any) => a.assigneeId === 'asg_carla').active).toBe(true);
    const same = await gql(CREATE, { displayName: 'Their Carla', assigneeId: 'asg_carla' }, otherKey);
    expect(same.result).toEqual({ assigneeId: 'asg_carla', displayName: 'Their Carla', active: true, usageCount: 0 });
    expect((await restAssignees()).find((a: any) => a.assigneeId === 'asg_carla').displayName).toBe('Carla');
  });
});
