import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextDeps } from '../../src/app/composition.ts';
import { pendingStorefrontRecomputes } from '../../src/modules/boms/for-stock.ts';
import { startOutboxDrainer } from '../../src/modules/stock/outbox-drainer.ts';
import { localPlatformGateway } from '../../src/platform/local-gateway.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { graphqlCaller, only, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrderShop } from '../helpers/work-order-fixtures.ts';

// Storefront stock without Shopify (docs/shopify.md): for a shop not connected to a store, the
// local platform store is the platform, so the same drainer sets its level of the finished good by
// the same rule (the demo shows it); `manual` leaves it alone; the marker is one row per finished
// good, so the write path adds one statement whatever the recipe's size.

const shop = uniqueShopId('storefront-local');
let t: TestApp;
let key: string;
const gql = graphqlCaller(() => t, () => key);

async function drain() {
  const drainer = startOutboxDrainer({
    orm: t.orm, platform: localPlatformGateway, storefront: contextDeps(t.orm, t.config, localPlatformGateway), intervalMs: 0, batchSize: 50,
    logger: { warn: () => undefined }, shopIds: [shop], retryBaseMs: 1, retryMaxMs: 1,
  });
  try {
    for (let pass = 0; pass < 10; pass += 1) {
      await drainer.drainOnce();
      if (await pendingStorefrontRecomputes(t.orm.em.fork(), shop) === 0) return;
    }
    throw new Error('storefront markers still pending after 10 passes');
  } finally {
    await drainer.stop();
  }
}

const localLevel = async (locationId: string) => (await t.orm.em.fork().execute<{ available: string }[]>(
  'select trim_scale(available)::text as available from platform_levels where shop_id = ? and variant_id = ? and location_id = ?', [shop, '44100', locationId]))[0]?.available;

async function adjustShelf(delta: number) {
  const { failure } = only(await gql(`mutation($input: AdjustPreassembledStockInput!) { adjustPreassembledStock(input: $input) { preassembledStockAdjustment { after } ${USER_ERRORS} } }`,
    { input: { itemId: '44100', locationId: '101', delta: String(delta), reason: 'count' } }));
  expect(failure).toBeNull();
}

beforeAll(async () => {
  const json = workOrderShop(shop, [], { preassembled: [{ itemId: '44100', locationId: '101', quantity: 6 }], reservations: [
    { kind: 'order', itemId: '44100', locationId: '101', orderId: '5001', quantity: 2 },
  ] }) as any;
  json.boms.find((b: any) => b.bomId === 'BOM-1001').storefrontStock = 'shelf';
  t = await createTestApp();
  await t.load(toDataset(json));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t?.close());

describe(`storefront stock on the local store on ${databaseLabel}`, () => {
  it('shelf mode sets the local store\'s level of the finished good to shelf − open reservations, and follows a shelf count', async () => {
    expect(await localLevel('101')).toBe('2');
    await drain();
    expect(await localLevel('101')).toBe('4');
    await adjustShelf(5);
    await drain();
    expect(await localLevel('101')).toBe('9');
  });

  it('never below zero: reservations above the shelf leave 0', async () => {
    await adjustShelf(-11);
    await drain();
    expect(await localLevel('101')).toBe('0');
  });

  it('manual mode leaves the level as it is', async () => {
    const { failure } = only(await gql(`mutation { updateBom(bomId: "BOM-1001", input: { storefrontStock: manual }) { bomSave { billVersion } ${USER_ERRORS} } }`));
    expect(failure).toBeNull();
    await adjustShelf(4);
    await drain();
    expect(await localLevel('101')).toBe('0');
  });
  it('bounded statements: a component\'s stock move costs the same statements whether a BOM above it is manual or sellable (one marker upsert)', async () => {
    const patch = async () => {
      const res = await t.request({ method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0001/inventory', key, headers: { 'content-type': 'application/json' },
        payload: { updates: [{ locationId: '101', delta: 1 }] } });
      expect(res.statusCode).toBe(200);
      return Number(res.headers['x-query-count']);
    };
    const manual = await patch();
    const { failure } = only(await gql(`mutation { updateBom(bomId: "BOM-1001", input: { storefrontStock: sellable }) { bomSave { billVersion } ${USER_ERRORS} } }`));
    expect(failure).toBeNull();
    expect(await patch()).toBe(manual);
    expect(await pendingStorefrontRecomputes(t.orm.em.fork(), shop), 'the sellable BOM above the wick is marked').toBe(1);
  });
});
