import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile, sync } from '../../src/cli/shop-link.ts';
import { platformAdapter } from '../../src/app/composition.ts';
import { shopEm } from '../../src/kernel/shop-context.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import type { EmulatedShop } from '../helpers/shopify-emulator/index.ts';
import { startConnectedShop, type ConnectedShop } from '../helpers/connected-shop.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Order history on demand: the mirror holds a connected store's open orders; a read naming another
// order (fulfilled and closed, archived, cancelled, older) asks Shopify for it — one request for the
// batch — and keeps it as history, which reserves nothing and is not an open order. An order Shopify
// does not know (or does not show: older than 60 days without read_all_orders) stays 404; a store
// that does not answer is 503 UNAVAILABLE with Retry-After, not 404. And the order's note (Shopify's
// Order.note) reaches the breakdown, from the full sync, webhooks, reconciliation and on-demand reads.
//
// The shop (test/helpers/work-order-fixtures.ts): BOM-1001 sells variant 44100 (0.4 kg wax 44001 +5%
// waste, one ASM-1 = one wick VMAT-VAR-0001).

const shop = uniqueShopId('order-history');

let connected: ConnectedShop;
let store: EmulatedShop;
let t: TestApp;
let key: string;

async function settle(): Promise<void> {
  await connected.settle();
}

/** Requests of the on-demand read the store has answered so far. */
const historyReads = () => store.requests.filter((r) => r.operationName === 'OrderHistory').length;

const mirrored = (orderId: string) => t.orm.em.fork().getConnection()
  .execute<{ open: boolean; note: string | null }[]>('select open, note from platform_orders where shop_id = ? and order_id = ?', [shop, orderId]);

async function ordersReserved(): Promise<number> {
  const res = await t.get('/api/v1/raw-materials/44100/commitments', key);
  expect(res.status).toBe(200);
  return Number(res.body.data.totals.orders);
}

const NOTE_QUERY = 'query($id: String!) { orderBomBreakdown(id: $id) { orderId note boms { orderQuantity } } }';
const BATCH_QUERY = 'query($ids: [String!]!) { orderBomBreakdowns(ids: $ids) { items { orderId note } notFound } }';

/** A closed (fulfilled, then archived) order of `quantity` × 44100; its webhooks applied, so the mirror holds none of it. */
async function closedOrder(quantity: number, extra: { note?: string; createdAt?: string } = {}): Promise<string> {
  const id = store.createOrder({ lineItems: [{ variantId: '44100', quantity }], locationId: '101', ...extra }).id;
  store.fulfil(id);
  store.closeOrder(id);
  await settle();
  expect(await mirrored(id)).toEqual([]);
  return id;
}

beforeAll(async () => {
  const json = workOrderShop(shop, [workOrder('wo_hist', 'draft')], { reservations: [] }) as {
    platform: { variants: { variantId: string; levels: { locationId: string; available: number }[] }[] };
  };
  json.platform.variants.find((v) => v.variantId === '44100')!.levels = [{ locationId: '101', available: 500 }];
  const dataset = toDataset(json);
  connected = await startConnectedShop(shop, dataset);
  ({ store, t, key } = connected);
  await sync(t.orm, t.config, shop, undefined, { pollMs: 10 });
}, 240_000);

afterAll(() => connected?.close());

