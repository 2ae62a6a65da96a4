import { getNamedType, getNullableType, isListType, isNonNullType, isObjectType, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadFieldsOf } from '../../rest-facade/payloads.ts';
import { getSchema } from '../../schema/index.ts';
import { operationCost } from '../../src/kernel/graphql-limits.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

// Rule (issue 18, item 3): a mutation's failure is data. Every mutation answers a nullable
// `<Mutation>Payload { <result>, userErrors }`, so one failed field of a document never hides
// another field's committed write; REST turns a user error back into the problem it always gave.

let t: TestApp;
let key: string;
const shop = uniqueShopId('gql-payloads');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(shop, [workOrder('wo_draft_empty', 'draft', { items: [] }), workOrder('wo_open', 'in_progress')])));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const factors = async () => (await t.graphql(key, '{ costFactors { costFactorId unitCost } }')).body.data.costFactors;

describe('the schema: one payload shape for every mutation', () => {
  const mutation = getSchema().getMutationType()!;

  it('every mutation field is nullable and answers <Mutation>Payload: one nullable result field and userErrors: [UserError!]!', () => {
    const fields = Object.values(mutation.getFields());
    expect(fields.length).toBeGreaterThan(25);
    for (const field of fields) {
      const name = `${field.name[0]!.toUpperCase()}${field.name.slice(1)}Payload`;
      expect(isNonNullType(field.type), `${field.name} is nullable`).toBe(false);
      const payload = getNullableType(field.type);
      expect(isObjectType(payload) && payload.name, field.name).toBe(name);
      if (!isObjectType(payload)) continue;
      const { userErrors, ...rest } = payload.getFields();
      expect(String(userErrors?.type), name).toBe('[UserError!]!');
      expect(Object.keys(rest), `${name} has one result field`).toHaveLength(1);
      const result = Object.values(rest)[0]!;
      expect(isNonNullType(result.type) || isListType(result.type), `${name}.${result.name} is a nullable object`).toBe(false);
      expect(isObjectType(getNamedType(result.type)), `${name}.${result.name}`).toBe(true);
    }
  });

  it('a payload adds nothing to an operation\'s cost (REST\'s rate-limit charges stay as they were)', () => {
    const cost = (query: string) => operationCost(getSchema(), parse(query), {});
    const bare = cost('mutation { createCostFactor(input: { name: "x", kind: labor, unitCost: "1" }) { costFactor { costFactorId name } } }');
    expect(bare).toBe(3);
    expect(cost(`mutation { createCostFactor(input: { name: "x", kind: labor, unitCost: "1" }) { costFactor { costFactorId name } ${USER_ERRORS} } }`)).toBe(bare);
  });
});

describe('a document with several mutation fields', () => {
  it('when the second fails, data holds the first\'s committed result and the second\'s userErrors; no GraphQL error', async () => {
    const before = await factors();
    const res = await t.graphql(key, `mutation {
      createCostFactor(input: { name: "Kiln", kind: machine, unit: "hour", unitCost: "12.5" }) { costFactor { costFactorId unitCost } ${USER_ERRORS} }
      updateCostFactor(costFactorId: "CF-404", input: { unitCost: "20" }) { costFactor { costFactorId unitCost } ${USER_ERRORS} }
    }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createCostFactor;
    expect(created).toEqual({ costFactor: { costFactorId: expect.stringMatching(/^CF-\d+$/), unitCost: '12.5' }, userErrors: [] });
    expect(res.body.data.updateCostFactor).toEqual({ costFactor: null, userErrors: [{
      code: 'NOT_FOUND', message: 'cost factor CF-404 not found', field: null, errors: [], blockers: [], missing: [{ kind: 'cost factor', id: 'CF-404' }],
    }] });
    // The create committed: a later read has it, and nothing else changed.
    expect(await factors()).toEqual([...before, created.costFactor].sort((a, b) => a.costFactorId.localeCompare(b.costFactorId, 'en', { numeric: true })));
  });

  it('when the first fails, the second still runs and commits', async () => {
    const res = await t.graphql(key, `mutation {
      bad: createCostFactor(input: { name: "Negative", kind: labor, unitCost: "-1" }) { costFactor { costFactorId } ${USER_ERRORS} }
      good: createCostFactor(input: { name: "Oven", kind: machine, unitCost: "3" }) { costFactor { costFactorId name } ${USER_ERRORS} }
    }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.bad.costFactor).toBeNull();
    expect(res.body.data.bad.userErrors.map((e: { code: string }) => e.code)).toEqual(['INVALID_INPUT']);
    expect(res.body.data.good).toMatchObject({ costFactor: { name: 'Oven' }, userErrors: [] });
    expect((await factors()).map((f: { costFactorId: string }) => f.costFactorId)).toContain(res.body.data.good.costFactor.costFactorId);
  });
});

