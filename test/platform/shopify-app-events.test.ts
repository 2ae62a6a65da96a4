import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookFollowers } from '../../src/app/composition.ts';
import { connect, sync } from '../../src/cli/shop-link.ts';
import { startOutboxDrainer } from '../../src/modules/stock/outbox-drainer.ts';
import { enqueuePlatformPushes } from '../../src/modules/stock/platform-push.repository.ts';
import { platformGatewayFactory } from '../../src/platform/shopify/shopify-gateway.ts';
import { startWebhookApplier, type WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import type { Config } from '../../src/kernel/config.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { listenForWebhooks, settleWebhooks } from '../helpers/webhook-settle.ts';

// What Shopify tells an app about its own installation, and the compliance webhooks it requires of
// every app (https://shopify.dev/docs/apps/build/compliance/privacy-law-compliance):
// - app/uninstalled stops every call and push at once (on receipt) and drops the tokens;
// - app/scopes_update records the scopes granted now;
// - customers/data_request logs for the operator what bomcore holds of the customer;
// - customers/redact erases the customer's data (the stored webhook payloads of their orders);
// - shop/redact erases the store's mirror, connection and stored webhooks, and bomcore's own
//   records of the shop unless the operator chose BOMCORE_SHOP_REDACT=keep.
// A compliance payload names a person: once applied, its event keeps no payload.

const SECRET_KEY = randomBytes(32).toString('hex');
const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;

let emu: ShopifyEmulator;
let t: TestApp;
let applier: WebhookApplier;
let webhookUri: string;
const logged: { details: Record<string, unknown>; message: string }[] = [];

interface Linked { shopId: string; key: string; store: EmulatedShop }

async function link(label: string): Promise<Linked> {
  const shopId = uniqueShopId(label);
  const domain = `${shopId}.myshopify.com`;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  const dataset = toDataset(datasetJson(shopId));
  const store = emu.addShop({ domain, token, seed: dataset.platform });
  await t.load(dataset);
  await connect(t.orm, t.config, { shopId, domain, token, webhookUri });
  await sync(t.orm, t.config, shopId, undefined, { pollMs: 10 });
  return { shopId, key: await t.createKey(shopId, ['read']), store };
}

async function settle(a: WebhookApplier = applier): Promise<void> {
  await settleWebhooks(emu, a);
}

const sqlRows = async (query: string, params: unknown[]) => t.orm.em.fork().getConnection().execute(query, params);
const connectionRow = async (shopId: string) => (await sqlRows(
  'select token_sealed, refresh_token_sealed, uninstalled_at, scopes from platform_connections where shop_id = ?', [shopId]))[0];

/** Rows of the shop in every table that has a shop_id column. */
async function rowsOfShop(shopId: string): Promise<Record<string, number>> {
  const tables = await sqlRows(`select table_name from information_schema.columns where table_schema = current_schema() and column_name = 'shop_id'
    and table_name in (select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE')`, []);
  const counts: Record<string, number> = {};
  for (const { table_name: table } of tables) {
    const [row] = await sqlRows(`select count(*)::int as n from "${table}" where shop_id = ?`, [shopId]);
    if (Number(row.n) > 0) counts[table] = Number(row.n);
  }
  return counts;
}

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 20, apiSecret: API_SECRET });
  t = await createTestApp({ config: { secretKey: SECRET_KEY, shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET } });
  webhookUri = await listenForWebhooks(t);
  applier = startWebhookApplier({
    orm: t.orm, intervalMs: 0, batchSize: 200, followers: webhookFollowers(t.config), retryBaseMs: 0, maxAttempts: 1000,
    logger: { warn: (details, message) => logged.push({ details, message }) },
  });
}, 120_000);

afterAll(async () => {
  await applier?.stop();
  await emu?.close();
  await t?.close();
});

