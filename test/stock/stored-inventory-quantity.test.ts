import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/dataset/generate.ts';
import { exact } from '../../src/kernel/numbers/index.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { graphqlCaller } from '../helpers/graphql-payloads.ts';
import { expectQuantitySortExact, storedQuantityMismatches } from '../helpers/stored-quantity.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// The materials list sorts by a stored inventory quantity (material_quantities.inventory_quantity: its
// level total kept by triggers on material_levels, its platform quantity by triggers on materials), so
// the sort is an index scan.
// Whatever writes the levels, the sort answers what the quantity's definition gives, exactly.

let t: TestApp;
const gen = uniqueShopId('iq-gen');
const wo = uniqueShopId('iq-wo');
let genKey: string;
let woKey: string;
const generated = () => generateDataset({ materials: 40, boms: 6, depth: 2, locations: 3, workOrders: 2, orders: 4, seed: 11, shopId: gen });

beforeAll(async () => {
  t = await createTestApp();
  await t.load(generated());
  await t.load(toDataset(workOrderShop(wo, [workOrder('wo_iq', 'in_progress', {
    items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-2000', quantity: 10, completedQuantity: 0 }],
  })])));
  genKey = await t.createKey(gen, ['read', 'write']);
  woKey = await t.createKey(wo, ['read', 'write']);
});
afterAll(() => t.close());