describe('what a user error says', () => {
  it('field is the path from the mutation\'s arguments: inside input, or an argument itself; errors name every field as REST does', async () => {
    const created = await t.graphql(key, `mutation { createCostFactor(input: { name: " ", kind: labor, unitCost: "-1" }) { costFactor { costFactorId } ${USER_ERRORS} } }`);
    expect(created.body.data.createCostFactor.userErrors).toEqual([{
      code: 'INVALID_INPUT', message: 'name: must not be empty; unitCost: must be between 0 and 10^14', field: ['input', 'name'],
      errors: [{ field: 'name', message: 'must not be empty' }, { field: 'unitCost', message: 'must be between 0 and 10^14' }], blockers: [], missing: [],
    }]);
    const rework = await t.graphql(key, `mutation { addReworkItem(workOrderId: "wo_open", expectedUpdatedAt: "${T0}", description: "Re-pour", quantity: "0") {
      workOrderRecordWrite { recordId } ${USER_ERRORS} } }`);
    expect(rework.body.data.addReworkItem.userErrors[0]).toMatchObject({ code: 'INVALID_INPUT', field: ['quantity'] });
  });

  it('a blocked move is CONFLICT with its blockers; a stale token is CONFLICT; nothing is written', async () => {
    const move = (at: string) => t.graphql(key, `mutation($at: DateTime!) { transitionWorkOrder(workOrderId: "wo_draft_empty", expectedUpdatedAt: $at, to: ready) {
      workOrderTransition { status } ${USER_ERRORS} } }`, { at });
    const blocked = (await move(T0)).body.data.transitionWorkOrder.userErrors[0];
    expect(blocked).toMatchObject({ code: 'CONFLICT', field: null, blockers: [{ code: 'NO_ITEMS', message: expect.any(String) }] });
    const stale = (await move('2026-01-01T00:00:00.000Z')).body.data.transitionWorkOrder.userErrors[0];
    expect(stale).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('was changed since expectedUpdatedAt') });
    const read = await t.graphql(key, '{ workOrder(workOrderId: "wo_draft_empty") { status updatedAt } }');
    expect(read.body.data.workOrder).toEqual({ status: 'draft', updatedAt: T0 });
  });
});

describe('REST runs the same mutations and answers a user error as the problem it describes', () => {
  it('a refused transition: REST\'s 409 problem has the user error\'s code, message (as detail) and blockers', async () => {
    const graph = (await t.graphql(key, `mutation { transitionWorkOrder(workOrderId: "wo_draft_empty", expectedUpdatedAt: "${T0}", to: ready) {
      workOrderTransition { status } ${USER_ERRORS} } }`)).body.data.transitionWorkOrder.userErrors[0];
    const rest = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_draft_empty/transition', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: T0, to: 'ready' } });
    expect(rest.statusCode).toBe(409);
    expect(rest.json()).toMatchObject({ status: 409, code: graph.code, detail: graph.message, blockers: graph.blockers });
    expect(rest.json()).not.toHaveProperty('errors');
    expect(rest.json()).not.toHaveProperty('missing');
  });

  it('a field error: REST\'s 400 problem has the user error\'s message and errors; an unknown reference is 404 with its missing', async () => {
    const header = (input: Record<string, unknown>) => t.graphql(key, `mutation($input: WorkOrderHeaderInput!) { updateWorkOrder(workOrderId: "wo_open", input: $input) {
      workOrderWrite { updatedAt } ${USER_ERRORS} } }`, { input: { expectedUpdatedAt: T0, ...input } });
    const patch = (body: Record<string, unknown>) => t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_open', key,
      headers: { 'content-type': 'application/json' }, payload: { expectedUpdatedAt: T0, ...body } });
    // Blank after trimming: past REST's body schema, refused by the rule both share.
    const invalid = (await header({ name: '   ' })).body.data.updateWorkOrder.userErrors[0];
    expect(invalid).toMatchObject({ code: 'INVALID_INPUT', field: ['input', 'name'] });
    const badRest = await patch({ name: '   ' });
    expect(badRest.statusCode).toBe(400);
    expect(badRest.json()).toMatchObject({ code: 'INVALID_INPUT', detail: invalid.message, errors: invalid.errors });
    const unknown = (await header({ productionLocationId: '999' })).body.data.updateWorkOrder.userErrors[0];
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', missing: [{ kind: 'location', id: '999' }] });
    const unknownRest = await patch({ productionLocationId: '999' });
    expect(unknownRest.statusCode).toBe(404);
    expect(unknownRest.json()).toMatchObject({ code: 'NOT_FOUND', detail: unknown.message, missing: unknown.missing });
  });

  it('a stored mutation that leaves a user-error detail unselected fails at start-up, so no failure passes REST unseen', () => {
    const document = (userErrors: string) => parse(`mutation($id: ID!, $input: WorkOrderHeaderInput!) {
      updateWorkOrder(workOrderId: $id, input: $input) { workOrderWrite { updatedAt } ${userErrors} } }`);
    expect(payloadFieldsOf(getSchema(), document(USER_ERRORS), 'full.graphql')).toEqual([{ key: 'updateWorkOrder', result: 'workOrderWrite' }]);
    expect(() => payloadFieldsOf(getSchema(), document('userErrors { code message errors { field message } }'), 'partial.graphql'))
      .toThrow(/partial\.graphql: updateWorkOrder must select its one result field and userErrors/);
    expect(() => payloadFieldsOf(getSchema(), document(''), 'none.graphql')).toThrow(/none\.graphql/);
  });
});
