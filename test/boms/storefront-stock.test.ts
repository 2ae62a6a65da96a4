import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset } from '../../src/dataset/export.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { graphqlCaller, only, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import type { EmulatedShop } from '../helpers/shopify-emulator/index.ts';
import { startConnectedShop, type ConnectedShop } from '../helpers/connected-shop.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { settleStorefront as settleStorefrontOf } from '../helpers/storefront-settle.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Storefront stock (docs/shopify.md): a BOM in `shelf` mode sets its finished good's Shopify
// available level at each location to shelf − open order reservations there; in `sellable` mode to
// shelf + what the components there can still make − reservations; in `manual` mode bomcore never
// writes it. The changes leave a marker in their transaction, the outbox drainer coalesces them
// into one inventorySetQuantities per finished good (compare-and-set on the level last seen), and a
// stale compare re-reads the level and recomputes before it tries again.
//
// The shop (test/helpers/work-order-fixtures.ts): BOM-1001 sells variant 44100 and takes 0.4 kg of
// wax 44001 (+5% waste, so 0.42 kg a unit) and one ASM-1 (one wick VMAT-VAR-0001, 500 at 101).

const shop = uniqueShopId('storefront');

let connected: ConnectedShop;
let store: EmulatedShop;
let t: TestApp;
let key: string;

const gql = graphqlCaller(() => t, () => key);

const settleStorefront = () => settleStorefrontOf(t, shop);

const settle = () => connected.settle();
const storefrontSets = () => store.adjustmentGroups.filter((g) => g.referenceDocumentUri?.includes('/storefront-stock'));
const tokenOf = async (id: string) => (await t.get(`/api/v1/work-orders/${id}`, key)).body.data.updatedAt as string;

async function shelfAt(locationId: string): Promise<number> {
  const res = await t.get(`/api/v1/raw-materials/44100/preassembled?locationIds=${locationId}`, key);
  expect(res.status).toBe(200);
  return res.body.data.totals.quantity as number;
}

async function reservedAt(locationId: string): Promise<number> {
  const res = await t.get(`/api/v1/raw-materials/44100/commitments?locationIds=${locationId}`, key);
  expect(res.status).toBe(200);
  return (res.body.data.levels as { locationId: string; orders: number }[]).find((l) => l.locationId === locationId)?.orders ?? 0;
}

async function sellableAt(locationId: string): Promise<number> {
  const res = await t.get(`/api/v1/bills-of-materials/BOM-1001/buildable?locationIds=${locationId}`, key);
  expect(res.status).toBe(200);
  return (res.body.data.perLocation as { locationId: string; sellable: number }[]).find((l) => l.locationId === locationId)!.sellable;
}

/** What bomcore should show at 101 in the BOM's current mode: shelf (+ sellable) − reservations, from the API's own reads. */
async function expected(): Promise<number> {
  const mode = (await gql('{ bom(bomId: "BOM-1001") { storefrontStock } }')).data.bom.storefrontStock as string;
  return Math.max(0, await shelfAt('101') + (mode === 'sellable' ? await sellableAt('101') : 0) - await reservedAt('101'));
}

async function setMode(mode: 'manual' | 'shelf' | 'sellable') {
  const { result, failure } = only(await gql(`mutation($input: BomPatchInput!) { updateBom(bomId: "BOM-1001", input: $input) { bomSave { bom { storefrontStock } } ${USER_ERRORS} } }`,
    { input: { storefrontStock: mode } }));
  expect(failure).toBeNull();
  expect(result.bom.storefrontStock).toBe(mode);
}

async function adjustShelf(delta: number) {
  const { failure } = only(await gql(`mutation($input: AdjustPreassembledStockInput!) { adjustPreassembledStock(input: $input) { preassembledStockAdjustment { after } ${USER_ERRORS} } }`,
    { input: { itemId: '44100', locationId: '101', delta: String(delta), reason: 'found' } }));
  expect(failure).toBeNull();
}

beforeAll(async () => {
  const json = workOrderShop(shop, [workOrder('wo_sf', 'in_progress', {
    items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 100, completedQuantity: 0 }],
  })], { preassembled: [{ itemId: '44100', locationId: '101', quantity: 3 }], reservations: [] }) as any;
  json.platform.orders = [];
  json.platform.variants.find((v: any) => v.variantId === '44001').levels = [{ locationId: '101', available: 21 }, { locationId: '102', available: 1000 }];
  json.platform.variants.find((v: any) => v.variantId === '44100').levels = [{ locationId: '101', available: 50 }, { locationId: '102', available: 7 }];
  json.boms.find((b: any) => b.bomId === 'BOM-1001').storefrontStock = 'shelf';
  const dataset = toDataset(json);
  connected = await startConnectedShop(shop, dataset);
  ({ store, t, key } = connected);
}, 120_000);

afterAll(() => connected?.close());

