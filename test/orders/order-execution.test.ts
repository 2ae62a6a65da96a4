import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, reconcile, sync, webhookApiFor } from '../../src/cli/shop-link.ts';
import { webhookFollowers } from '../../src/app/composition.ts';
import { startOutboxDrainer } from '../../src/modules/stock/outbox-drainer.ts';
import { platformGatewayFactory } from '../../src/platform/shopify/shopify-gateway.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import { startWebhookApplier, type WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrderShop } from '../helpers/work-order-fixtures.ts';
import { listenForWebhooks, settleWebhooks } from '../helpers/webhook-settle.ts';

// Orders move stock (the order-execution rules): an open order line for a BOM's finished good holds
// an order reservation at its fulfilment location; a fulfilment consumes at its location, the
// finished good's pre-assembled units first and the rest by recipe like a build run, once per
// fulfilment id whatever the webhooks replay; its platform-linked component deductions are pushed
// exactly once; a cancelled order releases what it holds and consumes nothing.
//
// The shop (test/helpers/work-order-fixtures.ts): BOM-1001 sells variant 44100 and takes 0.4 kg of
// wax 44001 (platform-linked, +5% waste) and one ASM-1, which is one wick VMAT-VAR-0001 (virtual).

const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;
const shop = uniqueShopId('order-exec');
const domain = `${shop}.myshopify.com`;
const token = `shpat_${randomBytes(8).toString('hex')}`;
const quiet = { warn: () => undefined };

let emu: ShopifyEmulator;
let store: EmulatedShop;
let t: TestApp;
let key: string;
let applier: WebhookApplier;
let preConnectOrder: string;

const drain = async () => {
  const platform = platformGatewayFactory({ secretBox: () => new SecretBox(resolveSecretKey(t.config)), api: { endpoint: t.config.shopifyEndpoint, backoffBaseMs: 2 } });
  const drainer = startOutboxDrainer({ orm: t.orm, platform, intervalMs: 0, batchSize: 50, logger: quiet, shopIds: [shop], retryBaseMs: 1, retryMaxMs: 1 });
  try {
    return await drainer.drainOnce();
  } finally {
    await drainer.stop();
  }
};

/** Waits for the deliveries in flight, then applies until a pass applies nothing more. */
async function settle(): Promise<void> {
  await settleWebhooks(emu, applier, { deferred: true });
}

async function commitments(variantId: string) {
  const res = await t.get(`/api/v1/raw-materials/${variantId}/commitments`, key);
  expect(res.status).toBe(200);
  return res.body.data as { levels: { locationId: string; orders: number; holders: { holderId: string; quantity: number }[] }[]; totals: { orders: number; unlocated: number } };
}

async function adjustments(orderId: string) {
  return t.orm.em.fork().execute<{ variant_id: string; stock: string; delta: string; requested_delta: string; source: string; fulfilment_id: string }[]>(
    `select variant_id, stock, delta::text, requested_delta::text, source, fulfilment_id from inventory_adjustments
     where shop_id = ? and order_id = ? order by created_at, variant_id`, [shop, orderId]);
}

const rows = (snapshot: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, snapshot[k] ?? '0']));
const TRACKED = ['shelf|44100|101', 'level|VMAT-VAR-0001|101', 'residual|buildRun|44001|101', 'pending|44001|101', 'platform|44001|101'];

beforeAll(async () => {
  const json = workOrderShop(shop, [], { preassembled: [{ itemId: '44100', locationId: '101', quantity: 3 }], reservations: [] }) as {
    platform: { variants: { variantId: string; levels: { locationId: string; available: number }[] }[] };
  };
  json.platform.variants.find((v) => v.variantId === '44001')!.levels = [{ locationId: '101', available: 1000 }];
  json.platform.variants.find((v) => v.variantId === '44100')!.levels = [{ locationId: '101', available: 50 }];
  const dataset = toDataset(json);
  // The store's clock runs 10 minutes behind until the shop connects: the order placed and partly
  // fulfilled meanwhile shipped before bomcore kept its stock.
  let clockOffsetMs = -600_000;
  emu = await startShopifyEmulator({ bulkRunningMs: 10, apiSecret: API_SECRET, now: () => new Date(Date.now() + clockOffsetMs) });
  store = emu.addShop({ domain, token, seed: dataset.platform });
  preConnectOrder = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 4 }], locationId: '101' }).id;
  store.fulfil(preConnectOrder, { lines: [{ variantId: '44100', quantity: 1 }], locationId: '101' });
  clockOffsetMs = 0;
  t = await createTestApp({ config: { secretKey: randomBytes(32).toString('hex'), shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET } });
  const webhookUri = await listenForWebhooks(t);
  await t.load(dataset);
  key = await t.createKey(shop, ['read', 'write']);
  await connect(t.orm, t.config, { shopId: shop, domain, token, webhookUri });
  applier = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 200, logger: quiet, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config), shopIds: [shop], retryBaseMs: 0 });
}, 120_000);

afterAll(async () => {
  await applier?.stop();
  await emu?.close();
  await t?.close();
});

