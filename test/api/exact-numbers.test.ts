import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Exact } from '../../src/kernel/numbers/index.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Exact numbers end to end (docs/api-conventions.md, "Numbers"): every figure the API accepts — up
// to 99999999999999.999999, down to 0.000001, negative where allowed — comes back digit for digit,
// in REST (JSON numbers written from the exact decimal) and GraphQL (Decimal strings). Bodies are
// sent and answers compared as TEXT: JSON.parse in the test would round them to a double.

const LARGEST = '99999999999999.999999';
const SMALLEST = '0.000001';

let t: TestApp;
let writeKey: string;
let workOrderKey: string;
const shop = uniqueShopId('exact');
const workOrders = uniqueShopId('exact-wo');

beforeAll(async () => {
  t = await createTestApp();
  // BOM-1001 is half a unit of VMAT-VAR-0002: its cost roll-up is a derived figure (×0.5, rounded half-up at 6 places).
  await t.load(toDataset(materialShop(shop, {
    boms: [{ bomId: 'BOM-1001', name: 'Large candle', status: 'active', variantId: '44100',
      rawMaterialReferences: [{ nodeId: 'VMAT-VAR-0002', quantity: 0.5 }], subAssemblyReferences: [], costFactorReferences: [] }],
    locationRules: [],
  })));
  writeKey = await t.createKey(shop, ['read', 'write']);
  await t.load(toDataset(workOrderShop(workOrders, [workOrder('wo_money', 'ready')])));
  workOrderKey = await t.createKey(workOrders, ['read', 'write']);
});
afterAll(() => t?.close());

/** PATCHes raw JSON text (numbers as written, not through a double). */
const patchText = (url: string, body: string) =>
  t.request({ method: 'PATCH', url: `/api/v1${url}`, key: writeKey, payload: body, headers: { 'content-type': 'application/json' } });
const getText = async (url: string) => {
  const res = await t.request({ method: 'GET', url: `/api/v1${url}`, key: writeKey });
  expect(res.statusCode).toBe(200);
  return res.body;
};
const graphqlText = async (query: string, variablesText = '{}', key = writeKey) => {
  const res = await t.request({
    method: 'POST', url: '/graphql', key, headers: { 'content-type': 'application/json' },
    payload: `{"query":${JSON.stringify(query)},"variables":${variablesText}}`,
  });
  expect(res.statusCode).toBe(200);
  expect(res.body).not.toContain('"errors"');
  return res.body;
};
const fieldsOf = (res: { json(): any }) => (res.json().errors as { field: string }[]).map((e) => e.field);

