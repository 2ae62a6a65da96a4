import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, status, sync, webhookApiFor } from '../../src/cli/shop-link.ts';
import { webhookFollowers } from '../../src/app/composition.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { startOutboxDrainer } from '../../src/modules/stock/outbox-drainer.ts';
import { enqueuePlatformPushes } from '../../src/modules/stock/platform-push.repository.ts';
import { platformGatewayFactory } from '../../src/platform/shopify/shopify-gateway.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import { exact } from '../../src/kernel/numbers/index.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { shopEm } from '../../src/kernel/shop-context.ts';
import { startWebhookApplier, type WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import { WEBHOOK_TOPICS } from '../../src/platform/shopify/webhook-topics.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, webhookHmac, type EmulatedShop, type ShopifyEmulator, type WebhookDelivery } from '../helpers/shopify-emulator/index.ts';
import { expectQuantitySortExact } from '../helpers/stored-quantity.ts';
import { lastEventSequence, levelEventsSince } from '../helpers/level-events.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { listenForWebhooks, settleWebhooks } from '../helpers/webhook-settle.ts';

// Shopify webhooks in (POST /webhooks/shopify): signed with the app secret, stored once per event,
// answered at once, applied afterwards to the shop's mirror in Shopify's time order — so duplicate,
// late and shuffled deliveries end in the same state as in-order ones, and one store's webhooks
// never touch another shop.

const SECRET_KEY = randomBytes(32).toString('hex');
const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;

// Shopify's REST timestamps have whole seconds: a clock one second further on each change keeps
// every change of a store distinct, so "newer" is well defined for the order-independence tests.
let tick = 0;
const clock = () => new Date(Date.UTC(2026, 0, 1) + (tick++) * 1000);

let emu: ShopifyEmulator;
let t: TestApp;
let applier: WebhookApplier;
let webhookUri: string;

interface Linked { shopId: string; domain: string; key: string; store: EmulatedShop; dataset: Dataset }

async function link(label: string, seed: number, allowNegativeInventory = false): Promise<Linked> {
  const shopId = uniqueShopId(label);
  const domain = `${shopId}.myshopify.com`;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  const dataset = generateDataset({ materials: 30, boms: 6, depth: 2, locations: 3, workOrders: 2, orders: 8, seed, shopId });
  dataset.shop.settings.allowNegativeInventory = allowNegativeInventory;
  const store = emu.addShop({ domain, token, seed: dataset.platform });
  await t.load(dataset);
  const result = await connect(t.orm, t.config, { shopId, domain, token, webhookUri });
  expect(result.webhooksRegistered).toEqual([...WEBHOOK_TOPICS]);
  await sync(t.orm, t.config, shopId, undefined, { pollMs: 10 });
  return { shopId, domain, key: await t.createKey(shopId, ['read']), store, dataset };
}

/** Waits for the deliveries in flight, then applies until a pass applies nothing more. */
async function settle(): Promise<void> {
  await settleWebhooks(emu, applier);
}

async function inboxCount(shopId: string, eventId?: string): Promise<number> {
  const rows = await t.orm.em.fork().getConnection().execute(
    `select count(*)::int as n from shopify_webhook_events where shop_id = ?${eventId ? ' and event_id = ?' : ''}`, eventId ? [shopId, eventId] : [shopId]);
  return Number(rows[0].n);
}

function post(delivery: Pick<WebhookDelivery, 'headers' | 'body'>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/webhooks/shopify', headers: { ...delivery.headers, ...headers }, payload: delivery.body });
}

let a: Linked;
let b: Linked;

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 20, apiSecret: API_SECRET, now: clock });
  t = await createTestApp({ config: { secretKey: SECRET_KEY, shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET } });
  webhookUri = await listenForWebhooks(t);
  applier = startWebhookApplier({
    orm: t.orm, intervalMs: 0, batchSize: 200, logger: { warn: () => {} }, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config), retryBaseMs: 0, maxAttempts: 1000,
  });
  // Two stores with the same ids (one generated dataset, two shops): a webhook of one must not touch the other.
  a = await link('hooks-a', 5);
  b = await link('hooks-b', 5);
}, 180_000);

afterAll(async () => {
  await applier?.stop();
  await emu?.close();
  await t?.close();
});

