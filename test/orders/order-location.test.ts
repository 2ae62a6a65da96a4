import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile, sync } from '../../src/cli/shop-link.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import type { EmulatedShop } from '../helpers/shopify-emulator/index.ts';
import { startConnectedShop, type ConnectedShop } from '../helpers/connected-shop.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { workOrderShop } from '../helpers/work-order-fixtures.ts';

// Where a Shopify order's units are (docs/shopify.md "Where an order is", docs/order-execution.md):
// a point-of-sale order at its retail location; an online order — which has no retail location and
// no `location_id` — where its open fulfilment orders are assigned, per line when they are at
// several locations; a moved or split fulfilment order moves the reservations with it. The full
// sync, the webhooks and the reconciliation locate an order alike.
//
// The shop (test/helpers/work-order-fixtures.ts): variant 44100 is BOM-1001's finished good;
// locations 101 and 102.

const shop = uniqueShopId('order-loc');

let connected: ConnectedShop;
let store: EmulatedShop;
let t: TestApp;
let key: string;

async function settle(): Promise<void> {
  await connected.settle();
}

/** What an order holds of 44100, by location ('' = unlocated), as the commitments read shows it. */
async function held(orderId: string): Promise<Record<string, number>> {
  const res = await t.get('/api/v1/raw-materials/44100/commitments', key);
  expect(res.status).toBe(200);
  const data = res.body.data as { levels: { locationId: string; holders: { holderId: string; quantity: number }[] }[]; totals: { unlocated: number } };
  const out: Record<string, number> = {};
  for (const level of data.levels) {
    const quantity = level.holders.filter((h) => h.holderId === orderId).reduce((n, h) => n + h.quantity, 0);
    if (quantity !== 0) out[level.locationId] = quantity;
  }
  const unlocated = await t.orm.em.fork().execute<{ q: string }[]>(
    `select coalesce(sum(quantity - fulfilled_quantity), 0)::text as q from reservations where shop_id = ? and order_id = ? and location_id not in ('101', '102') and active`, [shop, orderId]);
  if (Number(unlocated[0]!.q) !== 0) out[''] = Number(unlocated[0]!.q);
  return out;
}

/** The bodies of the webhooks the store sent about an order (its orders/* topics). */
const orderPayloads = (orderId: string) => store.deliveries.filter((d) => d.topic.startsWith('orders/'))
  .map((d) => JSON.parse(d.body) as { id: number; location_id: number | null }).filter((p) => String(p.id) === orderId);

/** Runs `change` with every webhook it sends lost (never delivered). */
function losingWebhooks(change: () => void): void {
  store.holdWebhooks();
  change();
  for (const d of store.deliveries) if (d.status === 'held') d.status = 'dropped';
  void store.releaseWebhooks();
}

beforeAll(async () => {
  const json = workOrderShop(shop, [], { preassembled: [], reservations: [] }) as {
    platform: { variants: { variantId: string; levels: { locationId: string; available: number }[] }[] };
  };
  json.platform.variants.find((v) => v.variantId === '44100')!.levels = [{ locationId: '101', available: 50 }, { locationId: '102', available: 50 }];
  const dataset = toDataset(json);
  connected = await startConnectedShop(shop, dataset);
  ({ store, t, key } = connected);
}, 120_000);

afterAll(() => connected?.close());

