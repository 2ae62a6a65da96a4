import { contextDeps } from '../../src/app/composition.ts';
import { pendingStorefrontRecomputes } from '../../src/modules/boms/for-stock.ts';
import { startOutboxDrainer, type DrainResult } from '../../src/modules/stock/outbox-drainer.ts';
import { platformGatewayFactory } from '../../src/platform/shopify/shopify-gateway.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import type { TestApp } from './test-app.ts';

const quiet = { warn: () => undefined };

/** One outbox drainer pass for a shop, with storefront stock wired as `serve` wires it (short backoffs). */
export async function drainShop(t: TestApp, shopId: string): Promise<DrainResult> {
  const platform = platformGatewayFactory({ secretBox: () => new SecretBox(resolveSecretKey(t.config)), api: { endpoint: t.config.shopifyEndpoint, backoffBaseMs: 2 } });
  const drainer = startOutboxDrainer({
    orm: t.orm, platform, storefront: contextDeps(t.orm, t.config, platform), intervalMs: 0, batchSize: 50, logger: quiet, shopIds: [shopId], retryBaseMs: 1, retryMaxMs: 1,
  });
  try {
    return await drainer.drainOnce();
  } finally {
    await drainer.stop();
  }
}

/** Drains until no storefront marker of the shop is pending (polling, no fixed sleep); the passes' results. */
export async function settleStorefront(t: TestApp, shopId: string): Promise<DrainResult[]> {
  const results: DrainResult[] = [];
  for (let pass = 0; pass < 10; pass += 1) {
    results.push(await drainShop(t, shopId));
    if (await pendingStorefrontRecomputes(t.orm.em.fork(), shopId) === 0) return results;
  }
  throw new Error('storefront markers still pending after 10 passes');
}
