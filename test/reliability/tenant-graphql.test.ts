import {
  isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, isUnionType, type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { rootFieldsOf, selectionOf } from '../helpers/fuzz/graphql-operations.ts';
import { B, leaksShopB, loadShopB, shopBState } from '../helpers/fuzz/tenant-shops.ts';
import { stockShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/*
 * Rule (issue 11 "Tests that keep it so"; schema/federation.ts: "another shop's id resolves to
 * null, like an unknown id"): with shop A's key, no GraphQL entry point — every root query field,
 * every mutation, `_entities` for every @key type — returns anything of shop B, and no mutation
 * changes B. Arguments are built from the schema (ids of B by argument name, valid values
 * otherwise), so a new field is covered without touching this file; a required argument the
 * tables cannot fill fails the first test.
 */

let t: TestApp;
let keyA: string;
let updatedAtB: string;
const shopA = uniqueShopId('tgql-a');
const shopB = uniqueShopId('tgql-b');
const schema = getSchema();
const roots = rootFieldsOf(schema);

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(stockShop(shopA)));
  await loadShopB(t, shopB);
  keyA = await t.createKey(shopA, ['read', 'write']);
  const keyB = await t.createKey(shopB, ['read']);
  updatedAtB = (await t.get(`/api/v1/work-orders/${B.workOrder}`, keyB)).body.data.updatedAt;
});
afterAll(() => t.close());

/** Shop B's id for an argument or input field, by name. */
const B_BY_NAME: Record<string, string> = {
  variantId: B.virtualMaterial, bomId: B.bom, assemblyId: B.assembly, ownerId: B.bom, costFactorId: B.costFactor, workOrderId: B.workOrder,
  buildRunId: B.buildRun, itemId: B.workOrderItem, reworkItemId: 'rw-x9', id: B.order, orderId: B.order, locationId: B.location,
  productionLocationId: B.location, defaultConsumptionLocationId: B.location, assigneeId: B.assignee, assignedTo: B.assignee, nodeId: B.virtualMaterial,
  replacementNodeId: B.virtualMaterial, sourceFlowId: 'flow-x9', sourceTodoId: 'todo-x9', q: 'x9', search: 'X9',
};
const B_LISTS: Record<string, string[]> = { ids: [B.order], orderIds: [B.order], locationIds: [B.location], sourceOrderIds: [B.order], vendorFilter: ['WaxCo'] };

/** A value of `type` for `name`: B's id where the name takes one, a plain valid value otherwise. Null when nothing fits. */
function valueFor(type: GraphQLInputType, name: string, depth = 0): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (B_LISTS[name]) return B_LISTS[name];
    const item = valueFor(inner.ofType, name, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (B_BY_NAME[name] !== undefined && isScalarType(inner) && ['String', 'ID'].includes(inner.name)) return B_BY_NAME[name];
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  if (isInputObjectType(inner)) {
    if (depth > 4) return undefined;
    const out: Record<string, unknown> = {};
    for (const field of Object.values(inner.getFields())) {
      const v = valueFor(field.type, field.name, depth + 1);
      if (v !== undefined) out[field.name] = v;
    }
    return out;
  }
  if (isScalarType(inner)) {
    switch (inner.name) {
      case 'String': case 'ID': return 'tenant probe';
      case 'Int': return name === 'offset' ? 0 : 1;
      case 'Float': case 'Decimal': return 1;
      case 'Boolean': return name === 'archived';
      case 'DateTime': return name === 'expectedUpdatedAt' ? '@b-updated-at' : '2026-11-02T10:00:00.000Z';
      case 'Date': return '2026-11-12';
      case '_Any': return undefined;
      default: return undefined;
    }
  }
  return undefined;
}

/**
 * The id a create mutation gives its new object is in A's own namespace (ids are per shop): it gets an
 * id of A's, not B's, so that the mutations after it that name B's objects do not find A's new one.
 */
const OWN_IDS: Record<string, Record<string, string>> = {
  createAssignee: { assigneeId: 'asg_own_probe' }, createCostFactor: { costFactorId: 'CF-5550' }, createBom: { bomId: 'BOM-5550001' },
  createAssemblyBill: { assemblyId: 'ASM-5550' },
};

function ownIds(value: unknown, own: Record<string, string>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, own[k] ?? ownIds(v, own)]));
}

function operationFor(root: (typeof roots)[number]): { query: string; variables: Record<string, unknown>; namesB: boolean } {
  const declared: string[] = [];
  const passed: string[] = [];
  const variables: Record<string, unknown> = {};
  let namesB = false;
  for (const arg of root.field.args) {
    const own = OWN_IDS[root.name] ?? {};
    const value = own[arg.name] ?? ownIds(valueFor(arg.type, arg.name), own);
    if (value === undefined) {
      if (isNonNullType(arg.type)) throw new Error(`${root.kind} ${root.name}: no value for required argument ${arg.name} — add it to B_BY_NAME`);
      continue;
    }
    if (JSON.stringify(value).match(/X9|x9|"99\d+"|"990\d"|"90[1-3]"|BOM-99/)) namesB = true;
    declared.push(`$${arg.name}: ${String(arg.type)}`);
    passed.push(`${arg.name}: $${arg.name}`);
    variables[arg.name] = value;
  }
  const query = `${root.kind}${declared.length ? `(${declared.join(', ')})` : ''} { ${root.name}${passed.length ? `(${passed.join(', ')})` : ''} ${selectionOf(root.field.type)} }`;
  return { query, variables: JSON.parse(JSON.stringify(variables).replaceAll('@b-updated-at', updatedAtB)), namesB };
}

