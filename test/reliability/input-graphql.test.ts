import { inlineSchemaRefs } from '../../rest-facade/openapi-finish.ts';
import { getNamedType, getNullableType, isListType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { inputLimitsOf, schemaInputs, stringKindOf } from '../../schema/input-limits.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../src/kernel/limits.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule: no 5xx from client input on /graphql. Every String/ID argument and input field has a
// documented maximum length and every list argument a maximum size, stated in its description and
// enforced before execution on literals and variables alike; NUL and lone surrogates are refused in
// any argument. The error is INVALID_INPUT naming the argument in `extensions.errors`.

let t: TestApp;
let key: string;
const VIRTUAL = 'VMAT-VAR-0002';

beforeAll(async () => {
  t = await createTestApp();
  const shop = uniqueShopId('input-gql');
  await t.load(toDataset(materialShop(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(async () => t.close());

function expectRefused(res: { status: number; body: any }, field: string, message?: string) {
  expect(res.status).toBeLessThan(500);
  expect(res.body.data).toBeNull();
  const error = res.body.errors[0];
  expect(error.extensions.code).toBe('INVALID_INPUT');
  expect(error.extensions.errors.map((e: { field: string }) => e.field)).toContain(field);
  if (message) expect(error.message).toContain(message);
}

const SEARCH = 'query($s: String) { rawMaterials(search: $s) { totalCount } }';
const UPDATE = 'mutation($id: ID!, $input: RawMaterialPatchInput!) { updateRawMaterial(variantId: $id, input: $input) { rawMaterial { productName } userErrors { code message } } }';
const ADJUST = 'mutation($id: ID!, $u: [RawMaterialInventoryUpdateInput!]!) { adjustRawMaterialInventory(variantId: $id, updates: $u) { rawMaterialInventoryBatch { okCount } userErrors { code message } } }';

describe(`NUL and lone surrogates in arguments (${databaseLabel})`, () => {
  it('a NUL in a variable is INVALID_INPUT naming the argument (search), never a driver error', async () => {
    expectRefused(await t.graphql(key, SEARCH, { s: 'a\u0000' }), 'search', 'NUL');
  });

  it('a NUL written as \\u0000 in a literal is refused the same way', async () => {
    expectRefused(await t.graphql(key, '{ rawMaterials(search: "a\\u0000") { totalCount } }'), 'search');
    expectRefused(await t.graphql(key, '{ rawMaterial(variantId: "\\u0000") { productName } }'), 'variantId');
  });

  it('deep in an input object or a list, named as the mutation\'s rules name them: productName (a field of input), updates[1].variantId', async () => {
    expectRefused(await t.graphql(key, UPDATE, { id: VIRTUAL, input: { productName: 'x\u0000' } }), 'productName');
    expectRefused(await t.graphql(key, ADJUST, { id: VIRTUAL, u: [{ locationId: '101', delta: '1' }, { locationId: '101', delta: '1', variantId: `${VIRTUAL}\u0000` }] }), 'updates[1].variantId');
  });

  it('a lone surrogate is refused; nothing was written', async () => {
    expectRefused(await t.graphql(key, UPDATE, { id: VIRTUAL, input: { productName: 'a\ud800' } }), 'productName', 'lone surrogate');
    const res = await t.graphql(key, `{ rawMaterial(variantId: "${VIRTUAL}") { productName } }`);
    expect(res.body.data.rawMaterial.productName).toBe('Wick sticker');
  });

  it('inside _entities representations (_Any)', async () => {
    const res = await t.graphql(key, 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', { r: [{ __typename: 'RawMaterial', variantId: 'x\u0000' }] });
    expectRefused(res, 'representations[0].variantId');
  });

  it('a batch refuses only the bad operation', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', key, payload: [{ query: SEARCH, variables: { s: null } }, { query: SEARCH, variables: { s: '\u0000' } }] as unknown as object });
    expect(res.statusCode).toBe(200);
    const [ok, bad] = res.json();
    expect(ok.data.rawMaterials.totalCount).toBeGreaterThan(0);
    expect(bad.errors[0].extensions.code).toBe('INVALID_INPUT');
  });
});

describe('maximum lengths and list sizes', () => {
  it(`a ${STRING_LIMITS.name + 1}-character productName is refused (2,800 was a btree index error); ${STRING_LIMITS.name} is written`, async () => {
    expectRefused(await t.graphql(key, UPDATE, { id: VIRTUAL, input: { productName: 'p'.repeat(2_800) } }), 'productName', `at most ${STRING_LIMITS.name} characters`);
    expectRefused(await t.graphql(key, UPDATE, { id: VIRTUAL, input: { productName: 'p'.repeat(STRING_LIMITS.name + 1) } }), 'productName');
    const ok = await t.graphql(key, UPDATE, { id: VIRTUAL, input: { productName: '😀'.repeat(STRING_LIMITS.name) } });
    expect(ok.body.data.updateRawMaterial.rawMaterial.productName).toBe('😀'.repeat(STRING_LIMITS.name));
  });

  it(`${LIST_LIMITS.ids + 1} locationIds (100,000 ran before) are refused naming locationIds`, async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => String(i));
    // 100,000 is refused before it runs, by the cost limit (which counts ids) or by this one.
    const huge = await t.graphql(key, 'query($l: [ID!]) { rawMaterialInventory(variantId: "44001", locationIds: $l) { totalAvailable } }', { l: ids });
    expect(huge.status).toBeLessThan(500);
    expect(huge.body.data).toBeNull();
    expect(['INVALID_INPUT', 'GRAPHQL_QUERY_TOO_COMPLEX']).toContain(huge.body.errors[0].extensions.code);
    expectRefused(await t.graphql(key, 'query($l: [ID!]) { rawMaterialInventory(variantId: "44001", locationIds: $l) { totalAvailable } }', { l: ids.slice(0, LIST_LIMITS.ids + 1) }), 'locationIds', `at most ${LIST_LIMITS.ids} items`);
    const fits = await t.graphql(key, 'query($l: [ID!]) { rawMaterialInventory(variantId: "44001", locationIds: $l) { totalAvailable } }', { l: ids.slice(0, LIST_LIMITS.ids) });
    expect(fits.body.errors).toBeUndefined();
  });

  it(`orderBomBreakdowns takes at most ${LIST_LIMITS.orderIds} ids, as GET /order-bom-breakdown`, async () => {
    const ids = Array.from({ length: LIST_LIMITS.orderIds + 1 }, (_, i) => `"${i + 1}"`).join(' ');
    expectRefused(await t.graphql(key, `{ orderBomBreakdowns(ids: [${ids}]) { notFound } }`), 'ids');
  });

  it('a nested field\'s list argument is checked too (RawMaterial.levels(locationIds:))', async () => {
    const ids = Array.from({ length: LIST_LIMITS.ids + 1 }, (_, i) => `"${i}"`).join(',');
    expectRefused(await t.graphql(key, `{ rawMaterial(variantId: "44001") { levels(locationIds: [${ids}]) { available } } }`), 'locationIds');
  });

  it('an argument inside a fragment is checked', async () => {
    expectRefused(await t.graphql(key, `query { ...F } fragment F on Query { rawMaterials(search: "${'s'.repeat(STRING_LIMITS.search + 1)}") { totalCount } }`), 'search');
  });
});

describe('the limits table covers the whole schema (new arguments cannot forget it)', () => {
  const inputs = [...schemaInputs(getSchema())];

  it.each(inputs.filter(({ input }) => ['String', 'ID'].includes(getNamedType(input.type).name)).map(({ coordinate, input }) => [coordinate, input] as const))(
    '%s has a string kind, a maximum and says it', (coordinate, input) => {
      expect(stringKindOf(coordinate, input.name, input.type), `${coordinate}: add its name to STRING_KIND_BY_NAME in schema/input-limits.ts`).toBeDefined();
      const { maxLength } = inputLimitsOf(input);
      expect(maxLength).toBeGreaterThan(0);
      expect(input.description).toContain(`at most ${maxLength!.toLocaleString('en-US')} characters`);
    });

  it.each(inputs.filter(({ input }) => isListType(getNullableType(input.type))).map(({ coordinate, input }) => [coordinate, input] as const))(
    '%s has a maximum number of items and says it', (_coordinate, input) => {
      const { maxItems } = inputLimitsOf(input);
      expect(maxItems).toBeGreaterThan(0);
      expect(input.description).toContain(`at most ${maxItems} items`);
    });

  it('REST and GraphQL state the same numbers for the same fields', async () => {
    const doc = t.app.swagger() as any;
    const body = (inlineSchemaRefs(doc.paths['/api/v1/raw-materials/{variantId}'].patch.requestBody.content['application/json'].schema, doc) as any).properties;
    const patchInput = getSchema().getType('RawMaterialPatchInput') as any;
    for (const field of ['productName', 'variantName', 'sku', 'unit', 'vendor', 'specifications', 'imageUrl', 'weightUnitId', 'productType', 'productCategory']) {
      expect(body[field].maxLength, field).toBe(inputLimitsOf(patchInput.getFields()[field]).maxLength);
    }
    const query = getSchema().getQueryType()!.getFields();
    // A list parameter is one value or an array (generated clients accept both): the limit is the array's.
    const listOf = (schema: any) => schema.anyOf?.find((s: any) => s.type === 'array') ?? schema;
    const inv = listOf(doc.paths['/api/v1/raw-materials/{variantId}/inventory'].get.parameters.find((p: any) => p.name === 'locationIds').schema);
    expect(inv.maxItems).toBe(inputLimitsOf(query.rawMaterialInventory!.args.find((a) => a.name === 'locationIds')!).maxItems);
    const ids = listOf(doc.paths['/api/v1/order-bom-breakdown'].get.parameters.find((p: any) => p.name === 'ids').schema);
    expect(ids.maxItems).toBe(inputLimitsOf(query.orderBomBreakdowns!.args.find((a) => a.name === 'ids')!).maxItems);
    const search = doc.paths['/api/v1/raw-materials'].get.parameters.find((p: any) => p.name === 'search').schema;
    expect(search.maxLength).toBe(inputLimitsOf(query.rawMaterials!.args.find((a) => a.name === 'search')!).maxLength);
  });
});