describe(`Shopify webhooks in on ${databaseLabel}`, () => {
  it('a missing or wrong signature is 401 and stores nothing', async () => {
    const body = JSON.stringify({ inventory_item_id: 1, location_id: 1, available: 5, updated_at: '2030-01-01T00:00:00Z' });
    const headers = { 'content-type': 'application/json', 'x-shopify-topic': 'inventory_levels/update', 'x-shopify-shop-domain': a.domain, 'x-shopify-event-id': 'forged-1' };
    const before = await inboxCount(a.shopId);
    const wrong = await post({ headers: { ...headers, 'x-shopify-hmac-sha256': webhookHmac('not-the-secret', body) }, body });
    const missing = await post({ headers, body });
    // Signed over other bytes (a re-serialised body) is refused too: the signature is over the raw body.
    const reserialised = await post({ headers: { ...headers, 'x-shopify-hmac-sha256': webhookHmac(API_SECRET, JSON.stringify(JSON.parse(body), null, 1)) }, body });
    for (const response of [wrong, missing, reserialised]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(await inboxCount(a.shopId)).toBe(before);
  });

  it('without SHOPIFY_API_SECRET the endpoint answers 503 saying so, and stores nothing', async () => {
    const bare = await createTestApp({ orm: t.orm, config: { secretKey: SECRET_KEY, shopifyApiSecret: null } });
    try {
      const response = await bare.app.inject({ method: 'POST', url: '/webhooks/shopify', headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect(response.statusCode).toBe(503);
      expect(response.json().detail).toMatch(/SHOPIFY_API_SECRET/);
    } finally {
      await bare.close();
    }
  });

  it('the endpoint is not in the REST OpenAPI document', () => {
    expect(Object.keys((t.app.swagger() as { paths: Record<string, unknown> }).paths)).not.toContain('/webhooks/shopify');
  });

  it('a store no shop is connected to is answered 200 and nothing is stored', async () => {
    const body = JSON.stringify({ id: 1, name: 'x' });
    const response = await post({ headers: { 'content-type': 'application/json', 'x-shopify-topic': 'locations/update', 'x-shopify-shop-domain': 'nobody-here.myshopify.com',
      'x-shopify-event-id': 'stray', 'x-shopify-hmac-sha256': webhookHmac(API_SECRET, body) }, body });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ received: false });
    const rows = await t.orm.em.fork().getConnection().execute(`select count(*)::int as n from shopify_webhook_events where event_id = 'stray'`);
    expect(Number(rows[0].n)).toBe(0);
  });

  it('a delivery sent again (same event id) is answered 200 and stored once', async () => {
    const variant = a.dataset.platform.variants[0]!;
    const location = a.dataset.platform.locations[0]!.id;
    a.store.holdWebhooks();
    a.store.setAvailable(variant.variantId, location, 41);
    await a.store.releaseWebhooks();
    const delivery = a.store.deliveries.at(-1)!;
    expect(delivery.status).toBe('delivered');
    expect(await a.store.send(delivery)).toBe(200);
    const again = await post(delivery);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    expect(await inboxCount(a.shopId, delivery.eventId)).toBe(1);
    await settle();
    const read = await t.get(`/api/v1/raw-materials/${variant.variantId}/inventory`, a.key);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).toContain('41');
  });

  it("shop A's webhooks never touch shop B (the same ids in both stores)", async () => {
    const variant = a.dataset.platform.variants[1]!;
    const location = a.dataset.platform.locations[1]!.id;
    const before = await t.get(`/api/v1/raw-materials/${variant.variantId}/inventory`, b.key);
    a.store.setAvailable(variant.variantId, location, 987);
    a.store.updateProduct(variant.productId, { title: 'Only in store A' });
    await settle();
    const levelRows = await t.orm.em.fork().getConnection().execute(
      'select shop_id, available from platform_levels where variant_id = ? and location_id = ? and shop_id in (?, ?) order by shop_id', [variant.variantId, location, a.shopId, b.shopId]);
    expect(Object.fromEntries(levelRows.map((r: { shop_id: string; available: string }) => [r.shop_id, Number(r.available)]))[a.shopId]).toBe(987);
    expect(levelRows.find((r: { shop_id: string }) => r.shop_id === b.shopId)?.available).not.toBe('987.000000');
    expect(normalise((await t.get(`/api/v1/raw-materials/${variant.variantId}/inventory`, b.key)).body)).toEqual(normalise(before.body));
    const names = await t.orm.em.fork().getConnection().execute('select shop_id, product_name from platform_variants where variant_id = ? and shop_id in (?, ?)', [variant.variantId, a.shopId, b.shopId]);
    expect(names.find((r: { shop_id: string }) => r.shop_id === b.shopId)?.product_name).not.toBe('Only in store A');
    expect(names.find((r: { shop_id: string }) => r.shop_id === a.shopId)?.product_name).toBe('Only in store A');
  });

  it('a late, older level update does not overwrite a newer one', async () => {
    const variant = a.dataset.platform.variants[2]!;
    const location = a.dataset.platform.locations[0]!.id;
    a.store.holdWebhooks();
    a.store.setAvailable(variant.variantId, location, 5);
    a.store.setAvailable(variant.variantId, location, 9);
    const [older, newer] = a.store.deliveries.filter((d) => d.status === 'held' && d.topic === 'inventory_levels/update').slice(-2);
    await a.store.releaseWebhooks(() => [newer!]);
    await settle();
    await a.store.send(older!);
    await settle();
    const [row] = await t.orm.em.fork().getConnection().execute('select available from platform_levels where shop_id = ? and variant_id = ? and location_id = ?', [a.shopId, variant.variantId, location]);
    expect(Number(row.available)).toBe(9);
    // Sent again later still (a retry), the older event stays harmless.
    await post(older!, { 'x-shopify-event-id': 'retried-older-level' });
    await settle();
    const [after] = await t.orm.em.fork().getConnection().execute('select available from platform_levels where shop_id = ? and variant_id = ? and location_id = ?', [a.shopId, variant.variantId, location]);
    expect(Number(after.available)).toBe(9);
  });

  it('a level update moves the platform-linked material in the inventory-quantity sort (the stored quantity follows the platform total)', async () => {
    const material = a.dataset.materials.find((m) => m.origin === 'platform')!;
    a.store.setAvailable(material.variantId, a.dataset.platform.locations[1]!.id, 765432);
    await settle();
    const top = (await t.get('/api/v1/raw-materials?sortBy=inventoryQuantity&sortOrder=desc&pageSize=1', a.key)).body.data.items[0];
    expect(top.variantId).toBe(material.variantId);
    await expectQuantitySortExact(t, a.shopId, a.key);
  });

  it('a level Shopify changed for a platform-linked material is one inventory.level_changed event (source platform, before and after as bomcore reads them, pending pushes included); the same value again, an older update and a variant that is no material send none', async () => {
    const materialIds = new Set(a.dataset.materials.map((m) => m.variantId));
    const material = a.dataset.materials.filter((m) => m.origin === 'platform').at(-1)!.variantId;
    const other = a.dataset.platform.variants.find((v) => !materialIds.has(v.variantId))!.variantId;
    const location = a.dataset.platform.locations[0]!.id;
    const view = async () => {
      const read = await t.get(`/api/v1/raw-materials/${material}/inventory?locationIds=${location}`, a.key);
      expect(read.status).toBe(200);
      return read.body.data.totalAvailable as number;
    };
    const last = await lastEventSequence(t.orm, a.shopId);
    const levelEvents = () => levelEventsSince(t.orm, a.shopId, last);

    // A stock move bomcore has not pushed yet (as a build run's picks leave it; no drainer runs here): every read shows Shopify's level plus it.
    await shopEm(t.orm, a.shopId).transactional((em) => enqueuePlatformPushes(em, a.shopId, [{ variantId: material, locationId: location, delta: '-2', workOrderId: null, buildRunId: null, reason: 'build_run' }]));
    const seen = await view();
    const moved = (await levelEvents()).length;

    a.store.setAvailable(material, location, 500);
    await settle();
    expect(await view()).toBe(498);
    const events = (await levelEvents()).slice(moved);
    expect(events).toEqual([{
      resource: `inventory:material:${material}@${location}`,
      data: {
        stock: 'material', variantId: material, locationId: location, before: seen, after: 498, delta: 498 - seen,
        source: 'platform', adjustmentId: null, workOrderId: null, buildRunId: null, orderId: null, fulfilmentId: null,
      },
    }]);

    // The same value again (a newer updated_at only), an older update arriving late, a variant bomcore keeps no material of: no event.
    a.store.setAvailable(material, location, 500);
    a.store.holdWebhooks();
    a.store.setAvailable(material, location, 7);
    a.store.setAvailable(material, location, 8);
    const [older, newer] = a.store.deliveries.filter((d) => d.status === 'held' && d.topic === 'inventory_levels/update').slice(-2);
    await a.store.releaseWebhooks(() => [newer!]);
    await settle();
    await a.store.send(older!);
    a.store.setAvailable(other, location, 321);
    await settle();
    expect((await levelEvents()).slice(moved + 1).map((e) => [e.data.source, e.data.before, e.data.after])).toEqual([['platform', 498, 6]]);
    expect(await view()).toBe(6);
  });

  it('a push whose answer was lost and whose own webhook came first: bomcore counts it twice until the retry confirms it, and the events say both, so each level event starts where the last ended and the last ends at Shopify\'s level', async () => {
    const material = a.dataset.materials.filter((m) => m.origin === 'platform').at(-2)!.variantId;
    const location = a.dataset.platform.locations[1]!.id;
    const drainer = startOutboxDrainer({
      orm: t.orm, intervalMs: 0, batchSize: 50, logger: { warn: () => {} }, shopIds: [a.shopId], retryBaseMs: 1, retryMaxMs: 1,
      platform: platformGatewayFactory({ secretBox: () => new SecretBox(resolveSecretKey(t.config)), api: { endpoint: emu.url, backoffBaseMs: 2 } }),
    });
    const view = async () => (await t.get(`/api/v1/raw-materials/${material}/inventory?locationIds=${location}`, a.key)).body.data.totalAvailable as number;
    try {
      await drainer.drainOnce(); // what earlier tests left pending
      await settle();
      const last = await lastEventSequence(t.orm, a.shopId);
      await shopEm(t.orm, a.shopId).transactional((em) => enqueuePlatformPushes(em, a.shopId, [{ variantId: material, locationId: location, delta: '-3', workOrderId: null, buildRunId: null, reason: 'build_run' }]));
      const start = await view();
      const shopify = a.store.available(material, location)!;

      // Shopify applies the push, every answer is lost; its webhook of the change arrives while the push is still pending.
      a.store.timeoutAfterApply(5);
      expect(await drainer.drainOnce()).toMatchObject({ pushed: 0, failed: 1 });
      expect(a.store.available(material, location)).toBe(shopify - 3);
      await settle();
      expect(await view()).toBe(start - 3); // counted twice: Shopify's level and the pending push
      // The retry is answered (replayed under the same idempotency key) and the push leaves the outbox.
      expect(await drainer.drainOnce()).toMatchObject({ pushed: 1, failed: 0 });
      expect(await view()).toBe(start);
      expect(await view()).toBe(a.store.available(material, location));

      const events = await levelEventsSince(t.orm, a.shopId, last, `inventory:material:${material}@${location}`);
      expect(events.map((e) => [e.data.source, e.data.before, e.data.after])).toEqual([['platform', start, start - 3], ['platform', start - 3, start]]);
    } finally {
      await drainer.stop();
    }
  });

  it('products/update renames a platform-linked material (the REST read shows it)', async () => {
    const material = a.dataset.materials.find((m) => /^\d+$/.test(m.variantId))!;
    const variant = a.dataset.platform.variants.find((v) => v.variantId === material.variantId)!;
    a.store.updateProduct(variant.productId, { title: 'Beeswax, renamed on Shopify' }, { [variant.variantId]: { sku: 'WAX-NEW', price: '12.50' } });
    await settle();
    const read = await t.get(`/api/v1/raw-materials/${encodeURIComponent(material.variantId)}`, a.key);
    expect(read.status).toBe(200);
    const text = JSON.stringify(read.body);
    expect(text).toContain('Beeswax, renamed on Shopify');
    expect(text).toContain('WAX-NEW');
  });

  it('orders/cancelled takes the order out of the open orders; its breakdown is then Shopify\'s, with no current line items', async () => {
    const order = a.dataset.platform.orders[0]!;
    expect((await t.get(`/api/v1/order-bom-breakdown/${order.orderId}`, a.key)).status).toBe(200);
    a.store.cancel(order.orderId);
    await settle();
    const held = () => t.orm.em.fork().getConnection().execute('select open from platform_orders where shop_id = ? and order_id = ?', [a.shopId, order.orderId]);
    expect(await held()).toEqual([]);
    // The breakdown works for every order: read on demand, a cancelled order has no current line left.
    const read = await t.get(`/api/v1/order-bom-breakdown/${order.orderId}`, a.key);
    expect(read.status).toBe(200);
    expect({ boms: read.body.data.boms, otherItems: read.body.data.otherItems }).toEqual({ boms: [], otherItems: [] });
    expect(await held()).toEqual([{ open: false }]);
  });

  it('every delivery is answered in well under Shopify\'s 5 s (under 1 s), before it is applied', async () => {
    const variants = a.dataset.platform.variants.slice(0, 10);
    a.store.holdWebhooks();
    for (const [i, v] of variants.entries()) a.store.setAvailable(v.variantId, a.dataset.platform.locations[0]!.id, 100 + i);
    const held = a.store.deliveries.filter((d) => d.status === 'held');
    a.store.releaseWebhooks(() => []);
    const times: number[] = [];
    for (const d of held) {
      const started = performance.now();
      expect(await a.store.send(d)).toBe(200);
      times.push(performance.now() - started);
    }
    expect(Math.max(...times)).toBeLessThan(1000);
    // Stored, not yet applied: the applier does that afterwards.
    const pending = await t.orm.em.fork().getConnection().execute(`select count(*)::int as n from shopify_webhook_events where shop_id = ? and status = 'pending'`, [a.shopId]);
    expect(Number(pending[0].n)).toBe(held.length);
    await settle();
  });

  it('two appliers at once (two server instances) apply each event exactly once', async () => {
    const other = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 7, logger: { warn: () => {} }, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config) });
    const mine = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 7, logger: { warn: () => {} }, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config) });
    try {
      a.store.holdWebhooks();
      for (const [i, v] of a.dataset.platform.variants.slice(0, 20).entries()) a.store.setAvailable(v.variantId, a.dataset.platform.locations[2]!.id, 200 + i);
      const held = a.store.deliveries.filter((d) => d.status === 'held').length;
      await a.store.releaseWebhooks();
      let applied = 0;
      for (;;) {
        const [x, y] = await Promise.all([mine.applyOnce(), other.applyOnce()]);
        applied += x.applied + y.applied;
        if (x.claimed === 0 && y.claimed === 0) break;
      }
      expect(applied).toBe(held);
      const rows = await t.orm.em.fork().getConnection().execute(`select count(*)::int as n from shopify_webhook_events where shop_id = ? and status = 'applied' and attempts <> 1`, [a.shopId]);
      expect(Number(rows[0].n)).toBe(0);
    } finally {
      await Promise.all([mine.stop(), other.stop()]);
    }
  });

  it('app/uninstalled marks the connection: status says the token is dead', async () => {
    b.store.uninstall();
    await settle();
    const shown = await status(t.orm, b.shopId);
    expect(shown.connection?.uninstalledAt).toBeInstanceOf(Date);
  });
});

