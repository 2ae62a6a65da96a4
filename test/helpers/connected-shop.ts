import { randomBytes } from 'node:crypto';
import { connect, webhookApiFor } from '../../src/cli/shop-link.ts';
import { webhookFollowers } from '../../src/app/composition.ts';
import { startWebhookApplier, type WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { startShopifyEmulator, type EmulatedShop, type EmulatorOptions, type ShopifyEmulator } from './shopify-emulator/index.ts';
import { createTestApp, type TestApp } from './test-app.ts';
import { listenForWebhooks, settleWebhooks } from './webhook-settle.ts';

/** A shop loaded into a test app and connected to an emulated Shopify store, its webhooks applied as `serve` applies them. */
export interface ConnectedShop {
  shopId: string;
  domain: string;
  /** The store's Admin API token (the one the shop connected with). */
  token: string;
  apiSecret: string;
  emu: ShopifyEmulator;
  store: EmulatedShop;
  t: TestApp;
  /** A read and write key of the shop. */
  key: string;
  applier: WebhookApplier;
  /** Waits for the store's webhook deliveries in flight, then applies until a pass applies nothing more. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the emulator with the dataset's platform as the store's, a test app with `dataset`
 * loaded, connects the shop (`bomcore shop connect`) and starts the webhook applier.
 * `beforeConnect` runs on the store before the shop connects (orders placed before it, say).
 */
export async function startConnectedShop(shopId: string, dataset: Dataset, options: {
  emulator?: Omit<EmulatorOptions, 'apiSecret'>;
  beforeConnect?: (store: EmulatedShop) => void | Promise<void>;
} = {}): Promise<ConnectedShop> {
  const apiSecret = `shpss_${randomBytes(12).toString('hex')}`;
  const domain = `${shopId}.myshopify.com`;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  const emu = await startShopifyEmulator({ bulkRunningMs: 10, ...options.emulator, apiSecret });
  const store = emu.addShop({ domain, token, seed: dataset.platform });
  await options.beforeConnect?.(store);
  const t = await createTestApp({ config: { secretKey: randomBytes(32).toString('hex'), shopifyEndpoint: emu.url, shopifyApiSecret: apiSecret } });
  const webhookUri = await listenForWebhooks(t);
  await t.load(dataset);
  const key = await t.createKey(shopId, ['read', 'write']);
  await connect(t.orm, t.config, { shopId, domain, token, webhookUri });
  const applier = startWebhookApplier({
    orm: t.orm, intervalMs: 0, batchSize: 200, logger: { warn: () => undefined }, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config),
    shopIds: [shopId], retryBaseMs: 0,
  });
  return {
    shopId, domain, token, apiSecret, emu, store, t, key, applier,
    settle: () => settleWebhooks(emu, applier, { deferred: true }),
    close: async () => {
      await applier.stop();
      await emu.close();
      await t.close();
    },
  };
}
