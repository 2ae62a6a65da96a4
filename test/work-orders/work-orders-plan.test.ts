import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset } from '../../src/dataset/export.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Issue 30 part 1, "the enhanced plan": starting a build run is an enhanced-plan operation. A shop
// of the standard plan is refused with 403 PLAN_REQUIRED, naming the plan needed and the shop's
// plan, on REST and GraphQL alike, and nothing moves; a shop without a plan in its dataset is
// enhanced; the OpenAPI operation says so with `x-plan: enhanced`.

let t: TestApp;
const standard = uniqueShopId('plan-std');
const enhanced = uniqueShopId('plan-enh');
const unnamed = uniqueShopId('plan-none');
let standardKey: string;
let enhancedKey: string;
let unnamedKey: string;

const items = [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity: 10, completedQuantity: 0 }];
const shopOf = (id: string, plan?: string) => ({
  shop: { id, name: `Plan ${plan ?? 'unnamed'}`, ...(plan ? { plan } : {}), settings: { allowNegativeInventory: false, materialRequirementsMetafield: false } },
});

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(workOrderShop(standard, [workOrder('wo_std', 'in_progress', { items })], shopOf(standard, 'standard'))));
  await t.load(toDataset(workOrderShop(enhanced, [workOrder('wo_enh', 'in_progress', { items })], shopOf(enhanced, 'enhanced'))));
  await t.load(toDataset(workOrderShop(unnamed, [workOrder('wo_none', 'in_progress', { items })], shopOf(unnamed))));
  standardKey = await t.createKey(standard, ['read', 'write']);
  enhancedKey = await t.createKey(enhanced, ['read', 'write']);
  unnamedKey = await t.createKey(unnamed, ['read', 'write']);
});
afterAll(() => t?.close());

const tokenOf = async (id: string, key: string) => (await t.get(`/api/v1/work-orders/${id}`, key)).body.data.updatedAt as string;
const startRest = async (id: string, key: string, buildRunId = 'run-1') =>
  t.patch(`/api/v1/work-orders/${id}/build-runs`, key, { expectedUpdatedAt: await tokenOf(id, key), buildRunId, items: [{ itemId: 'woi_1', quantity: 1 }] });
const START = `mutation($id: ID!, $t: DateTime!, $run: ID!) { startBuildRun(workOrderId: $id, expectedUpdatedAt: $t, buildRunId: $run, items: [{ itemId: "woi_1", quantity: "1" }]) {
  buildRun { buildRunId } userErrors { code message } } }`;

describe('starting a build run needs the enhanced plan', () => {
  it('REST: a standard shop is 403 PLAN_REQUIRED naming both plans, and no stock moves', async () => {
    const before = await stockSnapshot(t.orm, standard);
    const res = await startRest('wo_std', standardKey);
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 403, code: 'PLAN_REQUIRED', plan: { required: 'enhanced', current: 'standard' } });
    expect(res.json().detail).toMatch(/enhanced-plan operation.*standard plan/);
    expect(await stockSnapshot(t.orm, standard)).toEqual(before);
    expect((await t.get('/api/v1/work-orders/wo_std/build-runs', standardKey)).body.data.buildRuns).toEqual([]);
  });

  it('GraphQL: the startBuildRun mutation of a standard shop is the error PLAN_REQUIRED with both plans in its extensions', async () => {
    const res = await t.graphql(standardKey, START, { id: 'wo_std', t: await tokenOf('wo_std', standardKey), run: 'gql-run-1' });
    expect(res.body.data.startBuildRun).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toEqual({ code: 'PLAN_REQUIRED', plan: { required: 'enhanced', current: 'standard' } });
    expect((await t.get('/api/v1/work-orders/wo_std/build-runs', standardKey)).body.data.buildRuns).toEqual([]);
  });

  it('an enhanced shop, and a shop whose dataset names no plan (enhanced by default), start runs', async () => {
    expect((await startRest('wo_enh', enhancedKey)).statusCode).toBe(200);
    expect((await startRest('wo_none', unnamedKey)).statusCode).toBe(200);
    const res = await t.graphql(enhancedKey, START, { id: 'wo_enh', t: await tokenOf('wo_enh', enhancedKey), run: 'gql-run-1' });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.startBuildRun.buildRun.buildRunId).toBe('gql-run-1');
  });

  it('the other work-order writes stay open to a standard shop', async () => {
    const res = await t.patch('/api/v1/work-orders/wo_std', standardKey, { expectedUpdatedAt: await tokenOf('wo_std', standardKey), notes: 'standard plan' });
    expect(res.statusCode).toBe(200);
  });
});

describe('the plan in datasets and the OpenAPI document', () => {
  it('the dataset plan is exported as loaded, and an unnamed plan exports as enhanced', async () => {
    expect((await exportDataset(t.orm.em.fork(), standard)).shop.plan).toBe('standard');
    expect((await exportDataset(t.orm.em.fork(), unnamed)).shop.plan).toBe('enhanced');
  });

  it('a plan outside standard | enhanced is refused by the dataset check, naming its path', async () => {
    expect(() => toDataset(workOrderShop(uniqueShopId('plan-bad'), [], shopOf('x', 'premium')))).toThrow(/\$\.shop\.plan/);
  });

  it('the startBuildRun operation carries x-plan: enhanced and a 403 that names PLAN_REQUIRED; no other operation does', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const operations = Object.values<Record<string, any>>(doc.paths).flatMap((path) => Object.values<any>(path));
    const planned = operations.filter((op) => op['x-plan'] !== undefined);
    expect(planned.map((op) => [op.operationId, op['x-plan']])).toEqual([['startBuildRun', 'enhanced']]);
    const forbidden = planned[0].responses['403'];
    expect(forbidden.description).toContain('PLAN_REQUIRED');
    expect(Object.keys(forbidden.content['application/problem+json'].examples)).toEqual(['FORBIDDEN_SCOPE', 'PLAN_REQUIRED']);
    expect(planned[0].description).toContain('PLAN_REQUIRED');
    for (const op of operations.filter((o) => o['x-plan'] === undefined && o.responses['403'])) {
      expect(Object.keys(op.responses['403'].content['application/problem+json'].examples), op.operationId).toEqual(['FORBIDDEN_SCOPE']);
    }
  });
});