describe(`exact numbers end to end (${databaseLabel})`, () => {
  it('money and quantities of a material: the largest and smallest values come back digit for digit in REST and GraphQL', async () => {
    const res = await patchText('/raw-materials/VMAT-VAR-0003',
      `{"unitCost":${LARGEST},"unitPrice":${SMALLEST},"weightValue":12345678901234.567891,"inventoryQuantity":${LARGEST}}`);
    expect(res.statusCode).toBe(200);
    for (const body of [res.body, await getText('/raw-materials/VMAT-VAR-0003')]) {
      expect(body).toContain(`"unitCost":${LARGEST},"unitPrice":${SMALLEST},"inventoryQuantity":${LARGEST}`);
      expect(body).toContain('"weightValue":12345678901234.567891');
    }
    const gql = await graphqlText('{ rawMaterial(variantId: "VMAT-VAR-0003") { unitCost unitPrice inventoryQuantity weightValue } }');
    expect(gql).toContain(`{"unitCost":"${LARGEST}","unitPrice":"${SMALLEST}","inventoryQuantity":"${LARGEST}","weightValue":"12345678901234.567891"}`);
  });

  it('integral and short values keep their shortest form (2 is 2, 1.50 is 1.5): what clients read before', async () => {
    const res = await patchText('/raw-materials/VMAT-VAR-0003', '{"unitCost":2,"unitPrice":1.50,"weightValue":0.000001}');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('"unitCost":2,"unitPrice":1.5,');
    expect(res.body).toContain('"weightValue":0.000001,');
  });

  it('a work order\'s labour costs (money of another route) come back digit for digit, and so does their exact sum', async () => {
    const res = await t.request({
      method: 'PATCH', url: '/api/v1/work-orders/wo_money', key: workOrderKey, headers: { 'content-type': 'application/json' },
      payload: `{"expectedUpdatedAt":"${T0}","plannedLaborCost":${LARGEST},"actualLaborCost":${SMALLEST}}`,
    });
    expect(res.statusCode).toBe(200);
    const read = await t.request({ method: 'GET', url: '/api/v1/work-orders/wo_money', key: workOrderKey });
    expect(read.body).toContain(`"plannedLaborCost":${LARGEST},"actualLaborCost":${SMALLEST}`);
    const cost = /"cost":\{"materialCost":([-\d.]+),"pickedMaterialCost":[-\d.]+,"plannedLaborCost":([-\d.]+),"actualLaborCost":([-\d.]+),"plannedTotalCost":([-\d.]+)/.exec(read.body);
    expect(cost, read.body.slice(0, 2000)).not.toBeNull();
    expect(cost![2]).toBe(LARGEST);
    expect(await graphqlText('{ workOrder(workOrderId: "wo_money") { plannedLaborCost actualLaborCost } }', '{}', workOrderKey))
      .toContain(`{"plannedLaborCost":"${LARGEST}","actualLaborCost":"${SMALLEST}"}`);
    // materialCost + 99999999999999.999999, summed exactly: more than 20 significant digits past 10^14.
    expect(Exact.from(cost![4]!).eq(Exact.from(cost![1]!).plus(LARGEST))).toBe(true);
  });

  it('a level set to the largest value and moved by a negative delta: every figure of the batch is exact', async () => {
    const set = await patchText('/raw-materials/VMAT-VAR-0003/inventory', `{"updates":[{"locationId":"101","absolute":${LARGEST}}]}`);
    expect(set.statusCode).toBe(200);
    expect(set.body).toContain(`"available":${LARGEST}`);
    const moved = await patchText('/raw-materials/VMAT-VAR-0003/inventory', '{"updates":[{"locationId":"101","delta":-99999999999999.999998}]}');
    expect(moved.statusCode).toBe(200);
    expect(moved.body).toContain(`"previousAvailable":${LARGEST},"available":${SMALLEST},"requestedDelta":-99999999999999.999998,"appliedDelta":-99999999999999.999998`);
    expect(await getText('/raw-materials/VMAT-VAR-0003/inventory')).toContain(`"available":${SMALLEST}`);
  });

  it('GraphQL Decimal inputs are exact as strings and as JSON numbers in the variables', async () => {
    const mutation = 'mutation($input: RawMaterialPatchInput!) { updateRawMaterial(variantId: "VMAT-VAR-0002", input: $input) { rawMaterial { unitCost unitPrice } } }';
    const asNumbers = await graphqlText(mutation, `{"input":{"unitCost":${LARGEST},"unitPrice":${SMALLEST}}}`);
    expect(asNumbers).toContain(`{"unitCost":"${LARGEST}","unitPrice":"${SMALLEST}"}`);
    const asStrings = await graphqlText(mutation, '{"input":{"unitCost":"12345678901234.567891","unitPrice":"99999999999999.999998"}}');
    expect(asStrings).toContain('{"unitCost":"12345678901234.567891","unitPrice":"99999999999999.999998"}');
    expect(await getText('/raw-materials/VMAT-VAR-0002')).toContain('"unitCost":12345678901234.567891,"unitPrice":99999999999999.999998');
  });

  it('a derived figure (a cost roll-up) is exact and rounded half-up at 6 places only when written', async () => {
    // 0.5 × 12345678901234.567891 = 6172839450617.2839455 → 6172839450617.283946 (a double would say 6172839450617.284).
    expect((await patchText('/raw-materials/VMAT-VAR-0002', '{"unitCost":12345678901234.567891}')).statusCode).toBe(200);
    expect(await getText('/bills-of-materials/BOM-1001')).toContain('"totalRawMaterialCost":6172839450617.283946');
    expect(await graphqlText('{ bom(bomId: "BOM-1001") { totalRawMaterialCost } }')).toContain('"totalRawMaterialCost":"6172839450617.283946"');
    // 0.5 × 0.000001 = 0.0000005 → 0.000001 (half-up).
    expect((await patchText('/raw-materials/VMAT-VAR-0002', `{"unitCost":${SMALLEST}}`)).statusCode).toBe(200);
    expect(await getText('/bills-of-materials/BOM-1001')).toContain('"totalRawMaterialCost":0.000001');
  });

  it('a schema bound judges the exact value: a build-run quantity just below 10^14 passes validation, 10^14 and above do not', async () => {
    const run = (quantity: string) => patchText('/work-orders/WO-NONE/build-runs',
      `{"expectedUpdatedAt":"2026-01-01T00:00:00.000Z","buildRunId":"run-1","items":[{"itemId":"item-1","quantity":${quantity}}]}`);
    // Past validation, the unknown work order answers: 404, not a 400 about the quantity.
    const passed = await run(LARGEST);
    expect(passed.statusCode).toBe(404);
    expect(passed.json().code).toBe('NOT_FOUND');
    for (const quantity of ['100000000000000', '1e14', '100000000000000.000001', '0', '-0.000001', '0.0000001']) {
      const res = await run(quantity);
      expect(res.statusCode, quantity).toBe(400);
      expect(fieldsOf(res), quantity).toEqual(['items[0].quantity']);
    }
  });

  it.each([
    ['7 fractional digits', '0.0000001', /fractional digits/],
    ['7 fractional digits just below 10^14 (a double rounds it to 10^14)', '99999999999999.9999999', /fractional digits/],
    ['10^14', '100000000000000', /10\^14/],
    ['10^14 written with an exponent', '1e14', /10\^14/],
    ['just above 10^14', '100000000000000.000001', /10\^14/],
  ])('%s is 400 INVALID_INPUT naming the field, and nothing changes', async (_label, value, message) => {
    const before = await getText('/raw-materials/VMAT-VAR-0001');
    for (const [url, body, field] of [
      ['/raw-materials/VMAT-VAR-0001', `{"unitCost":${value}}`, 'unitCost'],
      ['/raw-materials/VMAT-VAR-0001', `{"inventoryQuantity":${value}}`, 'inventoryQuantity'],
      ['/raw-materials/VMAT-VAR-0001/inventory', `{"updates":[{"locationId":"101","delta":-${value}}]}`, 'updates[0].delta'],
    ] as const) {
      const res = await patchText(url, body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(fieldsOf(res), body).toEqual([field]);
      expect(res.json().errors[0].message, body).toMatch(message);
    }
    const after = await getText('/raw-materials/VMAT-VAR-0001');
    expect(after.replace(/"requestId":"[^"]*"/, '')).toBe(before.replace(/"requestId":"[^"]*"/, ''));
  });
});
