import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookFollowers } from '../../src/app/composition.ts';
import { connect, sync } from '../../src/cli/shop-link.ts';
import { startWebhookApplier, type WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { listenForWebhooks, settleWebhooks } from '../helpers/webhook-settle.ts';

// Catalogue truth from Shopify's inventory items: a unit cost the merchant changes on Shopify
// (inventory_items/update, the only webhook that carries it) moves the material's cost and, in the
// same transaction, the cost of every bill that uses it; an item whose stock Shopify does not track
// ("Track quantity" off: labels, string) is not stock, so it never limits buildable, and the answer
// names it. A full sync reads both.

const SECRET_KEY = randomBytes(32).toString('hex');
const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;

let tick = 0;
const clock = () => new Date(Date.UTC(2026, 5, 1) + (tick++) * 1000);

let emu: ShopifyEmulator;
let t: TestApp;
let applier: WebhookApplier;
let webhookUri: string;

interface Linked { shopId: string; key: string; store: EmulatedShop }

/** The standard small shop, Soy wax (44001) at 1 unit in Main Workshop, so wax limits BOM-1001 there. */
const shopJson = (shopId: string, cost = 6.2) => {
  const json = datasetJson(shopId) as { platform: { variants: { variantId: string; cost: number | null; levels: { locationId: string; available: number }[] }[] } };
  const wax = json.platform.variants.find((v) => v.variantId === '44001')!;
  wax.cost = cost;
  wax.levels = [{ locationId: '101', available: 1 }, { locationId: '102', available: 3 }];
  return json;
};

async function link(label: string, beforeSync?: (store: EmulatedShop) => void): Promise<Linked> {
  const shopId = uniqueShopId(label);
  const domain = `${shopId}.myshopify.com`;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  const dataset = toDataset(shopJson(shopId));
  const store = emu.addShop({ domain, token, seed: dataset.platform });
  beforeSync?.(store);
  await t.load(dataset);
  await connect(t.orm, t.config, { shopId, domain, token, webhookUri });
  await sync(t.orm, t.config, shopId, undefined, { pollMs: 10 });
  return { shopId, key: await t.createKey(shopId, ['read']), store };
}

async function settle(): Promise<void> {
  await settleWebhooks(emu, applier);
}

/** BOM-1001 as the list shows it: its costs come from the stored roll-up (the single read computes them afresh). */
const bom = async (s: Pick<Linked, 'key'>) => {
  const list = (await t.get('/api/v1/bills-of-materials?search=BOM-1001', s.key)).body.data;
  return { ...list.items[0], totalValue: list.stats.totalValue };
};
const buildableAt101 = async (s: Pick<Linked, 'key'>) => (await t.get('/api/v1/bills-of-materials/BOM-1001/buildable?locationIds=101', s.key)).body.data;
const untracked = async (s: Pick<Linked, 'key'>) =>
  (await t.graphql(s.key, '{ bomBuildable(bomId: "BOM-1001", locationIds: ["101"]) { untrackedComponents totals { maxBuildable } } }')).body.data.bomBuildable;

/** A shop loaded from its dataset with the wax at `cost`: the roll-up a full rebuild computes, the oracle of a cost change. */
async function referenceShop(cost: number): Promise<{ key: string }> {
  const shopId = uniqueShopId('items-ref');
  await t.load(toDataset(shopJson(shopId, cost)));
  return { key: await t.createKey(shopId, ['read']) };
}

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 20, apiSecret: API_SECRET, now: clock });
  t = await createTestApp({ config: { secretKey: SECRET_KEY, shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET } });
  webhookUri = await listenForWebhooks(t);
  applier = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 200, logger: { warn: () => {} }, followers: webhookFollowers(t.config), retryBaseMs: 0, maxAttempts: 1000 });
}, 120_000);

afterAll(async () => {
  await applier?.stop();
  await emu?.close();
  await t?.close();
});

describe(`Shopify inventory items (cost, tracked) on ${databaseLabel}`, () => {
  it('a cost changed on Shopify (inventory_items/update) moves the material\'s cost and every BOM cost using it, as a rebuild from a dataset with that cost computes', async () => {
    const s = await link('items-cost');
    const reference = await bom(await referenceShop(7.35));
    expect((await bom(s)).totalCost).not.toBe(reference.totalCost);
    s.store.updateInventoryItem('44001', { cost: '7.35' });
    await settle();
    expect((await t.get('/api/v1/raw-materials/44001', s.key)).body.data.material.unitCost).toBe(7.35);
    const after = await bom(s);
    for (const field of ['totalRawMaterialCost', 'totalSubAssemblyCost', 'directCostFactorCost', 'totalCost', 'totalValue'] as const) expect(after[field], field).toBe(reference[field]);
  });

  it('an older inventory_items/update arriving after a newer one changes nothing (the item\'s own updated_at guards it)', async () => {
    const s = await link('items-order');
    s.store.holdWebhooks();
    s.store.updateInventoryItem('44001', { cost: '8' });
    s.store.updateInventoryItem('44001', { cost: '9.5' });
    await s.store.releaseWebhooks((held) => [...held].reverse());
    await settle();
    expect((await t.get('/api/v1/raw-materials/44001', s.key)).body.data.material.unitCost).toBe(9.5);
    expect((await bom(s)).totalCost).toBe((await bom(await referenceShop(9.5))).totalCost);
  });

  it('an item Shopify does not track is not stock: it stops limiting buildable and the answer names it; tracked again, it limits again', async () => {
    const s = await link('items-tracked');
    const limited = await buildableAt101(s);
    // 1 kg of wax at 0.4 kg + 5% waste a candle: 2 candles, the wax the first limiting component.
    expect(limited.totals.maxBuildable).toBe(2);
    expect(limited.perLocation[0].limitingComponents[0].nodeId).toBe('44001');
    expect(await untracked(s)).toEqual({ untrackedComponents: [], totals: { maxBuildable: 2 } });

    s.store.updateInventoryItem('44001', { tracked: false });
    await settle();
    const free = await buildableAt101(s);
    // The wick (500.5 in Main Workshop, 1 a candle through its assembly) limits now.
    expect(free.totals.maxBuildable).toBe(500);
    expect(free.perLocation[0].limitingComponents.map((c: { nodeId: string }) => c.nodeId)).not.toContain('44001');
    expect(await untracked(s)).toEqual({ untrackedComponents: ['44001'], totals: { maxBuildable: 500 } });

    s.store.updateInventoryItem('44001', { tracked: true });
    await settle();
    expect((await buildableAt101(s)).totals.maxBuildable).toBe(2);
  });

  it('a full sync reads whether each item is tracked and its cost', async () => {
    const s = await link('items-sync', (store) => {
      const item = store.store.items.get(store.store.variantOrThrow('44001').inventoryItemId)!;
      item.tracked = false;
      item.unitCost = '7.35';
    });
    expect(await untracked(s)).toEqual({ untrackedComponents: ['44001'], totals: { maxBuildable: 500 } });
    expect((await bom(s)).totalCost).toBe((await bom(await referenceShop(7.35))).totalCost);
  });
});