describe(`order history on demand on ${databaseLabel}`, () => {
  it('a fulfilled and archived order the mirror does not hold is read from Shopify: its breakdown is 200 with its current lines and note, and kept (the next read asks Shopify nothing)', async () => {
    const id = await closedOrder(3, { note: 'Gift wrap, please' });
    const before = historyReads();
    const read = await t.get(`/api/v1/order-bom-breakdown/${id}`, key);
    expect(read.status).toBe(200);
    expect(read.body.data.orderId).toBe(id);
    expect(read.body.data.boms.map((b: { bomId: string; orderQuantity: number }) => [b.bomId, b.orderQuantity])).toEqual([['BOM-1001', 3]]);
    // REST has no order-level field: the note rides on every material, per BOM line and in the totals.
    const notes = [...read.body.data.boms.flatMap((b: { materials: { notes: string | null }[] }) => b.materials), ...read.body.data.totalMaterials].map((m: { notes: string | null }) => m.notes);
    expect(notes.length).toBeGreaterThan(0);
    expect(new Set(notes)).toEqual(new Set(['Gift wrap, please']));
    expect(historyReads()).toBe(before + 1);
    expect(await mirrored(id)).toEqual([{ open: false, note: 'Gift wrap, please' }]);

    const graph = await t.graphql(key, NOTE_QUERY, { id });
    expect(graph.body.data.orderBomBreakdown).toEqual({ orderId: id, note: 'Gift wrap, please', boms: [{ orderQuantity: '3' }] });
    expect(historyReads()).toBe(before + 1);
  });

  it('an order kept as history reserves nothing and is not among the open orders (every-order reads leave it out)', async () => {
    const reserved = await ordersReserved();
    const id = await closedOrder(7);
    expect((await t.get(`/api/v1/order-bom-breakdown/${id}`, key)).status).toBe(200);
    expect(await ordersReserved()).toBe(reserved);
    const platform = platformAdapter(t.config)({ shopId: shop, em: shopEm(t.orm, shop) });
    expect((await platform.getOrders(null)).map((o) => o.orderId)).not.toContain(id);
    expect((await platform.getOrders([id])).map((o) => o.orderId)).toEqual([id]);
  });

  it('a batch reads every order the mirror lacks in one Shopify request, lists an order Shopify does not know in notFound, and costs the same SQL statements for 1 or 3 missing orders', async () => {
    const open = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 1 }], locationId: '101', note: 'open one' }).id;
    await settle();
    const one = await closedOrder(1);
    const three = [await closedOrder(2, { note: 'second' }), await closedOrder(3), await closedOrder(4)];

    let before = historyReads();
    const small = await t.graphql(key, BATCH_QUERY, { ids: [open, one, '987654321'] });
    expect(small.body.data.orderBomBreakdowns.items.map((i: { orderId: string }) => i.orderId)).toEqual([open, one]);
    expect(small.body.data.orderBomBreakdowns.notFound).toEqual(['987654321']);
    expect(historyReads()).toBe(before + 1);

    before = historyReads();
    const big = await t.graphql(key, BATCH_QUERY, { ids: [open, ...three, '987654321'] });
    expect(big.body.data.orderBomBreakdowns).toEqual({
      items: [{ orderId: open, note: 'open one' }, { orderId: three[0], note: 'second' }, { orderId: three[1], note: null }, { orderId: three[2], note: null }],
      notFound: ['987654321'],
    });
    expect(historyReads()).toBe(before + 1);
    expect(big.statements).toBe(small.statements);
  });

  it('an order Shopify does not know is still 404 NOT_FOUND (after asking it once)', async () => {
    const before = historyReads();
    const read = await t.get('/api/v1/order-bom-breakdown/123456789', key);
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('NOT_FOUND');
    expect(historyReads()).toBe(before + 1);
  });

  it('when Shopify does not answer, a read of an order the mirror lacks is 503 UNAVAILABLE with Retry-After (not 404), at once; once it answers, 200', async () => {
    const id = await closedOrder(2);
    store.failNext(2, 503);
    const started = Date.now();
    const down = await t.get(`/api/v1/order-bom-breakdown/${id}`, key);
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('UNAVAILABLE');
    expect(down.headers['retry-after']).toBe('5');
    expect(Date.now() - started).toBeLessThan(9_000);
    const graph = await t.graphql(key, NOTE_QUERY, { id });
    expect(graph.status).toBe(200);
    expect((await t.get(`/api/v1/order-bom-breakdown/${id}`, key)).status).toBe(200);
  });

  it('without read_all_orders Shopify shows no order older than 60 days: such an order is 404; with the scope it is read', async () => {
    const id = await closedOrder(1, { createdAt: new Date(Date.now() - 90 * 24 * 3600 * 1000).toISOString() });
    expect((await t.get(`/api/v1/order-bom-breakdown/${id}`, key)).status).toBe(404);
    store.scopes.add('read_all_orders');
    try {
      expect((await t.get(`/api/v1/order-bom-breakdown/${id}`, key)).status).toBe(200);
    } finally {
      store.scopes.delete('read_all_orders');
    }
  });

  it('a work order\'s sourceOrderIds may name a closed order (read on demand); an unknown one is still refused', async () => {
    const id = await closedOrder(1);
    const current = await t.get('/api/v1/work-orders/wo_hist', key);
    const patch = (ids: string[], expectedUpdatedAt: string) => t.request({
      method: 'PATCH', url: '/api/v1/work-orders/wo_hist', key, headers: { 'content-type': 'application/json' }, payload: { expectedUpdatedAt, sourceOrderIds: ids },
    });
    const unknown = await patch(['55555555'], current.body.data.updatedAt);
    expect(unknown.statusCode).toBe(404);
    const ok = await patch([id], current.body.data.updatedAt);
    expect(ok.statusCode).toBe(200);
    const read = await t.graphql(key, 'query($id: ID!) { workOrder(workOrderId: $id) { sourceOrderIds } }', { id: 'wo_hist' });
    expect(read.body.data.workOrder.sourceOrderIds).toEqual([id]);
  });

  it('the order\'s note follows Shopify: webhooks (orders/updated), the reconciliation and the full sync', async () => {
    const id = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 1 }], locationId: '101', note: 'first' }).id;
    await settle();
    const note = async () => (await t.graphql(key, NOTE_QUERY, { id })).body.data.orderBomBreakdown.note;
    expect(await note()).toBe('first');
    store.setOrderNote(id, 'changed by the merchant');
    await settle();
    expect(await note()).toBe('changed by the merchant');

    store.dropWebhooks(1);
    store.setOrderNote(id, 'healed by reconciliation');
    await settle();
    expect(await note()).toBe('changed by the merchant');
    await reconcile(t.orm, t.config, shop);
    expect(await note()).toBe('healed by reconciliation');

    // Shopify's REST timestamps have whole seconds: the next change a second later is newer than every event the sync replays.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    store.dropWebhooks(1);
    store.setOrderNote(id, '');
    await settle();
    await sync(t.orm, t.config, shop, undefined, { pollMs: 10 });
    expect(await note()).toBeNull();
    expect(await mirrored(id)).toEqual([{ open: true, note: null }]);
  }, 180_000);
});
