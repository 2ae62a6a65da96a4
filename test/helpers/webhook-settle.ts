import type { AddressInfo } from 'node:net';
import type { WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import type { ShopifyEmulator } from './shopify-emulator/index.ts';
import type { TestApp } from './test-app.ts';

/**
 * Lets the test app receive the emulator's webhooks: listens on a free local port and returns the
 * `/webhooks/shopify` address to subscribe.
 */
export async function listenForWebhooks(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/webhooks/shopify`;
}

/**
 * Waits for the emulator's deliveries in flight, then applies passes until one applies (and sets
 * aside) nothing more; with `deferred`, also until none waits (an event that needs a read from the
 * store first).
 */
export async function settleWebhooks(emu: ShopifyEmulator, applier: WebhookApplier, options: { deferred?: boolean } = {}): Promise<void> {
  await emu.webhooksIdle();
  for (;;) {
    const r = await applier.applyOnce();
    if (r.applied === 0 && r.skipped === 0 && (!options.deferred || r.deferred === 0)) return;
  }
}