describe(`orders move stock on ${databaseLabel}`, () => {
  let orderId: string;
  const fulfilments: string[] = [];

  it('an order for a BOM\'s finished good reserves its quantity at the order\'s location (the commitments read names the order)', async () => {
    orderId = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 10 }], locationId: '101' }).id;
    await settle();
    const read = await commitments('44100');
    const level = read.levels.find((l) => l.locationId === '101')!;
    expect(level.orders).toBe(10);
    expect(level.holders).toEqual([expect.objectContaining({ holderId: orderId, quantity: 10 })]);
    expect(read.totals).toMatchObject({ orders: 10, unlocated: 0 });
  });

  it('a first partial fulfilment takes the finished good\'s pre-assembled units first, then builds the rest by recipe', async () => {
    const before = await stockSnapshot(t.orm, shop);
    fulfilments.push(store.fulfil(orderId, { lines: [{ variantId: '44100', quantity: 4 }], locationId: '101' }));
    await settle();
    const after = await stockSnapshot(t.orm, shop);
    // 3 from the shelf; 1 by recipe: 1 wick, 0.42 kg wax carried (no whole unit yet, nothing pushed).
    expect(rows(after, TRACKED)).toEqual({
      ...rows(before, TRACKED), 'shelf|44100|101': '0', 'level|VMAT-VAR-0001|101': '499', 'residual|buildRun|44001|101': '0.42',
    });
    expect((await commitments('44100')).levels.find((l) => l.locationId === '101')!.orders).toBe(6);
  });

  it('the second part is built wholly from components; the wax carried across both parts leaves the level in whole units', async () => {
    fulfilments.push(store.fulfil(orderId, { lines: [{ variantId: '44100', quantity: 6 }], locationId: '101' }));
    await settle();
    const after = await stockSnapshot(t.orm, shop);
    // 6 × 0.42 = 2.52 kg, + 0.42 carried = 2.94: 2 whole kg deducted (pending push), 0.94 carried; 6 wicks.
    expect(rows(after, TRACKED)).toMatchObject({
      'shelf|44100|101': '0', 'level|VMAT-VAR-0001|101': '493', 'residual|buildRun|44001|101': '0.94', 'pending|44001|101': '-2',
    });
    const read = await commitments('44100');
    expect(read.totals.orders).toBe(0);
  });

  it('every consumption is in the adjustment history, naming the order and its fulfilment', async () => {
    const history = await adjustments(orderId);
    expect(history.every((a) => a.source === 'order_fulfilment')).toBe(true);
    expect(history.map((a) => [a.fulfilment_id, a.stock, a.variant_id, a.delta])).toEqual([
      [fulfilments[0], 'preassembled', '44100', '-3.000000'],
      [fulfilments[0], 'material', 'VMAT-VAR-0001', '-1.000000'],
      [fulfilments[1], 'material', '44001', '-2.000000'],
      [fulfilments[1], 'material', 'VMAT-VAR-0001', '-6.000000'],
    ].sort((a, b) => (a[0]! === b[0]! ? 0 : a[0] === fulfilments[0] ? -1 : 1)));
  });

  it('the component deductions are pushed to Shopify exactly once, naming the order as their reference, and the finished good\'s own level never', async () => {
    const wax = store.available('44001', '101')!;
    const candles = store.available('44100', '101')!;
    const groups = store.adjustmentGroups.length;
    expect(await drain()).toEqual({ pushed: 1, failed: 0 });
    expect(await drain()).toEqual({ pushed: 0, failed: 0 });
    expect(store.available('44001', '101')).toBe(wax - 2);
    expect(store.available('44100', '101')).toBe(candles);
    // Shopify's inventory history links the adjustment to the order whose fulfilment consumed the wax.
    expect(store.adjustmentGroups.slice(groups).map((g) => g.referenceDocumentUri)).toEqual([`gid://shopify/Order/${orderId}`]);
  });

  it('the webhooks replayed — the same deliveries, and the same bodies as new events — consume nothing twice and push nothing more', async () => {
    const before = await stockSnapshot(t.orm, shop);
    const history = (await adjustments(orderId)).length;
    const wax = store.available('44001', '101')!;
    const orderDeliveries = store.deliveries.filter((d) => d.topic.startsWith('orders/'));
    for (const d of orderDeliveries) await store.send(d);
    for (const d of orderDeliveries) await store.send({ ...d, attempts: [], headers: { ...d.headers, 'x-shopify-event-id': randomUUID() } });
    await settle();
    expect(rows(await stockSnapshot(t.orm, shop), TRACKED)).toEqual(rows(before, TRACKED));
    expect(await adjustments(orderId)).toHaveLength(history);
    expect(await drain()).toEqual({ pushed: 0, failed: 0 });
    expect(store.available('44001', '101')).toBe(wax);
    expect((await commitments('44100')).totals.orders).toBe(0);
  });

  it('a cancelled order releases its reservation and consumes nothing', async () => {
    const other = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 4 }], locationId: '101' }).id;
    await settle();
    expect((await commitments('44100')).levels.find((l) => l.locationId === '101')!.holders.map((h) => h.holderId)).toContain(other);
    const before = await stockSnapshot(t.orm, shop);
    store.cancel(other);
    await settle();
    const read = await commitments('44100');
    expect(read.totals.orders).toBe(0);
    expect(read.levels.flatMap((l) => l.holders).map((h) => h.holderId)).not.toContain(other);
    expect(rows(await stockSnapshot(t.orm, shop), TRACKED)).toEqual(rows(before, TRACKED));
    expect(await adjustments(other)).toEqual([]);
  });

  it('an order whose units are assigned to no location yet holds an unlocated reservation (totals.unlocated)', async () => {
    const floating = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 2 }], routed: false }).id;
    await settle();
    const read = await commitments('44100');
    expect(read.totals).toMatchObject({ orders: 0, unlocated: 2 });
    expect(read.levels.map((l) => l.locationId)).not.toContain('');
    store.cancel(floating);
    await settle();
    expect((await commitments('44100')).totals.unlocated).toBe(0);
  });

  it('a line that is not a BOM\'s finished good reserves and consumes nothing', async () => {
    const before = await stockSnapshot(t.orm, shop);
    const plain = store.createOrder({ lineItems: [{ variantId: '44001', quantity: 1 }], locationId: '101' }).id;
    await settle();
    expect((await commitments('44001')).totals.orders).toBe(0);
    store.fulfil(plain, { locationId: '101' });
    await settle();
    expect(await adjustments(plain)).toEqual([]);
    expect(rows(await stockSnapshot(t.orm, shop), TRACKED.filter((k) => !k.includes('platform|44001')))).toEqual(rows(before, TRACKED.filter((k) => !k.includes('platform|44001'))));
  });

  it('an order placed and fulfilled in two parts while every webhook was lost is reserved and consumed by the reconciliation, once: a second pass moves nothing more', async () => {
    await sync(t.orm, t.config, shop, undefined, { pollMs: 10 });
    const before = await stockSnapshot(t.orm, shop);
    store.dropWebhooks(1000);
    let lost: string;
    try {
      lost = store.createOrder({ lineItems: [{ variantId: '44100', quantity: 5 }], locationId: '101' }).id;
      store.fulfil(lost, { lines: [{ variantId: '44100', quantity: 2 }], locationId: '101' });
      store.fulfil(lost, { lines: [{ variantId: '44100', quantity: 3 }], locationId: '101' });
    } finally {
      store.faults.droppedWebhooks = 0;
    }
    await settle();
    expect(await adjustments(lost)).toEqual([]);

    const first = await reconcile(t.orm, t.config, shop);
    expect(first.drift.orders).toBe(1);
    // Both parts consumed from components (the shelf is empty): 5 wicks, and 5 × 0.42 kg of wax on the carry.
    const history = await adjustments(lost);
    expect(new Set(history.map((h) => h.fulfilment_id)).size).toBe(2);
    const after = await stockSnapshot(t.orm, shop);
    expect(Number(after['level|VMAT-VAR-0001|101'])).toBe(Number(before['level|VMAT-VAR-0001|101']) - 5);
    const carried = (s: Record<string, string>) => Number(s['residual|buildRun|44001|101'] ?? 0) - Number(s['pending|44001|101'] ?? 0);
    expect(carried(after) - carried(before)).toBeCloseTo(2.1, 9);
    // Wholly shipped: the order holds nothing.
    expect((await commitments('44100')).levels.flatMap((l) => l.holders).filter((h) => h.holderId === lost)).toEqual([]);

    // The next pass reads the order again (the window's overlap): nothing is consumed twice.
    await reconcile(t.orm, t.config, shop);
    expect(await adjustments(lost)).toHaveLength(history.length);
    expect(rows(await stockSnapshot(t.orm, shop), TRACKED)).toEqual(rows(after, TRACKED));
  });

  it('a fulfilment shipped before the store was connected consumes nothing: the sync reserves what is left of an order no webhook brought, it counts as fulfilled, and a later one consumes as usual', async () => {
    const holding = async () => (await commitments('44100')).levels.find((l) => l.locationId === '101')!.holders.find((h) => h.holderId === preConnectOrder)?.quantity;
    // No event of the order has arrived: the full sync (run by the test above) reserved its 3 units still to ship; another sync changes nothing.
    expect(await holding()).toBe(3);
    await sync(t.orm, t.config, shop, undefined, { pollMs: 10 });
    expect(await holding()).toBe(3);
    const before = await stockSnapshot(t.orm, shop);
    store.fulfil(preConnectOrder, { lines: [{ variantId: '44100', quantity: 1 }], locationId: '101' });
    await settle();
    const history = await adjustments(preConnectOrder);
    // Only the fulfilment made after connecting consumed: one candle's components (the shelf is empty).
    expect(new Set(history.map((h) => h.fulfilment_id)).size).toBe(1);
    const after = await stockSnapshot(t.orm, shop);
    expect(Number(after['level|VMAT-VAR-0001|101'])).toBe(Number(before['level|VMAT-VAR-0001|101']) - 1);
    expect(await holding()).toBe(2);
  });
});