describe(`Shopify app and compliance webhooks on ${databaseLabel}`, () => {
  it('app/uninstalled drops the tokens on receipt, before the applier runs, and a push then waits in the outbox without calling the store', async () => {
    const s = await link('app-uninstall');
    expect((await connectionRow(s.shopId)).token_sealed).toMatch(/^v1:/);
    s.store.uninstall();
    await emu.webhooksIdle();
    // Not applied yet: the receipt itself stopped everything.
    const row = await connectionRow(s.shopId);
    expect(row.token_sealed).toBe('');
    expect(row.refresh_token_sealed).toBeNull();
    expect(row.uninstalled_at).not.toBeNull();

    await t.orm.em.fork().transactional((tx) => enqueuePlatformPushes(tx, s.shopId, [{ variantId: '44001', locationId: '101', delta: '-1', workOrderId: null, buildRunId: null, reason: 'api' }]));
    const calls = s.store.requests.length;
    const drainer = startOutboxDrainer({
      orm: t.orm, platform: platformGatewayFactory({ secretBox: () => new SecretBox(resolveSecretKey(t.config)), api: { endpoint: emu.url } }),
      intervalMs: 0, batchSize: 10, logger: { warn: () => {} }, shopIds: [s.shopId], retryBaseMs: 1, retryMaxMs: 1,
    });
    try {
      expect(await drainer.drainOnce()).toMatchObject({ pushed: 0, failed: 1 });
    } finally {
      await drainer.stop();
    }
    expect(s.store.requests.length).toBe(calls);
    const [push] = await sqlRows("select status, last_error from platform_pushes where shop_id = ?", [s.shopId]);
    expect(push).toMatchObject({ status: 'pending', last_error: expect.stringContaining('uninstalled the app') });
    await settle();
    expect((await connectionRow(s.shopId)).token_sealed).toBe('');
  });

  it('app/scopes_update records the scopes the merchant granted now', async () => {
    const s = await link('app-scopes');
    const scopes = ['read_products', 'read_inventory', 'write_inventory', 'read_locations', 'read_orders', 'read_merchant_managed_fulfillment_orders'];
    s.store.updateScopes(scopes);
    await settle();
    const granted = (await connectionRow(s.shopId)).scopes;
    expect(typeof granted === 'string' ? JSON.parse(granted) : granted).toEqual(scopes);
  });

  it('customers/data_request logs for the operator what bomcore holds of the customer\'s orders, and keeps no copy of the request', async () => {
    const s = await link('data-request');
    const order = s.store.createOrder({ orderId: '7101', locationId: '101', lineItems: [{ variantId: '44100', quantity: 1 }] });
    await settle();
    logged.length = 0;
    expect(await s.store.sendCompliance(webhookUri, 'customers/data_request', { customerId: 42, orderIds: [Number(order.id), 999999], dataRequestId: 77 })).toBe(200);
    await settle();
    const report = logged.find((l) => l.message.includes('customers/data_request'))?.details.dataRequest as Record<string, unknown>;
    expect(report).toMatchObject({ shopId: s.shopId, customerId: '42', dataRequestId: '77', ordersRequested: [order.id, '999999'], ordersHeld: [{ orderId: order.id, lines: 1 }] });
    expect(report.storedWebhookPayloads).toBeGreaterThan(0);
    const [event] = await sqlRows("select payload from shopify_webhook_events where shop_id = ? and topic = 'customers/data_request'", [s.shopId]);
    expect(JSON.stringify(event.payload)).not.toContain('customer@example.com');
  });

  it('customers/redact erases the stored webhook payloads of the customer\'s orders, and only theirs', async () => {
    const s = await link('redact');
    const theirs = s.store.createOrder({ orderId: '7201', locationId: '101', lineItems: [{ variantId: '44100', quantity: 1 }] });
    const other = s.store.createOrder({ orderId: '7202', locationId: '101', lineItems: [{ variantId: '44100', quantity: 1 }] });
    await settle();
    const payloads = async (orderId: string) => (await sqlRows('select payload from shopify_webhook_events where shop_id = ? and resource = ?', [s.shopId, `order:${orderId}`]))
      .map((r: { payload: unknown }) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload));
    expect((await payloads(theirs.id)).some((p: Record<string, unknown>) => p.id !== undefined)).toBe(true);
    expect(await s.store.sendCompliance(webhookUri, 'customers/redact', { customerId: 43, orderIds: [Number(theirs.id)] })).toBe(200);
    await settle();
    expect(await payloads(theirs.id)).toEqual((await payloads(theirs.id)).map(() => ({ redacted: true })));
    expect((await payloads(theirs.id)).length).toBeGreaterThan(0);
    expect((await payloads(other.id)).every((p: Record<string, unknown>) => p.id !== undefined)).toBe(true);
    // The mirrored order stays: stock was reserved for it.
    expect((await t.get(`/api/v1/order-bom-breakdown/${theirs.id}`, s.key)).status).toBe(200);
  });

  it('shop/redact erases every row of the shop (BOMCORE_SHOP_REDACT=erase, the default)', async () => {
    const s = await link('shop-redact');
    expect(Object.keys(await rowsOfShop(s.shopId))).toEqual(expect.arrayContaining(['materials', 'boms', 'platform_variants', 'platform_connections']));
    s.store.uninstall();
    expect(await s.store.sendCompliance(webhookUri, 'shop/redact')).toBe(200);
    await settle();
    // All that is left is the shop's data-version counter (a number, no data), raised at the erasure's
    // commit: a shop made again under the same id never answers with a tag a client cached before.
    expect(await rowsOfShop(s.shopId)).toEqual({ shop_data_versions: 1 });
    expect(await sqlRows('select id from shops where id = ?', [s.shopId])).toEqual([]);
  });

  it('shop/redact with BOMCORE_SHOP_REDACT=keep erases the store\'s mirror, connection and stored webhooks, and keeps bomcore\'s own records', async () => {
    const s = await link('shop-keep');
    const keeping = startWebhookApplier({
      orm: t.orm, intervalMs: 0, batchSize: 200, followers: webhookFollowers({ ...t.config, shopRedact: 'keep' } as Config), retryBaseMs: 0, maxAttempts: 1000,
      logger: { warn: () => {} }, shopIds: [s.shopId],
    });
    try {
      s.store.uninstall();
      expect(await s.store.sendCompliance(webhookUri, 'shop/redact')).toBe(200);
      await settle(keeping);
    } finally {
      await keeping.stop();
    }
    const left = await rowsOfShop(s.shopId);
    for (const gone of ['platform_variants', 'platform_levels', 'platform_orders', 'platform_locations', 'platform_connections']) expect(left[gone], gone).toBeUndefined();
    expect(Object.keys(left).filter((table) => table === 'shopify_webhook_events')).toEqual(['shopify_webhook_events']);
    expect(left.shopify_webhook_events).toBe(1);
    expect(left).toMatchObject({ materials: expect.any(Number), boms: 1 });
  });
});
