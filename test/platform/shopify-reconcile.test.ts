import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, reconcile, status, sync, webhookApiFor } from '../../src/cli/shop-link.ts';
import { webhookFollowers } from '../../src/app/composition.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { requestOperation } from '../../src/platform/shopify/operations.ts';
import { startShopifyReconciler, type Reconciler, type ReconcilerLogger } from '../../src/platform/shopify/reconcile/reconciler.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import { adminApiFor } from '../../src/platform/shopify/shopify-gateway.ts';
import { startWebhookApplier, type WebhookApplier, type WebhookFollowers } from '../../src/platform/shopify/webhooks/apply.ts';
import type { PlatformOrderChange } from '../../src/kernel/platform-port/gateway.ts';
import type { ShopifyAdminApi } from '../../src/platform/shopify/admin-api.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { lastEventSequence, levelEventsSince } from '../helpers/level-events.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { listenForWebhooks, settleWebhooks } from '../helpers/webhook-settle.ts';

// Reconciliation: a periodic pass re-reads from Shopify what changed since the shop's last pass or
// sync and writes it through the webhooks' guarded mirror writes, so a webhook Shopify never
// delivered heals within the interval — and what differed from the mirror is counted as drift.

const SECRET_KEY = randomBytes(32).toString('hex');
const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;

let emu: ShopifyEmulator;
let t: TestApp;
let applier: WebhookApplier;
let webhookUri: string;
const logged: { level: 'info' | 'warn'; details: Record<string, unknown>; message: string }[] = [];
const logger: ReconcilerLogger = {
  info: (details, message) => logged.push({ level: 'info', details, message }),
  warn: (details, message) => logged.push({ level: 'warn', details, message }),
};

interface Linked { shopId: string; key: string; store: EmulatedShop; dataset: Dataset }

async function link(label: string, seed: number): Promise<Linked> {
  const shopId = uniqueShopId(label);
  const domain = `${shopId}.myshopify.com`;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  const dataset = generateDataset({ materials: 30, boms: 6, depth: 2, locations: 3, workOrders: 2, orders: 8, seed, shopId });
  const store = emu.addShop({ domain, token, seed: dataset.platform });
  await t.load(dataset);
  await connect(t.orm, t.config, { shopId, domain, token, webhookUri });
  await sync(t.orm, t.config, shopId, undefined, { pollMs: 10 });
  return { shopId, key: await t.createKey(shopId, ['read']), store, dataset };
}

/** A reconciler as one server instance runs it (no timer: passes on demand); `wrap` sees its Admin API client. */
function reconciler(shopIds: string[], options: { wrap?: (api: ShopifyAdminApi) => ShopifyAdminApi; maxRequestsPerShop?: number; followers?: WebhookFollowers } = {}): Reconciler {
  const box = new SecretBox(resolveSecretKey(t.config));
  return startShopifyReconciler({
    orm: t.orm, intervalMs: 0, logger, shopIds, followers: options.followers ?? webhookFollowers(t.config), maxRequestsPerShop: options.maxRequestsPerShop,
    apiFor: (c) => (options.wrap ?? ((api) => api))(adminApiFor(c, box, { endpoint: emu.url })),
  });
}

async function settle(): Promise<void> {
  await settleWebhooks(emu, applier);
}

/** Makes changes on the store while every webhook they send is lost; returns how many were lost. */
function withWebhooksLost(store: EmulatedShop, change: () => void): number {
  const before = store.deliveries.filter((d) => d.status === 'dropped').length;
  store.dropWebhooks(1000);
  try {
    change();
  } finally {
    store.faults.droppedWebhooks = 0;
  }
  return store.deliveries.filter((d) => d.status === 'dropped').length - before;
}

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, record[k]]));
}

async function mirroredLevel(shopId: string, variantId: string, locationId: string): Promise<number | null> {
  const rows = await t.orm.em.fork().getConnection().execute('select available from platform_levels where shop_id = ? and variant_id = ? and location_id = ?', [shopId, variantId, locationId]);
  return rows[0] ? Number(rows[0].available) : null;
}