describe(`storefront stock of finished goods on ${databaseLabel}`, () => {
  it('the mode survives a dataset export (written only when not manual), and GraphQL reads it', async () => {
    const exported = await exportDataset(t.orm.em, shop);
    expect(exported.boms.find((b) => b.bomId === 'BOM-1001')!.storefrontStock).toBe('shelf');
    expect(Object.hasOwn(exported.boms.find((b) => b.bomId === 'BOM-2000')!, 'storefrontStock'), 'manual is the default, not written').toBe(false);
    const read = await gql('{ bom(bomId: "BOM-1001") { storefrontStock } }');
    expect(read.errors).toBeUndefined();
    expect(read.data.bom.storefrontStock).toBe('shelf');
  });

  it('shelf mode: after the load, each location stocking the finished good shows shelf − reservations (3 at 101, 0 at 102)', async () => {
    await settleStorefront();
    expect(store.available('44100', '101')).toBe(3);
    expect(store.available('44100', '102')).toBe(0);
    // One compare-and-set for both locations, keyed for replay.
    expect(storefrontSets()).toHaveLength(1);
    expect(storefrontSets()[0]!.idempotencyKey).toMatch(/^bomcore-storefront-/);
  });

  it('completing a build run raises the Shopify level to the new shelf − open reservations', async () => {
    const start = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_sf/build-runs', key, headers: { 'content-type': 'application/json' },
      payload: { expectedUpdatedAt: await tokenOf('wo_sf'), buildRunId: 'sf-1', items: [{ itemId: 'woi_1', quantity: 4 }] } });
    expect(start.statusCode, start.body).toBe(200);
    const { failure } = only(await gql(`mutation($t: DateTime!) { completeBuildRun(workOrderId: "wo_sf", buildRunId: "sf-1", expectedUpdatedAt: $t) { buildRun { status } ${USER_ERRORS} } }`,
      { t: await tokenOf('wo_sf') }));
    expect(failure).toBeNull();
    await settleStorefront();
    expect(await shelfAt('101')).toBe(7);
    expect(store.available('44100', '101')).toBe(7 - await reservedAt('101'));
  });

  it('a new order lowers it: its 2 units are reserved and the level is shelf − reservations, Shopify\'s own decrement never undone', async () => {
    store.createOrder({ lineItems: [{ variantId: '44100', quantity: 2 }], locationId: '101' });
    await settle();
    await settleStorefront();
    expect(await reservedAt('101')).toBe(2);
    expect(store.available('44100', '101')).toBe(7 - 2);
  });

  it('sellable mode (set through GraphQL): the level adds what the components make, and a component receipt on Shopify raises it', async () => {
    await setMode('sellable');
    await settleStorefront();
    const before = await sellableAt('101');
    // 21 kg of wax (less the build run's whole kilo) at 0.42 kg a unit.
    expect(before).toBe(47);
    expect(store.available('44100', '101')).toBe(await expected());
    // A receipt of 21 kg of wax on Shopify: 50 more units can be made.
    store.setAvailable('44001', '101', store.available('44001', '101')! + 21);
    await settle();
    await settleStorefront();
    expect(await sellableAt('101')).toBe(before + 50);
    expect(store.available('44100', '101')).toBe(7 + before + 50 - 2);
  });

  it('a burst of 50 shelf changes is coalesced: fewer sets than changes, and the final level is right', async () => {
    const before = storefrontSets().length;
    for (let i = 0; i < 50; i += 1) await adjustShelf(1);
    const results = await settleStorefront();
    const sets = storefrontSets().length - before;
    expect(sets).toBeGreaterThanOrEqual(1);
    expect(sets).toBeLessThan(50);
    expect(results.reduce((n, r) => n + (r.storefront?.settled ?? 0), 0)).toBeLessThan(50);
    expect(await shelfAt('101')).toBe(57);
    expect(store.available('44100', '101')).toBe(await expected());
  });

  it('a stale changeFromQuantity (another app moved the level) is re-read and retried, never setting above the computed level', async () => {
    store.holdWebhooks();
    // Another app takes the level down; bomcore's mirror has not heard of it (its webhook is held).
    store.setAvailable('44100', '101', store.available('44100', '101')! - 30);
    await adjustShelf(-5);
    const target = await expected();
    const before = storefrontSets().length;
    const results = await settleStorefront();
    expect(results.reduce((n, r) => n + (r.storefront?.stale ?? 0), 0)).toBeGreaterThanOrEqual(1);
    expect(store.available('44100', '101')).toBe(target);
    for (const group of storefrontSets().slice(before)) {
      for (const change of group.changes) if (change.locationId === '101') expect(change.quantityAfterChange).toBeLessThanOrEqual(target);
    }
    await store.releaseWebhooks();
    await settle();
    await settleStorefront();
    expect(store.available('44100', '101')).toBe(target);
  });

  it('manual mode never pushes: shelf changes leave the Shopify level alone', async () => {
    await setMode('manual');
    const before = storefrontSets().length;
    const level = store.available('44100', '101');
    await adjustShelf(3);
    await settleStorefront();
    expect(storefrontSets()).toHaveLength(before);
    expect(store.available('44100', '101')).toBe(level);
  });
});