/** Response text without the parts that echo what the client sent (messages naming the unknown id). */
const withoutEchoes = (body: unknown) => JSON.stringify(body).replace(/"(message|field|id)":"(?:[^"\\]|\\.)*"/g, '');

describe('tenant matrix over every GraphQL entry point (shop A\'s key, shop B\'s ids)', () => {
  it('every root field gets arguments from the tables (a new field is covered without touching this file)', () => {
    for (const root of roots.filter((r) => r.name !== '_entities')) expect(() => operationFor(root)).not.toThrow();
    expect(roots.filter((r) => r.kind === 'mutation').length).toBeGreaterThan(25);
  });

  it('every root query field: B ids find nothing (NOT_FOUND, null or empty) and nothing of B is returned', async () => {
    const failures: string[] = [];
    for (const root of roots.filter((r) => r.kind === 'query' && r.name !== '_entities')) {
      const op = operationFor(root);
      const res = await t.graphql(keyA, op.query, op.variables);
      const leak = leaksShopB(withoutEchoes(res.body), shopB);
      if (leak) failures.push(`${root.name} shows B (${leak}): ${JSON.stringify(res.body).slice(0, 300)}`);
      const codes = (res.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
      if (codes.some((c: string) => !['NOT_FOUND', 'INVALID_INPUT'].includes(c))) failures.push(`${root.name} → ${res.status} ${codes.join(',')}: ${JSON.stringify(res.body.errors).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  });

  it('_entities: a representation of B for every @key type resolves to null', async () => {
    const entity = schema.getType('_Entity');
    if (!isUnionType(entity)) throw new Error('_Entity is not a union');
    const keys: Record<string, [string, string]> = {
      RawMaterial: ['variantId', B.virtualMaterial], Bom: ['bomId', B.bom], AssemblyBill: ['assemblyId', B.assembly],
      WorkOrder: ['workOrderId', B.workOrder], Location: ['locationId', B.location], Order: ['orderId', B.order],
    };
    const types = entity.getTypes().map((type) => type.name);
    expect(types.filter((name) => !keys[name]), 'every @key type needs a B id here').toEqual([]);
    const representations = types.flatMap((name) => [{ __typename: name, [keys[name]![0]]: keys[name]![1] }, ...(name === 'RawMaterial' ? [{ __typename: name, variantId: '99001' }] : [])]);
    const res = await t.graphql(keyA, 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', { r: representations });
    expect(res.status).toBe(200);
    expect(res.body.errors ?? []).toEqual([]);
    expect(res.body.data._entities).toEqual(representations.map(() => null));
    // The control: A's own ids resolve (so null above means "not A's", not "broken").
    const own = await t.graphql(keyA, 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', { r: [{ __typename: 'Bom', bomId: 'BOM-1001' }] });
    expect(own.body.data._entities).toEqual([{ __typename: 'Bom' }]);
  });

  it('every mutation naming B\'s ids is refused and changes nothing in B; nothing of B is returned', async () => {
    const before = await shopBState(t, shopB);
    const failures: string[] = [];
    let sent = 0;
    for (const root of roots.filter((r) => r.kind === 'mutation')) {
      const op = operationFor(root);
      const res = await t.graphql(keyA, op.query, op.variables);
      sent++;
      const leak = leaksShopB(withoutEchoes(res.body), shopB);
      if (leak) failures.push(`${root.name} shows B (${leak}): ${JSON.stringify(res.body).slice(0, 300)}`);
      const codes: string[] = (res.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? '');
      if (codes.includes('INTERNAL') || res.status >= 500) failures.push(`${root.name} → ${res.status} ${codes.join(',')}`);
      // A mutation that names B's ids must not succeed: it would change B or link A's data to B's.
      // Its payload holds the result, or null with the user error saying why.
      const payload = res.body.data?.[root.name];
      const result = payload && Object.entries(payload).find(([k]) => k !== 'userErrors' && k !== '__typename')?.[1];
      // The shop has not opted in to metafield writes: the sync answers written 0 whatever the ids.
      const harmless = root.name === 'syncOrderMaterialRequirements' && result?.written === 0;
      if (op.namesB && result && !harmless) failures.push(`${root.name} naming B succeeded: ${JSON.stringify(res.body.data).slice(0, 300)} vars ${JSON.stringify(op.variables).slice(0, 300)}`);
    }
    console.log(`tenant GraphQL: ${sent} mutations sent with B's ids, ${failures.length} failures`);
    expect(failures).toEqual([]);
    expect(await shopBState(t, shopB)).toBe(before);
  });
});