let a: Linked;

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 20, apiSecret: API_SECRET });
  t = await createTestApp({ config: { secretKey: SECRET_KEY, shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET } });
  webhookUri = await listenForWebhooks(t);
  applier = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 200, logger: { warn: () => {} }, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config), retryBaseMs: 0, maxAttempts: 1000 });
  a = await link('reconcile-a', 11);
}, 180_000);

afterAll(async () => {
  await applier?.stop();
  await emu?.close();
  await t?.close();
});

describe(`Shopify reconciliation on ${databaseLabel}`, () => {
  it('with webhooks lost, a level change, a product rename and a cancelled order are healed by one pass (REST reads show them) and counted as drift', async () => {
    const material = a.dataset.materials.find((m) => /^\d+$/.test(m.variantId))!;
    const renamed = a.dataset.platform.variants.find((v) => v.variantId === material.variantId)!;
    const productVariants = a.dataset.platform.variants.filter((v) => v.productId === renamed.productId).length;
    const levelled = a.dataset.platform.variants.find((v) => v.productId !== renamed.productId)!;
    const location = a.dataset.platform.locations[0]!.id;
    const order = a.dataset.platform.orders[0]!;
    expect((await t.get(`/api/v1/order-bom-breakdown/${order.orderId}`, a.key)).status).toBe(200);

    const heldBefore = await mirroredLevel(a.shopId, levelled.variantId, location);
    const last = await lastEventSequence(t.orm, a.shopId);
    const lost = withWebhooksLost(a.store, () => {
      a.store.setAvailable(levelled.variantId, location, 4321);
      a.store.updateProduct(renamed.productId, { title: 'Renamed while the webhooks were down' });
      a.store.cancel(order.orderId);
    });
    expect(lost).toBeGreaterThanOrEqual(3);
    await settle();
    // Nothing arrived: the mirror still holds the old state.
    expect(await mirroredLevel(a.shopId, levelled.variantId, location)).not.toBe(4321);
    expect(JSON.stringify((await t.get(`/api/v1/raw-materials/${material.variantId}`, a.key)).body)).not.toContain('Renamed while the webhooks were down');

    logged.length = 0;
    const report = await reconcile(t.orm, t.config, a.shopId);
    expect(report.finished).toBe(true);
    expect(report.drift).toEqual({ locations: 0, variants: productVariants, levels: 1, orders: 1 });

    expect(JSON.stringify((await t.get(`/api/v1/raw-materials/${levelled.variantId}/inventory`, a.key)).body)).toContain('4321');
    // The healed level of the platform-linked material is an event as a webhook's would have been (source platform).
    const events = await levelEventsSince(t.orm, a.shopId, last);
    expect(events.map((e) => ({ resource: e.resource, ...pick(e.data, ['source', 'before', 'after', 'adjustmentId']) }))).toEqual([
      { resource: `inventory:material:${levelled.variantId}@${location}`, source: 'platform', before: heldBefore ?? 0, after: 4321, adjustmentId: null },
    ]);
    const materialRead = await t.get(`/api/v1/raw-materials/${material.variantId}`, a.key);
    expect(materialRead.status).toBe(200);
    expect(JSON.stringify(materialRead.body)).toContain('Renamed while the webhooks were down');
    // Out of the open orders: its breakdown is read from Shopify, where the cancelled order has no current line left.
    const cancelled = await t.get(`/api/v1/order-bom-breakdown/${order.orderId}`, a.key);
    expect(cancelled.status).toBe(200);
    expect({ boms: cancelled.body.data.boms, otherItems: cancelled.body.data.otherItems }).toEqual({ boms: [], otherItems: [] });

    // Recorded on the connection, as `bomcore shop status` shows it.
    const shown = await status(t.orm, a.shopId);
    expect(shown.connection?.reconcileDrift).toEqual({ locations: 0, variants: productVariants, levels: 1, orders: 1 });
    expect(shown.connection?.reconciledAt).toBeInstanceOf(Date);
    expect(shown.connection?.reconciledThrough).toBeInstanceOf(Date);
    expect(shown.connection?.reconcileError).toBeNull();
  });

  it('an order changed while its webhooks were lost reaches order execution whole: every line and every shipped line past the first page, each fulfilment with its location, within Shopify\'s 1,000-point query cost', async () => {
    const variants = a.dataset.platform.variants.slice(0, 13);
    const location = a.dataset.platform.locations[0]!.id;
    let orderId = '';
    withWebhooksLost(a.store, () => {
      orderId = a.store.createOrder({ lineItems: variants.map((v) => ({ variantId: v.variantId, quantity: 2 })), locationId: location }).id;
      a.store.fulfil(orderId, { locationId: location, lines: variants.map((v) => ({ variantId: v.variantId, quantity: 1 })) });
      a.store.fulfil(orderId, { locationId: location, lines: [{ variantId: variants[0]!.variantId, quantity: 1 }] });
    });
    await settle();
    const seen: PlatformOrderChange[] = [];
    const followers = webhookFollowers(t.config);
    const requestsBefore = a.store.requests.length;
    const r = reconciler([a.shopId], { followers: { ...followers, orderChanged: async (em, shopId, change, eventId) => { seen.push(change); await followers.orderChanged!(em, shopId, change, eventId); } } });
    try {
      expect((await r.reconcileNow(a.shopId))!.finished).toBe(true);
    } finally {
      await r.stop();
    }
    const change = seen.find((c) => c.orderId === orderId)!;
    expect(change).toMatchObject({ status: 'open', locationId: location });
    expect(change.lines).toHaveLength(13);
    expect(change.fulfilments.map((f) => [f.locationId, f.lines.length])).toEqual([[location, 13], [location, 1]]);
    expect(change.fulfilments[0]!.lines.map((l) => l.variantId)).toEqual(variants.map((v) => v.variantId));
    const sent = a.store.requests.slice(requestsBefore);
    expect(sent.map((q) => q.operationName)).toEqual(expect.arrayContaining(['OrderLineItems', 'FulfillmentLineItems']));
    expect(Math.max(...sent.map((q) => q.requestedQueryCost ?? 0))).toBeLessThanOrEqual(1000);
  });

  it('a pass with nothing changed reports 0 drift, logged as one info line for the shop', async () => {
    logged.length = 0;
    const r = reconciler([a.shopId]);
    try {
      const report = await r.reconcileNow(a.shopId);
      expect(report).not.toBeNull();
      expect(report!.finished).toBe(true);
      expect(report!.drift).toEqual({ locations: 0, variants: 0, levels: 0, orders: 0 });
      // The window starts a margin before the last one ended: what the last pass read is read again, and is no drift.
      expect(report!.read.products).toBeGreaterThan(0);
    } finally {
      await r.stop();
    }
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'info', details: { shopId: a.shopId, drift: { locations: 0, variants: 0, levels: 0, orders: 0 } } });
    expect((await status(t.orm, a.shopId)).connection?.reconcileDrift).toEqual({ locations: 0, variants: 0, levels: 0, orders: 0 });
  });

  it('a late reconcile never overwrites newer state a webhook brought (the read is older than the mirror when it is written)', async () => {
    const variant = a.dataset.platform.variants[3]!;
    const location = a.dataset.platform.locations[1]!.id;
    withWebhooksLost(a.store, () => a.store.setAvailable(variant.variantId, location, 55));
    let interleaved = false;
    // Between the read of the levels and their write, Shopify's level moves on and its webhook is applied.
    const r = reconciler([a.shopId], {
      wrap: (api) => {
        const request = api.request.bind(api);
        api.request = (async (operation: string, variables?: Record<string, unknown>) => {
          const answer = await request(operation, variables);
          if (!interleaved && operation === requestOperation('reconcile-levels') && JSON.stringify(answer).includes('"quantity":55')) {
            interleaved = true;
            await new Promise((resolve) => setTimeout(resolve, 1100)); // Shopify's times have whole seconds: the change is a later one
            a.store.setAvailable(variant.variantId, location, 77);
            await settle();
            expect(await mirroredLevel(a.shopId, variant.variantId, location)).toBe(77);
          }
          return answer;
        }) as typeof api.request;
        return api;
      },
    });
    try {
      const report = await r.reconcileNow(a.shopId);
      expect(interleaved).toBe(true);
      expect(report!.error).toBeNull();
    } finally {
      await r.stop();
    }
    expect(await mirroredLevel(a.shopId, variant.variantId, location)).toBe(77);
    expect(a.store.available(variant.variantId, location)).toBe(77);
  });

  it('two passes at once for one shop (two instances) do the work once', async () => {
    const variant = a.dataset.platform.variants[4]!;
    const location = a.dataset.platform.locations[2]!.id;
    withWebhooksLost(a.store, () => a.store.setAvailable(variant.variantId, location, 606));
    const reads = new Set(['Locations', 'ReconcileProducts', 'ProductVariants', 'ReconcileLevels', 'ReconcileOrders', 'OrderLineItems', 'FulfillmentLineItems']);
    const readCount = () => a.store.requests.filter((q) => q.outcome === 'ok' && q.operationName !== null && reads.has(q.operationName)).length;
    const before = readCount();
    const [one, two] = [reconciler([a.shopId]), reconciler([a.shopId])];
    logged.length = 0;
    try {
      const reports = await Promise.all([one.reconcileNow(a.shopId), two.reconcileNow(a.shopId)]);
      const ran = reports.filter((x) => x !== null);
      expect(ran).toHaveLength(1);
      expect(ran[0]!.drift.levels).toBe(1);
      // Shopify was read once: the requests sent are the one pass's own.
      expect(readCount() - before).toBe(ran[0]!.requests);
      expect(logged.filter((l) => l.details.shopId === a.shopId).length).toBe(1);
      // The periodic passes of both instances right after: the shop is not due again yet.
      const passes = await Promise.all([one.runOnce(), two.runOnce()]);
      expect(passes.flatMap((p) => p.shops)).toEqual([]);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
    expect(await mirroredLevel(a.shopId, variant.variantId, location)).toBe(606);
  });

  it('a pass stops at its request budget (finishing at least its first page) and the next pass goes on from where it stopped: one shop\'s large store takes bounded work per pass, and a page larger than the budget never stalls it', async () => {
    const location = a.dataset.platform.locations[0]!.id;
    const variants = a.dataset.platform.variants.slice(5, 9);
    withWebhooksLost(a.store, () => {
      for (const [i, v] of variants.entries()) a.store.setAvailable(v.variantId, location, 900 + i);
    });
    const r = reconciler([a.shopId], { maxRequestsPerShop: 2 });
    const reports = [];
    try {
      for (let i = 0; i < 20; i += 1) {
        const report = await r.reconcileNow(a.shopId);
        reports.push(report!);
        // At most the budget, but a pass always finishes its first page: the 13-line order fulfilled above takes 3 requests.
        expect(report!.requests).toBeLessThanOrEqual(3);
        expect(report!.requests).toBeGreaterThan(0);
        if (report!.finished) break;
        expect((await status(t.orm, a.shopId)).connection?.reconcileUnfinished).toBe(true);
      }
    } finally {
      await r.stop();
    }
    expect(reports.length).toBeGreaterThan(1);
    expect(reports.at(-1)!.finished).toBe(true);
    expect(reports.reduce((n, x) => n + x.drift.levels, 0)).toBe(variants.length);
    for (const [i, v] of variants.entries()) expect(await mirroredLevel(a.shopId, v.variantId, location)).toBe(900 + i);
  });
});
