import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, sync, webhookApiFor } from '../../src/cli/shop-link.ts';
import { webhookFollowers } from '../../src/app/composition.ts';
import { startWebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, webhookHmac, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrderShop } from '../helpers/work-order-fixtures.ts';

// A full sync replaces the mirror with Shopify's bulk snapshot. A change made while the export ran
// that reached bomcore by webhook first is newer than the snapshot: the sync applies such events
// again after the replacement, so the newer state is not lost under the older one.

const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;
let emu: ShopifyEmulator;
let t: TestApp;
const shop = uniqueShopId('shopify-race');
const domain = `${shop}.myshopify.com`;
const token = `shpat_${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  const dataset = toDataset(workOrderShop(shop, []));
  emu = await startShopifyEmulator({ bulkRunningMs: 10, apiSecret: API_SECRET });
  emu.addShop({ domain, token, seed: dataset.platform });
  t = await createTestApp({ config: { secretKey: randomBytes(32).toString('hex'), shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET } });
  await t.load(dataset);
  await connect(t.orm, t.config, { shopId: shop, domain, token, webhookUri: null });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await emu?.close();
});

describe(`a full sync and webhooks on ${databaseLabel}`, () => {
  it('a level change newer than the sync\'s snapshot, applied from its webhook before the sync commits, survives the sync', async () => {
    const level = async () => (await stockSnapshot(t.orm, shop))['platform|44001|101'];
    const snapshotLevel = String(emu.shop(domain).available('44001', '101'));
    // Shopify says: at a time after the export started, wax at location 101 went to 77.
    const body = JSON.stringify({ inventory_item_id: 46001, location_id: 101, available: 77, updated_at: new Date(Date.now() + 30_000).toISOString() });
    const posted = await t.app.inject({
      method: 'POST', url: '/webhooks/shopify', payload: body,
      headers: {
        'content-type': 'application/json', 'x-shopify-topic': 'inventory_levels/update', 'x-shopify-shop-domain': domain,
        'x-shopify-event-id': `race-${randomBytes(4).toString('hex')}`, 'x-shopify-hmac-sha256': webhookHmac(API_SECRET, body),
      },
    });
    expect(posted.statusCode).toBe(200);
    const applier = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 10, logger: { warn: () => {} }, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config), shopIds: [shop] });
    expect((await applier.applyOnce()).applied).toBe(1);
    await applier.stop();
    expect(await level()).toBe('77');

    await sync(t.orm, t.config, shop, undefined, { pollMs: 10 });
    expect(snapshotLevel).not.toBe('77');
    expect(await level()).toBe('77');
    // The material follows the mirror: its inventory read shows the newer level.
    const key = await t.createKey(shop, ['read']);
    const inventory = (await t.get('/api/v1/raw-materials/44001/inventory?locationIds=101', key)).body.data;
    expect(inventory.totalAvailable).toBe(77);
  });
});
