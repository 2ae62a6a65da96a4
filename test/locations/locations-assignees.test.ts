import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset, workOrderJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('la');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shop, {
    workOrders: [
      workOrderJson('wo_1', 'draft', 'asg_ana'),
      workOrderJson('wo_2', 'in_progress', 'asg_ana'),
      workOrderJson('wo_3', 'paused', 'asg_bob'),
      workOrderJson('wo_4', 'completed', 'asg_ana'),
      workOrderJson('wo_5', 'cancelled', 'asg_zoe'),
      workOrderJson('wo_6', 'qc_approved', null),
    ],
  })));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

describe('GET /locations', () => {
  it('lists every location sorted by name then id, with the bare id and gid://shopify/Location/<id>', async () => {
    const res = await t.get('/api/v1/locations', key);
    expect(res.status).toBe(200);
    expect(res.body.data.locations).toEqual([
      { locationId: '103', locationGid: 'gid://shopify/Location/103', name: 'Annex' },
      { locationId: '102', locationGid: 'gid://shopify/Location/102', name: 'Downtown Store' },
      { locationId: '101', locationGid: 'gid://shopify/Location/101', name: 'Main Workshop' },
    ]);
  });

  it('the global id uses the configured platform name', async () => {
    const other = await createTestApp({ orm: t.orm, config: { platformName: 'acmecommerce' } });
    try {
      const res = await other.get('/api/v1/locations', key);
      expect(res.body.data.locations[0].locationGid).toBe('gid://acmecommerce/Location/103');
    } finally {
      await other.close();
    }
  });

  it('has no cap: 1,200 locations come back in one response with one SQL round trip', async () => {
    const big = uniqueShopId('la-big');
    const locations = Array.from({ length: 1200 }, (_, i) => ({ id: String(1000 + i), name: `Site ${String(i).padStart(4, '0')}` }));
    await t.load(toDataset(datasetJson(big, { platform: { locations, variants: [], orders: [] }, materials: [], boms: [], assemblyBills: [] })));
    const bigKey = await t.createKey(big, ['read']);
    const res = await t.get('/api/v1/locations', bigKey);
    expect(res.body.data.locations).toHaveLength(1200);
    expect(res.headers['x-query-count']).toBe('1');
  });
});

describe('GET /assignees', () => {
  it('lists active assignees sorted by display name with usageCount = live (open) work orders naming them', async () => {
    const res = await t.get('/api/v1/assignees', key);
    expect(res.body.data.assignees).toEqual([
      { assigneeId: 'asg_ana', displayName: 'Ana', active: true, usageCount: 2 },
      { assigneeId: 'asg_zoe', displayName: 'Zoe', active: true, usageCount: 0 },
    ]);
  });

  it('includeInactive=true adds retired assignees, still counting their live work orders', async () => {
    const res = await t.get('/api/v1/assignees?includeInactive=true', key);
    expect(res.body.data.assignees.map((a: any) => [a.assigneeId, a.active, a.usageCount])).toEqual([
      ['asg_ana', true, 2], ['asg_bob', false, 1], ['asg_zoe', true, 0],
    ]);
  });

  it('includeInactive=false is the default', async () => {
    const res = await t.get('/api/v1/assignees?includeInactive=false', key);
    expect(res.body.data.assignees).toHaveLength(2);
  });

  it('costs one SQL round trip whatever the number of assignees and work orders', async () => {
    const big = uniqueShopId('la-many');
    const assignees = Array.from({ length: 300 }, (_, i) => ({ assigneeId: `asg_${i}`, displayName: `Person ${i}`, active: i % 3 !== 0 }));
    const workOrders = Array.from({ length: 200 }, (_, i) => workOrderJson(`wo_${i}`, i % 2 ? 'ready' : 'completed', `asg_${i % 300}`));
    await t.load(toDataset(datasetJson(big, { assignees, workOrders })));
    const bigKey = await t.createKey(big, ['read']);
    const res = await t.get('/api/v1/assignees?includeInactive=true', bigKey);
    expect(res.body.data.assignees).toHaveLength(300);
    expect(res.body.data.assignees.reduce((n: number, a: any) => n + a.usageCount, 0)).toBe(100);
    expect(res.headers['x-query-count']).toBe('1');
  });
});
