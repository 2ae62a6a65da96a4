import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopEm } from '../../src/kernel/shop-context.ts';
import { enqueuePlatformPushes } from '../../src/modules/stock/platform-push.repository.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('bld');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(bomShopDataset(shop));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

const buildable = (id: string, q = '') => t.get(`/api/v1/bills-of-materials/${id}/buildable${q}`, key);
const limits = (l: any) => l.limitingComponents.map((c: any) => [c.nodeId, c.maxUnitsByThisComponent]);

describe('GET /bills-of-materials/{id}/buildable', () => {
  it('per location: live and virtual levels, waste, shelves first, location rules (replace + nested adjust), negative levels as 0', async () => {
    const res = await buildable('BOM-1001');
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect([d.bomId, d.variantId, d.hasSellableSplit, d.globalFallback, d.totals]).toEqual(['BOM-1001', '44100', false, false, { maxBuildable: 13, sellable: 13 }]);
    const [annex, store, main] = d.perLocation;
    // Main: fragrance 3 / 0.3 = 10 exactly; wax 40 / 0.42 → 95; wick: 3 wick assemblies on the shelf first → 500.5 + 3 → 503
    expect([main.locationId, main.locationName, main.maxBuildable, main.sellable]).toEqual(['101', 'Main Workshop', 10, 10]);
    expect(main.limitingComponents).toEqual([
      { nodeId: 'VMAT-VAR-0002', name: 'Fragrance oil', origin: 'virtual', quantityPerUnit: 0.3, wastePercentage: 0, isNonEssential: false, maxUnitsByThisComponent: 10, availableAtLocation: 3 },
      { nodeId: '44001', name: 'Soy wax', origin: 'platform', quantityPerUnit: 0.42, wastePercentage: 5, isNonEssential: false, maxUnitsByThisComponent: 95, availableAtLocation: 40 },
      { nodeId: 'VMAT-VAR-0001', name: 'Cotton wick', origin: 'virtual', quantityPerUnit: 1, wastePercentage: 0, isNonEssential: false, maxUnitsByThisComponent: 503, availableAtLocation: 500.5 },
    ]);
    // Store: jars replace wax (5 / 0.5 = 10), fragrance adjusted to 0.4 in ASM-2 (1.2 / 0.4 = 3), wick 7
    expect([store.maxBuildable, limits(store)]).toEqual([3, [['VMAT-VAR-0002', 3], ['VMAT-VAR-0001', 7], ['44002', 10]]]);
    // Annex: nothing in stock (wax −2 counts 0); the rule adds a sticker with no essential component → a pre-assembled leaf;
    // ties at 0 by larger quantityPerUnit, then nodeId
    expect([annex.maxBuildable, limits(annex)]).toEqual([0, [['VMAT-VAR-0001', 0], ['subassembly:ASM-4', 0], ['44001', 0]]]);
    expect(annex.limitingComponents[1]).toMatchObject({ name: 'Sticker', origin: 'preassembled', quantityPerUnit: 1, availableAtLocation: 0 });
    expect(annex.limitingComponents[2].availableAtLocation).toBe(0);
  });

  it('locationIds narrows the scope (repeatable); a scope matching nothing gives [] and totals 0', async () => {
    const one = (await buildable('BOM-1001', '?locationIds=102')).body.data;
    expect([one.perLocation.map((l: any) => l.locationId), one.totals, one.globalFallback]).toEqual([['102'], { maxBuildable: 3, sellable: 3 }, false]);
    const two = (await buildable('BOM-1001', '?locationIds=101&locationIds=102')).body.data;
    expect(two.totals).toEqual({ maxBuildable: 13, sellable: 13 });
    const none = (await buildable('BOM-1001', '?locationIds=999')).body.data;
    expect([none.perLocation, none.totals]).toEqual([[], { maxBuildable: 0, sellable: 0 }]);
    expect((await buildable('BOM-1001', '?locationIds=')).body.data.perLocation).toHaveLength(3);
  });

  it('a global id in locationIds is 400; an unknown BOM is 404', async () => {
    const bad = await buildable('BOM-1001', '?locationIds=gid://shopify/Location/101');
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect((await buildable('BOM-404')).status).toBe(404);
  });

  it('global fallback (finished good without per-location data): one shop-wide computation; only-consume-pre-assembled bills split sellable', async () => {
    const d = (await buildable('BOM-1002')).body.data;
    // Shop-wide: wax 43 / 0.42 → 102; fragrance 4.2 / (2 × 0.3) = 7; gift box: 1 on the shelf, then jars (15) and wick
    // assemblies from components. Sellable: the gift box comes only from its shelf → 1.
    expect([d.globalFallback, d.hasSellableSplit, d.perLocation, d.totals]).toEqual([true, true, [], { maxBuildable: 7, sellable: 1 }]);
    const scoped = (await buildable('BOM-1002', '?locationIds=102')).body.data;
    // Scope 102 only: fragrance 1.2 / 0.6 = 2; no gift box on the shelf there → sellable 0
    expect([scoped.globalFallback, scoped.totals]).toEqual([true, { maxBuildable: 2, sellable: 0 }]);
    expect((await buildable('BOM-1002', '?locationIds=999')).body.data.totals).toEqual({ maxBuildable: 0, sellable: 0 });
  });

  it('a BOM without a variant uses the global fallback too; a sticker with no essential component is limited by its shelves', async () => {
    const d = (await buildable('BOM-1003')).body.data;
    // stickers: 5 + 1 on shelves; wick 507.5 / 2 → 253
    expect([d.variantId, d.globalFallback, d.totals]).toEqual([null, true, { maxBuildable: 6, sellable: 6 }]);
  });

  it('costs a constant number of round trips', async () => {
    const all = await buildable('BOM-1001');
    const scoped = await buildable('BOM-1001', '?locationIds=101&locationIds=102');
    // The forest and the locations, then one statement of materials, live levels (the platform's and
    // the outbox's pending pushes; scoped, the finished good's everywhere too), virtual levels and shelves.
    expect(Number(all.headers['x-query-count'])).toBeLessThanOrEqual(3);
    expect(Number(scoped.headers['x-query-count'])).toBeLessThanOrEqual(3);
  });

  it('live levels: stock a build run took but the outbox has not pushed yet is not available (platform level + pending pushes)', async () => {
    const pending = uniqueShopId('bld-pending');
    await t.load(bomShopDataset(pending));
    const pendingKey = await t.createKey(pending, ['read']);
    // Soy wax at Main: 40 on the platform, 39.58 of it taken → 0.42 left, one candle's worth (0.42 per unit, waste included).
    await shopEm(t.orm, pending).transactional((em) => enqueuePlatformPushes(em, pending, [
      { variantId: '44001', locationId: '101', delta: '-39.58', workOrderId: 'wo_1', buildRunId: 'run-1', reason: 'build_run' },
    ]));
    for (const q of ['', '?locationIds=101']) {
      const main = (await t.get(`/api/v1/bills-of-materials/BOM-1001/buildable${q}`, pendingKey)).body.data.perLocation.find((l: any) => l.locationId === '101');
      expect([main.maxBuildable, main.limitingComponents[0]], q).toEqual([1, expect.objectContaining({ nodeId: '44001', maxUnitsByThisComponent: 1, availableAtLocation: 0.42 })]);
    }
  });
});
