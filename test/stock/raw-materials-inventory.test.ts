import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
let writeKey: string;
const shop = uniqueShopId('inv');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(materialShop(shop)));
  await t.load(toDataset(datasetJson(uniqueShopId('inv-other'))));
  key = await t.createKey(shop, ['read']);
  writeKey = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const inventory = (id: string, query = '', k = key) => t.get(`/api/v1/raw-materials/${id}/inventory${query}`, k);
const patch = (id: string, payload: unknown, k = writeKey, headers: Record<string, string> = {}) => t.patch(`/api/v1/raw-materials/${id}/inventory`, k, payload, headers);
const history = (variantId: string) => t.orm.em.fork().execute<any[]>(
  'select location_id, before, after, delta, requested_delta, source, request_id, api_key_id from inventory_adjustments where shop_id = ? and variant_id = ? order by created_at, location_id', [shop, variantId]);

describe('GET /raw-materials/{variantId}/inventory', () => {
  it('platform-linked: live platform levels with locationName; totalAvailable sums them, cachedQuantity is the row total', async () => {
    const res = await inventory('44001');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      variantId: '44001', origin: 'platform', totalAvailable: 43, cachedQuantity: 43,
      levels: [{ locationId: '101', locationName: 'Main Workshop', available: 40 }, { locationId: '102', locationName: 'Downtown Store', available: 3 }],
    });
  });

  it('virtual: the service\'s own levels without locationName, summed exactly (0.1 + 0.2 = 0.3)', async () => {
    const res = await inventory('VMAT-VAR-0001');
    expect(res.body.data).toEqual({
      variantId: 'VMAT-VAR-0001', origin: 'virtual', totalAvailable: 0.3, cachedQuantity: 0.3,
      levels: [{ locationId: '101', available: 0.1 }, { locationId: '102', available: 0.2 }],
    });
  });

  it('locationIds scopes the levels (repeatable); empty means all; a scope matching nothing is 0, never shop-wide', async () => {
    expect((await inventory('44001', '?locationIds=102')).body.data).toMatchObject({ totalAvailable: 3, levels: [{ locationId: '102' }] });
    expect((await inventory('44001', '?locationIds=101&locationIds=102')).body.data.totalAvailable).toBe(43);
    expect((await inventory('44001', '?locationIds=')).body.data.totalAvailable).toBe(43);
    const none = await inventory('VMAT-VAR-0001', '?locationIds=999');
    expect(none.body.data).toMatchObject({ totalAvailable: 0, levels: [], cachedQuantity: 0.3 });
  });

  it('a global location id is 400; an unknown material is 404', async () => {
    const gid = await inventory('44001', '?locationIds=gid://shopify/Location/101');
    expect(gid.status).toBe(400);
    expect(gid.body.errors[0].field).toMatch(/^locationIds/);
    expect((await inventory('VMAT-VAR-9999')).status).toBe(404);
  });

  it('round trips do not grow with the number of locations', async () => {
    const big = uniqueShopId('inv-locs');
    const locations = Array.from({ length: 20 }, (_, i) => ({ id: String(200 + i), name: `Site ${i}` }));
    const base = datasetJson(big) as any;
    await t.load(toDataset(datasetJson(big, {
      platform: { ...base.platform, locations: [...base.platform.locations, ...locations],
        variants: base.platform.variants.map((v: any) => (v.variantId === '44001' ? { ...v, levels: locations.map((l) => ({ locationId: l.id, available: 1 })) } : v)) },
      materials: [base.materials[0], { ...base.materials[1], levels: locations.map((l) => ({ locationId: l.id, available: 0.5 })) }],
    })));
    const bigKey = await t.createKey(big, ['read']);
    for (const id of ['44001', 'VMAT-VAR-0001']) {
      const one = await inventory(id, '?locationIds=200', bigKey);
      const all = await inventory(id, '', bigKey);
      expect(all.body.data.levels).toHaveLength(20);
      expect(one.body.data.levels).toHaveLength(1);
      expect(all.headers['x-query-count']).toBe(one.headers['x-query-count']);
    }
  });
});

