import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// The demo shop `npm start` serves holds work orders in all eight states with runs, reviews,
// rework, documents, messages and lifecycle events: every work-order read answers for each of them
// in the documented shapes (the harness validates every response against the OpenAPI document).

let t: TestApp;
let key: string;
const shop = uniqueShopId('demo-wo');
const demo = JSON.parse(readFileSync(new URL('../../data/demo-dataset.json', import.meta.url), 'utf8'));
const ids: string[] = demo.workOrders.map((w: { workOrderId: string }) => w.workOrderId);

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset({ ...demo, shop: { ...demo.shop, id: shop } }));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

describe('work orders of the demo shop', () => {
  it('the list covers all eight states; every read, plan and run history answers in the documented shape', async () => {
    const list = (await t.get('/api/v1/work-orders?pageSize=100', key)).body.data;
    expect(list.facets.status.map((f: { value: string }) => f.value)).toEqual(
      ['draft', 'ready', 'in_progress', 'paused', 'quality_control', 'qc_approved', 'completed', 'cancelled']);
    for (const id of ids) {
      for (const path of ['?includeItemConsumption=true', '/material-plan', '/build-runs']) {
        const res = await t.get(`/api/v1/work-orders/${id}${path}`, key);
        expect([id, path, res.status]).toEqual([id, path, 200]);
      }
    }
  });
});