describe(`orders are where Shopify's fulfilment orders are, on ${databaseLabel}`, () => {
  let web: string;

  it('bomcore subscribes the fulfilment order topics it applies (moved, split)', () => {
    expect(store.webhookSubscriptions.map((s) => s.topic)).toEqual(expect.arrayContaining(['FULFILLMENT_ORDERS_MOVED', 'FULFILLMENT_ORDERS_SPLIT']));
  });

  it('an online order (no retail location, no location_id) reserves at its fulfilment order\'s assigned location', async () => {
    web = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 5 }], locationId: '102' }).id;
    await settle();
    expect(orderPayloads(web).map((p) => p.location_id)).toEqual([null]);
    expect(store.fulfillmentOrders(web).map((fo) => fo.locationId)).toEqual(['102']);
    expect(await held(web)).toEqual({ '102': 5 });
  });

  it('moving the fulfilment order to another location (fulfillment_orders/moved) moves the reservation', async () => {
    store.moveFulfillmentOrder(store.fulfillmentOrders(web)[0]!.id, '101');
    await settle();
    expect(store.deliveries.some((d) => d.topic === 'fulfillment_orders/moved' && d.status === 'delivered')).toBe(true);
    expect(await held(web)).toEqual({ '101': 5 });
  });

  it('a line split across two locations (split, then part moved) reserves its units at each; a fulfilment at one consumes there and leaves the other', async () => {
    const [fo] = store.fulfillmentOrders(web);
    const part = store.splitFulfillmentOrder(fo!.id, [{ fulfillmentOrderLineItemId: fo!.lines[0]!.id, quantity: 2 }]);
    await settle();
    expect(await held(web)).toEqual({ '101': 5 });
    store.moveFulfillmentOrder(part.id, '102');
    await settle();
    expect(await held(web)).toEqual({ '101': 3, '102': 2 });
    const before = await t.orm.em.fork().execute<{ n: string }[]>(`select count(*)::text as n from inventory_adjustments where shop_id = ? and order_id = ?`, [shop, web]);
    store.fulfil(web, { lines: [{ variantId: '44100', quantity: 2 }], locationId: '102' });
    await settle();
    expect(await held(web)).toEqual({ '101': 3 });
    const consumed = await t.orm.em.fork().execute<{ location_id: string }[]>(
      `select distinct location_id from inventory_adjustments where shop_id = ? and order_id = ?`, [shop, web]);
    expect(Number(before[0]!.n)).toBe(0);
    expect(consumed.map((r) => r.location_id)).toEqual(['102']);
  });

  it('a point-of-sale order keeps its retail location (location_id)', async () => {
    const pos = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 2 }], locationId: '102', pos: true }).id;
    await settle();
    expect(orderPayloads(pos).map((p) => p.location_id)).toEqual([102]);
    expect(await held(pos)).toEqual({ '102': 2 });
  });

  it('the full sync, the webhooks and the reconciliation locate orders alike: moved, split across locations, point of sale', async () => {
    const place = () => {
      const moved = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 3 }], locationId: '101' }).id;
      store.moveFulfillmentOrder(store.fulfillmentOrders(moved)[0]!.id, '102');
      const split = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 4 }], locationId: '101' }).id;
      const fo = store.fulfillmentOrders(split)[0]!;
      store.moveFulfillmentOrder(fo.id, '102', [{ fulfillmentOrderLineItemId: fo.lines[0]!.id, quantity: 1 }]);
      const pos = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 2 }], locationId: '101', pos: true }).id;
      return { moved, split, pos };
    };
    const expected = (o: { moved: string; split: string; pos: string }) => ({ [o.moved]: { '102': 3 }, [o.split]: { '101': 3, '102': 1 }, [o.pos]: { '101': 2 } });
    const heldBy = async (o: { moved: string; split: string; pos: string }) => Object.fromEntries(await Promise.all(Object.values(o).map(async (id) => [id, await held(id)] as const)));

    // Full sync: the orders' webhooks were lost; the sync reads them open and reserves them.
    let bySync!: { moved: string; split: string; pos: string };
    losingWebhooks(() => { bySync = place(); });
    await settle();
    expect(await heldBy(bySync)).toEqual(Object.fromEntries(Object.values(bySync).map((id) => [id, {}])));
    await sync(t.orm, t.config, shop, undefined, { pollMs: 10 });
    expect(await heldBy(bySync)).toEqual(expected(bySync));

    // Webhooks: delivered as they happen.
    const byWebhooks = place();
    await settle();
    expect(await heldBy(byWebhooks)).toEqual(expected(byWebhooks));

    // Reconciliation: the webhooks were lost; the next pass reads the changed orders.
    let byReconcile!: { moved: string; split: string; pos: string };
    losingWebhooks(() => { byReconcile = place(); });
    await settle();
    await reconcile(t.orm, t.config, shop);
    expect(await heldBy(byReconcile)).toEqual(expected(byReconcile));
  });
});