describe('PATCH /raw-materials/{variantId}/inventory', () => {
  it('applies deltas and absolutes per row, records every change with before/after/delta/request id/key', async () => {
    const res = await patch('VMAT-VAR-0001', { updates: [{ locationId: '101', delta: 0.2 }, { locationId: '102', absolute: 5, variantId: 'VMAT-VAR-0001' }] }, writeKey, { 'x-request-id': 'inv-req-1' });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ okCount: 2, failedCount: 0, skippedCount: 0 });
    expect(data.results[0]).toMatchObject({ index: 0, ok: true, locationId: '101', previousAvailable: 0.1, available: 0.3, appliedDelta: 0.2, truncated: false });
    expect(data.results[1]).toMatchObject({ index: 1, ok: true, previousAvailable: 0.2, available: 5, requestedDelta: 4.8, appliedDelta: 4.8 });
    expect(typeof data.results[0].id).toBe('string');
    const rows = await history('VMAT-VAR-0001');
    expect(rows.map((r) => [r.location_id, Number(r.before), Number(r.after), Number(r.delta), r.source, r.request_id])).toEqual([
      ['101', 0.1, 0.3, 0.2, 'api', 'inv-req-1'], ['102', 0.2, 5, 4.8, 'api', 'inv-req-1'],
    ]);
    expect(rows[0].api_key_id).toBeTruthy();
    expect((await inventory('VMAT-VAR-0001')).body.data.totalAvailable).toBe(5.3);
  });

  it('is exact end to end with six fractional digits kept', async () => {
    const res = await patch('VMAT-VAR-0003', { updates: [{ locationId: '102', absolute: 1.123456 }, { locationId: '102', delta: 0.000001 }, { locationId: '102', delta: -0.1 }, { locationId: '102', delta: -0.2 }] });
    expect(res.json().data.results.map((r: any) => r.available)).toEqual([1.123456, 1.123457, 1.023457, 0.823457]);
    const reset = await patch('VMAT-VAR-0003', { updates: [{ locationId: '102', absolute: 0 }] });
    expect(reset.json().data.results[0]).toMatchObject({ available: 0, appliedDelta: -0.823457 });
  });

  it('clamps at zero by default: a past-zero delta is ok with the applied change truncated', async () => {
    const res = await patch('VMAT-VAR-0003', { updates: [{ locationId: '101', delta: 2 }, { locationId: '101', delta: -5 }] });
    const data = res.json().data;
    expect(data.results[1]).toMatchObject({ ok: true, previousAvailable: 2, available: 0, requestedDelta: -5, appliedDelta: -2, truncated: true });
    expect(data.okCount).toBe(2);
  });

  it('a shop that allows negative inventory goes below zero', async () => {
    const neg = uniqueShopId('inv-neg');
    const json = materialShop(neg) as any;
    json.shop.settings.allowNegativeInventory = true;
    await t.load(toDataset(json));
    const k = await t.createKey(neg, ['read', 'write']);
    const res = await patch('VMAT-VAR-0003', { updates: [{ locationId: '101', delta: -1.5 }] }, k);
    expect(res.json().data.results[0]).toMatchObject({ ok: true, available: -1.5, truncated: false });
  });

  it('creates a level at a known location the material had none at; a row that changes nothing is skipped', async () => {
    const res = await patch('VMAT-VAR-0002', { updates: [{ locationId: '103', absolute: 4 }, { locationId: '103', absolute: 4 }, { locationId: '101', delta: 0 }] });
    expect(res.json().data).toMatchObject({ okCount: 1, failedCount: 0, skippedCount: 2 });
    expect(res.json().data.results[1]).toMatchObject({ ok: true, skipped: true });
    expect((await inventory('VMAT-VAR-0002', '?locationIds=103')).body.data.totalAvailable).toBe(4);
  });

  it('an unknown location is a per-row NOT_FOUND; every row not found collapses to 404', async () => {
    const mixed = await patch('VMAT-VAR-0002', { updates: [{ locationId: '999', delta: 1 }, { locationId: '101', delta: 1 }] });
    expect(mixed.statusCode).toBe(200);
    expect(mixed.json().data).toMatchObject({ okCount: 1, failedCount: 1, skippedCount: 0 });
    expect(mixed.json().data.results[0]).toEqual({ index: 0, ok: false, locationId: '999', error: { code: 'NOT_FOUND', message: 'location 999 not found' } });
    const all = await patch('VMAT-VAR-0002', { updates: [{ locationId: '998', delta: 1 }, { locationId: '999', delta: 1 }] });
    expect(all.statusCode).toBe(404);
    expect(all.json()).toMatchObject({ code: 'NOT_FOUND', missing: [{ kind: 'location', id: '998' }, { kind: 'location', id: '999' }] });
  });

  it.each([
    ['both delta and absolute', { locationId: '101', delta: 1, absolute: 2 }, 'updates[0]'],
    ['neither delta nor absolute', { locationId: '101' }, 'updates[0]'],
    ['a negative absolute', { locationId: '101', absolute: -1 }, 'updates[0].absolute'],
    ['a mismatched row variantId', { locationId: '101', delta: 1, variantId: 'VMAT-VAR-0001' }, 'updates[0].variantId'],
    ['more than 6 fractional digits', { locationId: '101', delta: 0.0000001 }, 'updates[0].delta'],
  ])('%s is 400 INVALID_INPUT and nothing changes', async (_label, row, field) => {
    const before = (await history('VMAT-VAR-0002')).length;
    const res = await patch('VMAT-VAR-0002', { updates: [{ locationId: '101', delta: 1 }, row] });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_INPUT');
    expect(res.json().errors.map((e: any) => e.field.replace('updates[1]', 'updates[0]'))).toContain(field);
    expect((await history('VMAT-VAR-0002')).length).toBe(before);
  });

  it('wrong types are 400 naming the field; unknown body fields are ignored', async () => {
    const res = await patch('VMAT-VAR-0002', { updates: [{ locationId: '101', delta: 'lots' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toMatch(/updates.*0.*delta/);
    expect((await patch('VMAT-VAR-0002', { updates: 'x' })).statusCode).toBe(400);
    expect((await patch('VMAT-VAR-0002', { updates: [{ locationId: '101', delta: 1, note: 'hi' }], dryRun: true })).statusCode).toBe(200);
  });

  it('a platform-linked material is 400 (read-only in API v1) before anything changes; an unknown one is 404', async () => {
    const res = await patch('44001', { updates: [{ locationId: '101', delta: 1 }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/read-only in API v1/);
    expect((await history('44001')).length).toBe(0);
    expect((await inventory('44001')).body.data.totalAvailable).toBe(43);
    expect((await patch('VMAT-VAR-9999', { updates: [{ locationId: '101', delta: 1 }] })).statusCode).toBe(404);
  });

  it('an unknown numeric id is 404 NOT_FOUND naming the material, not "platform-linked"', async () => {
    const res = await patch('99999991', { updates: [{ locationId: '101', delta: 1 }] });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(res.json().detail).toMatch(/99999991/);
    expect(res.json().detail).not.toMatch(/platform-linked/);
    expect((await history('99999991')).length).toBe(0);
  });

  it('round trips are the same for a batch of 1 row and of 200 rows', async () => {
    const one = await patch('VMAT-VAR-0002', { updates: [{ locationId: '101', delta: 1 }] });
    const rows = Array.from({ length: 200 }, (_, i) => ({ locationId: ['101', '102', '103'][i % 3]!, delta: 0.01 }));
    const many = await patch('VMAT-VAR-0002', { updates: rows });
    expect(many.json().data.okCount).toBe(200);
    expect(many.headers['x-query-count']).toBe(one.headers['x-query-count']);
  });

  it('concurrent batches on the same level lose nothing', async () => {
    const start = Number((await inventory('VMAT-VAR-0003', '?locationIds=101')).body.data.totalAvailable);
    const results = await Promise.all(Array.from({ length: 20 }, () => patch('VMAT-VAR-0003', { updates: [{ locationId: '101', delta: 1.5 }, { locationId: '102', delta: 0.25 }] })));
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    const after = (await inventory('VMAT-VAR-0003')).body.data;
    expect(after.levels).toEqual([{ locationId: '101', available: start + 30 }, { locationId: '102', available: 5 }]);
  });
});