describe(`1,000 webhooks delivered twice and shuffled on ${databaseLabel}`, () => {
  it('end in the same mirror state and REST reads as the same webhooks delivered once in order, which is the store\'s own state', async () => {
    // Orders move stock: a fulfilment consumes at the level it finds, clamped at zero, and shuffled
    // deliveries show it other levels along the way. With negatives allowed nothing is clamped, and
    // the residual carry makes the total consumed the same in any order: the reads must agree.
    const inOrder = await link('hooks-ordered', 9, true);
    const shuffled = await link('hooks-shuffled', 9, true);
    inOrder.store.holdWebhooks();
    shuffled.store.holdWebhooks();
    const random = mulberry32(2026);
    const seeded = new Set(inOrder.dataset.platform.variants.map((v) => v.productId));
    let ops = 0;
    while (shuffled.store.deliveries.filter((d) => d.status === 'held').length < 1000) {
      const op = changeFor(inOrder.store, seeded, random);
      op(inOrder.store);
      op(shuffled.store);
      ops += 1;
    }
    const held = shuffled.store.deliveries.filter((d) => d.status === 'held');
    expect(held.length).toBeGreaterThanOrEqual(1000);

    // In order: each delivery once, as made, applied as they come.
    await inOrder.store.releaseWebhooks();
    await settle();

    // Shuffled: every delivery twice, in a random order, applied in several passes along the way.
    const twice = shuffle([...held, ...held], mulberry32(7));
    shuffled.store.releaseWebhooks(() => []);
    const times: number[] = [];
    for (let i = 0; i < twice.length; i += 1) {
      const started = performance.now();
      const answer = await shuffled.store.send(twice[i]!);
      times.push(performance.now() - started);
      expect(answer).toBe(200);
      if (i % 400 === 399) await applier.applyOnce();
    }
    await settle();
    times.sort((x, y) => x - y);
    console.log(`${ops} store changes → ${held.length} webhooks; shuffled ×2 answered in p50 ${times[times.length >> 1]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
    expect(times.at(-1)!).toBeLessThan(1000);

    const ordered = await mirrorOf(inOrder.shopId);
    expect(await mirrorOf(shuffled.shopId)).toEqual(ordered);
    expect(ordered).toEqual(truthOf(inOrder.store, ordered.variants));

    for (const url of ['/raw-materials?pageSize=100', '/locations', ...inOrder.dataset.platform.orders.map((o) => `/order-bom-breakdown/${o.orderId}`),
      ...inOrder.dataset.materials.map((m) => `/raw-materials/${encodeURIComponent(m.variantId)}/inventory`)]) {
      const [x, y] = await Promise.all([t.get(`/api/v1${url}`, inOrder.key), t.get(`/api/v1${url}`, shuffled.key)]);
      expect({ url, status: y.status }).toEqual({ url, status: x.status });
      expect(normalise(y.body)).toEqual(normalise(x.body));
    }
  }, 300_000);
});

// ---------- helpers of the order-independence test ----------

function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let r = Math.imul(s ^ (s >>> 15), 1 | s);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(list: T[], random: () => number): T[] {
  for (let i = list.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)]!;

/**
 * One random change of a store, chosen from the in-order store's state and applied to both stores
 * (they hold the same ids): levels, products (edit, create, delete), locations (create,
 * (de)activate), orders (create, fulfil, cancel, delete).
 */
function changeFor(store: EmulatedShop, seeded: ReadonlySet<string>, random: () => number): (s: EmulatedShop) => void {
  const variants = [...store.store.variants.keys()].sort();
  const products = [...store.store.products.keys()].sort();
  const locations = [...store.store.locations.values()].sort((x, y) => x.id.localeCompare(y.id));
  const firstLocation = locations[0]!.id;
  const open = [...store.store.orders.values()].filter((o) => !o.cancelledAt).sort((x, y) => x.id.localeCompare(y.id));
  const roll = random();
  const n = Math.floor(random() * 1000);
  if (roll < 0.45 || variants.length === 0) {
    const variant = pick(variants, random);
    const location = pick(locations, random).id;
    return (s) => s.setAvailable(variant, location, n % 60);
  }
  if (roll < 0.6) {
    const product = pick(products, random);
    const variant = store.store.products.get(product)!.variantIds[0]!;
    return (s) => s.updateProduct(product, { title: `Product ${n}`, vendor: n % 2 ? 'Acme' : 'Globex' }, { [variant]: { price: `${n}.25`, sku: `SKU-${n}` } });
  }
  if (roll < 0.7) {
    const lines = [pick(variants, random), pick(variants, random)].map((variantId, i) => ({ variantId, quantity: 1 + ((n + i) % 3) }));
    return (s) => s.createOrder({ lineItems: lines, locationId: firstLocation });
  }
  if (roll < 0.78 && open.some((o) => o.lineItems.some((l) => l.currentQuantity > l.fulfilledQuantity))) {
    const order = pick(open.filter((o) => o.lineItems.some((l) => l.currentQuantity > l.fulfilledQuantity)), random);
    return (s) => s.fulfil(order.id);
  }
  if (roll < 0.85 && open.length > 0) {
    const order = pick(open, random);
    return (s) => s.cancel(order.id);
  }
  if (roll < 0.89) {
    const location = pick(locations, random).id;
    return (s) => {
      const product = s.addProduct({ title: `New ${n}`, vendor: 'Acme', variants: [{ sku: `NEW-${n}`, price: '3.10' }] });
      s.setAvailable(product.variantIds[0]!, location, n % 40);
    };
  }
  // Products made during the run (no material links them: a material whose product is deleted keeps what it last saw).
  const made = products.filter((id) => !seeded.has(id));
  if (roll < 0.92 && made.length > 0) {
    const product = pick(made, random);
    return (s) => s.deleteProduct(product);
  }
  if (roll < 0.95) return (s) => void s.addLocation({ name: `Depot ${n}` });
  if (roll < 0.98 && locations.length > 1) {
    const location = pick(locations.slice(1), random);
    return (s) => s.setLocationActive(location.id, !s.store.locations.get(location.id)!.isActive);
  }
  if (open.length > 0) {
    const order = pick(open, random);
    return (s) => s.deleteOrder(order.id);
  }
  return () => {};
}

interface MirrorState {
  locations: { id: string; name: string }[];
  variants: { id: string; product: string; item: string; name: string; variantName: string | null; sku: string | null; price: string | null }[];
  levels: { variant: string; location: string; available: number }[];
  orders: { id: string; lines: { variant: string | null; quantity: number }[] }[];
}

/** A shop's mirror, without the columns that differ by construction (Shopify's clock, the synced cost). */
async function mirrorOf(shopId: string): Promise<MirrorState> {
  const db = t.orm.em.fork().getConnection();
  const locations = await db.execute('select location_id, name from platform_locations where shop_id = ? order by location_id', [shopId]);
  const variants = await db.execute('select variant_id, product_id, inventory_item_id, product_name, variant_name, sku, price from platform_variants where shop_id = ? order by variant_id', [shopId]);
  const levels = await db.execute('select variant_id, location_id, available from platform_levels where shop_id = ? order by variant_id, location_id', [shopId]);
  const orders = await db.execute('select order_id from platform_orders where shop_id = ? order by order_id', [shopId]);
  const lines = await db.execute('select order_id, variant_id, quantity from platform_order_lines where shop_id = ? order by order_id, position', [shopId]);
  return {
    locations: locations.map((r: any) => ({ id: r.location_id, name: r.name })),
    variants: variants.map((r: any) => ({ id: r.variant_id, product: r.product_id, item: r.inventory_item_id, name: r.product_name, variantName: r.variant_name, sku: r.sku, price: r.price === null ? null : exact(String(r.price)).toFixed() })),
    levels: levels.map((r: any) => ({ variant: r.variant_id, location: r.location_id, available: Number(r.available) })),
    orders: orders.map((r: any) => ({ id: r.order_id, lines: lines.filter((l: any) => l.order_id === r.order_id).map((l: any) => ({ variant: l.variant_id, quantity: Number(l.quantity) })) })),
  };
}

/** What Shopify itself holds, in the mirror's shape: active locations, variants, available levels, open orders' current lines. */
function truthOf(shop: EmulatedShop, _mirrored: MirrorState['variants']): MirrorState {
  const s = shop.store;
  const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  const variants = [...s.variants.values()].map((v) => ({
    id: v.id, product: v.productId, item: v.inventoryItemId, name: s.products.get(v.productId)!.title, variantName: v.title === 'Default Title' ? null : v.title,
    sku: v.sku === '' ? null : v.sku, price: exact(v.price).toFixed(),
  })).sort(byId);
  const levels = variants.flatMap((v) => [...(s.levels.get(v.item)?.values() ?? [])].map((l) => ({ variant: v.id, location: l.locationId, available: l.available })))
    .sort((x, y) => (x.variant < y.variant ? -1 : x.variant > y.variant ? 1 : x.location < y.location ? -1 : x.location > y.location ? 1 : 0));
  return {
    locations: [...s.locations.values()].filter((l) => l.isActive).map((l) => ({ id: l.id, name: l.name })).sort(byId),
    variants,
    levels,
    orders: [...s.orders.values()].filter((o) => !o.cancelledAt && !o.closed).sort(byId)
      .map((o) => ({ id: o.id, lines: o.lineItems.filter((l) => l.currentQuantity > 0).map((l) => ({ variant: l.variantId, quantity: l.currentQuantity })) })),
  };
}

/** Fields that differ between two shops by construction (time of the write), not by content. */
function normalise(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (['updatedAt', 'requestId', 'generatedAt'].includes(key) ? '<time>' : value));
}