describe(`the stored inventory quantity on ${databaseLabel}`, () => {
  it('after a dataset load, the quantity sort (both directions, paged, one statement a page) is the order of the quantities the rows show', async () => {
    const quantities = await expectQuantitySortExact(t, gen, genKey);
    const dataset = generated();
    // Both origins are in the shop, with quantities that differ (a sort that ignored them would fail).
    expect(dataset.materials.some((m) => m.origin === 'platform') && dataset.materials.some((m) => m.origin !== 'platform')).toBe(true);
    expect(new Set(quantities.values()).size).toBeGreaterThan(5);
  });

  it('a stock-ledger move (inventory PATCH) moves the material in the sort at once', async () => {
    const before = await expectQuantitySortExact(t, gen, genKey);
    const virtual = [...before.keys()].find((id) => id.startsWith('VMAT-'))!;
    const { locations } = generated().platform;
    const res = await t.patch(`/api/v1/raw-materials/${virtual}/inventory`, genKey, {
      updates: [{ locationId: locations[0]!.id, absolute: 987654.321 }, { locationId: locations[1]!.id, delta: 0.000001 }],
    });
    expect(res.statusCode).toBe(200);
    const after = await expectQuantitySortExact(t, gen, genKey);
    expect(after.get(virtual)).not.toBe(before.get(virtual));
    const top = (await t.get('/api/v1/raw-materials?sortBy=inventoryQuantity&sortOrder=desc&pageSize=1', genKey)).body.data.items[0];
    expect(top.variantId).toBe(virtual);
  });

  it('a dataset re-load (the shop replaced, levels changed) keeps the stored quantities exact', async () => {
    const dataset = generated();
    const virtual = dataset.materials.filter((m) => m.origin !== 'platform');
    for (const m of virtual) for (const l of m.levels) l.available = exact(l.available).times(3).plus('0.250001').toFixed();
    await t.load(dataset);
    const after = await expectQuantitySortExact(t, gen, genKey);
    const changed = virtual.find((m) => m.levels.length > 0)!;
    const sum = changed.levels.reduce((s, l) => s.plus(l.available), exact(0));
    expect(after.get(changed.variantId)).toBe(sum.toFixed());
  });

  it('a build run consumes virtual levels through the ledger and the sort follows', async () => {
    const before = await expectQuantitySortExact(t, wo, woKey);
    const token = (await t.get('/api/v1/work-orders/wo_iq', woKey)).body.data.updatedAt;
    const res = await t.patch('/api/v1/work-orders/wo_iq/build-runs', woKey, { expectedUpdatedAt: token, buildRunId: 'run-iq', items: [{ itemId: 'woi_1', quantity: 3 }] });
    expect(res.statusCode).toBe(200);
    const after = await expectQuantitySortExact(t, wo, woKey);
    expect(after.get('VMAT-VAR-0002')).not.toBe(before.get('VMAT-VAR-0002'));
  });

  it('the GraphQL connection sorted by quantity pages in one statement and in the REST order', async () => {
    const gql = graphqlCaller(() => t, () => genKey);
    const rest = (await t.get('/api/v1/raw-materials?sortBy=inventoryQuantity&sortOrder=desc&pageSize=50', genKey)).body.data.items.map((m: { variantId: string }) => m.variantId);
    const ids: string[] = [];
    let after: string | null = null;
    do {
      const body = await gql(`query($after: String) { rawMaterialConnection(sortBy: inventoryQuantity, sortOrder: desc, first: 7, after: $after) {
        edges { node { variantId } } pageInfo { hasNextPage endCursor } } }`, { after });
      const page = body.data.rawMaterialConnection;
      ids.push(...page.edges.map((e: { node: { variantId: string } }) => e.node.variantId));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(ids).toEqual(rest);
    const counted = await t.graphql(genKey, '{ rawMaterialConnection(sortBy: inventoryQuantity, first: 50) { totalCount edges { node { variantId } } } }');
    expect(counted.statements).toBe(1);
  });

  it('levels written before their material exist count once the material row arrives, and a level deleted leaves the total', async () => {
    const shop = uniqueShopId('iq-sql');
    const conn = t.orm.em.fork().getConnection();
    await conn.execute(`insert into material_levels (shop_id, variant_id, location_id, available) values (?, 'VMAT-X', 'L1', 2.5), (?, 'VMAT-X', 'L2', 0.000001)`, [shop, shop]);
    await conn.execute(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, updated_at)
      values (?, 'VMAT-X', 'virtual', 'P', 'I', 'Late', now())`, [shop]);
    const read = async () => (await conn.execute(`select inventory_quantity::text as q from material_quantities where shop_id = ?`, [shop]))[0].q as string;
    expect(Number(await read())).toBe(2.500001);
    await conn.execute(`delete from material_levels where shop_id = ? and location_id = 'L1'`, [shop]);
    expect(Number(await read())).toBe(0.000001);
    await conn.execute(`update material_levels set available = available + 1 where shop_id = ?`, [shop]);
    expect(Number(await read())).toBe(1.000001);
    expect(await storedQuantityMismatches(t, shop)).toEqual([]);
  });

  it('a stock move leaves the material row as it was: the quantity row moves, not the wide row and its indexes', async () => {
    const conn = t.orm.em.fork().getConnection();
    const virtual = (await conn.execute(`select variant_id from materials where shop_id = ? and origin = 'virtual' order by variant_id limit 1`, [gen]))[0].variant_id as string;
    const version = async () => (await conn.execute(`select xmin::text as x from materials where shop_id = ? and variant_id = ?`, [gen, virtual]))[0].x as string;
    const before = await version();
    const { locations } = generated().platform;
    const res = await t.patch(`/api/v1/raw-materials/${virtual}/inventory`, genKey, { updates: [{ locationId: locations[2]!.id, delta: 7.5 }] });
    expect(res.statusCode).toBe(200);
    expect(await version()).toBe(before);
    const after = await expectQuantitySortExact(t, gen, genKey);
    const sum = (await conn.execute(`select sum(available)::text as s from material_levels where shop_id = ? and variant_id = ?`, [gen, virtual]))[0].s as string;
    expect(after.get(virtual)).toBe(exact(sum).toFixed());
  });

  it('a platform material follows its cached total and origin; a material deleted keeps the total of levels it still has', async () => {
    const shop = uniqueShopId('iq-plat');
    const conn = t.orm.em.fork().getConnection();
    const stored = async (variant: string) => (await conn.execute(`select inventory_quantity::text as q from material_quantities where shop_id = ? and variant_id = ?`, [shop, variant]))[0]?.q as string | undefined;
    await conn.execute(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, cached_quantity, updated_at)
      values (?, '101', 'platform', 'P1', 'I1', 'Linked', 4.25, now()), (?, '102', 'platform', 'P2', 'I2', 'Unknown', null, now())`, [shop, shop]);
    expect(Number(await stored('101'))).toBe(4.25);
    expect(Number(await stored('102'))).toBe(0);
    await conn.execute(`update materials set cached_quantity = cached_quantity * 2 where shop_id = ?`, [shop]);
    expect(Number(await stored('101'))).toBe(8.5);
    // Levels of a virtual material written before it, then the material, its deletion with levels left, and its return.
    await conn.execute(`insert into material_levels (shop_id, variant_id, location_id, available) values (?, 'VMAT-Y', 'L1', 3)`, [shop]);
    await conn.execute(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, cached_quantity, updated_at)
      values (?, 'VMAT-Y', 'virtual', 'P', 'I', 'Late', 99, now())`, [shop]);
    expect(Number(await stored('VMAT-Y'))).toBe(3);
    await conn.execute(`update materials set origin = 'platform' where shop_id = ? and variant_id = 'VMAT-Y'`, [shop]);
    expect(Number(await stored('VMAT-Y'))).toBe(99);
    await conn.execute(`update materials set origin = 'virtual' where shop_id = ? and variant_id = 'VMAT-Y'`, [shop]);
    expect(Number(await stored('VMAT-Y'))).toBe(3);
    await conn.execute(`delete from materials where shop_id = ?`, [shop]);
    expect(await stored('101')).toBeUndefined();
    await conn.execute(`update material_levels set available = 5 where shop_id = ?`, [shop]);
    await conn.execute(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, updated_at)
      values (?, 'VMAT-Y', 'virtual', 'P', 'I', 'Back', now())`, [shop]);
    expect(Number(await stored('VMAT-Y'))).toBe(5);
    expect(await storedQuantityMismatches(t, shop)).toEqual([]);
  });
});
