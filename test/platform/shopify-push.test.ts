import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, retryPushes, status } from '../../src/cli/shop-link.ts';
import { startOutboxDrainer } from '../../src/modules/stock/outbox-drainer.ts';
import { recordPushedLevel } from '../../src/platform/shopify/mirror-guard.ts';
import { platformGatewayFactory } from '../../src/platform/shopify/shopify-gateway.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Stock out, exactly once: a connected shop's build runs push their platform-linked deductions to
// Shopify with inventoryAdjustQuantities under @idempotent(key: <push id>). An answer lost after
// Shopify applied the move is retried with the same key and replayed, so Shopify's level moves once;
// a push Shopify refuses for good is stopped with the PLATFORM_PUSH_STUCK warning, never retried in a loop.

let emu: ShopifyEmulator;
let store: EmulatedShop;
let t: TestApp;
let key: string;
const shop = uniqueShopId('shopify-push');
const domain = `${shop}.myshopify.com`;
const token = `shpat_${randomBytes(8).toString('hex')}`;
const quiet = { warn: () => undefined };

/** The production factory with short backoffs: a lost answer is retried in milliseconds, not seconds. */
const platform = () => platformGatewayFactory({ secretBox: () => new SecretBox(resolveSecretKey(t.config)), api: { endpoint: t.config.shopifyEndpoint, backoffBaseMs: 2 } });

const drain = async () => {
  const drainer = startOutboxDrainer({ orm: t.orm, platform: platform(), intervalMs: 0, batchSize: 50, logger: quiet, shopIds: [shop], retryBaseMs: 1, retryMaxMs: 1 });
  try {
    return await drainer.drainOnce();
  } finally {
    await drainer.stop();
  }
};

async function buildRun(id: string, quantity: number): Promise<void> {
  const current = (await t.get('/api/v1/work-orders/wo_big', key)).body.data;
  const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_big/build-runs', key, headers: { 'content-type': 'application/json' },
    payload: { expectedUpdatedAt: current.updatedAt, buildRunId: id, items: [{ itemId: 'woi_1', quantity }] } });
  expect(res.statusCode).toBe(200);
}

beforeAll(async () => {
  const json = workOrderShop(shop, [workOrder('wo_big', 'in_progress', {
    items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 400, completedQuantity: 0 }],
  })]) as { platform: { variants: { variantId: string; levels: { locationId: string; available: number }[] }[] }; materials: { variantId: string; levels?: unknown[] }[] };
  json.platform.variants.find((v) => v.variantId === '44001')!.levels = [{ locationId: '101', available: 1000 }, { locationId: '102', available: 3 }];
  json.materials.find((m) => m.variantId === 'VMAT-VAR-0001')!.levels = [{ locationId: '101', available: 5000 }];
  const dataset = toDataset(json);
  emu = await startShopifyEmulator({ bulkRunningMs: 10 });
  store = emu.addShop({ domain, token, seed: dataset.platform });
  t = await createTestApp({ config: { secretKey: randomBytes(32).toString('hex'), shopifyEndpoint: emu.url } });
  await t.load(dataset);
  key = await t.createKey(shop, ['read', 'write']);
  await connect(t.orm, t.config, { shopId: shop, domain, token, webhookUri: null });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await emu?.close();
});

describe(`stock pushes to Shopify on ${databaseLabel}`, () => {
  it('20 build runs, each push answered with a lost connection after Shopify applied it: every Shopify level moved exactly once, with the build run as reference', async () => {
    const before = store.available('44001', '101')!;
    let pushed = 0;
    let failedPasses = 0;
    for (let i = 1; i <= 20; i += 1) {
      await buildRun(`run-${i}`, 10);
      // Odd runs: the first answer is lost and the client's retry (same key) is replayed. Even runs:
      // every answer of the pass is lost (the client gives up after 5), and the drainer's next pass replays.
      store.timeoutAfterApply(i % 2 === 1 ? 1 : 5);
      for (let pass = 0; pass < 3; pass += 1) {
        const result = await drain();
        pushed += result.pushed;
        failedPasses += result.failed;
        if (result.pushed > 0) break;
      }
    }
    expect(pushed).toBe(20);
    expect(failedPasses).toBe(10);
    expect(store.available('44001', '101')).toBe(before - 84);
    const groups = store.adjustmentGroups.filter((g) => g.referenceDocumentUri?.includes('wo_big'));
    expect(groups).toHaveLength(20);
    expect(new Set(groups.map((g) => g.idempotencyKey)).size).toBe(20);
    expect(groups[0]!.referenceDocumentUri).toMatch(/^bomcore:\/\/work-orders\/wo_big\/build-runs\/run-\d+\?push=/);
    // 20 runs × 10 candles × 0.42 kg: 84 whole kg left, through the residual carry.
    const after = await stockSnapshot(t.orm, shop);
    expect(after['pending|44001|101']).toBeUndefined();
    expect(after['platform|44001|101']).toBe(String(before - 84));
    expect((await drain())).toEqual({ pushed: 0, failed: 0 });
    expect(store.available('44001', '101')).toBe(before - 84);
  }, 120_000);

  it('Shopify throttling and 5xx answers delay a push, never duplicate it', async () => {
    const before = store.available('44001', '101')!;
    await buildRun('run-throttled', 10);
    store.throttleNext(1, 'THROTTLED');
    store.failNext(1, 503);
    let pushed = 0;
    for (let pass = 0; pass < 5 && pushed < 1; pass += 1) pushed += (await drain()).pushed;
    expect(pushed).toBe(1);
    const moved = before - store.available('44001', '101')!;
    expect(moved).toBeGreaterThanOrEqual(4);
    expect(moved).toBeLessThanOrEqual(5);
    expect(store.adjustmentGroups.filter((g) => g.referenceDocumentUri?.includes('run-throttled'))).toHaveLength(1);
  }, 60_000);

  it('a pushed level is written only when nothing newer is held: a replayed answer with an older time never moves the level back', async () => {
    const level = async () => (await stockSnapshot(t.orm, shop))['platform|44001|101'];
    const now = await level();
    await recordPushedLevel(t.orm.em.fork(), shop, { pushId: 'replayed-old', variantId: '44001', inventoryItemId: '46001', locationId: '101' }, '999999', new Date('2020-01-01T00:00:00Z'));
    expect(await level()).toBe(now);
    const applied = await t.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from platform_applied_pushes where shop_id = ? and push_id = ?', [shop, 'replayed-old']);
    expect(applied[0]!.n).toBe(1);
  });

  it('a push Shopify refuses for good (its product was deleted) is stopped with PLATFORM_PUSH_STUCK and not claimed again; retry-pushes releases it', async () => {
    await buildRun('run-deleted', 10);
    store.deleteProduct('8001');
    const first = await drain();
    expect(first).toMatchObject({ pushed: 0, failed: 0, stopped: 1 });
    expect(await drain()).toEqual({ pushed: 0, failed: 0 });
    const warning = (await t.get('/api/v1/work-orders/wo_big', key)).body.data.warnings.find((w: { code: string }) => w.code === 'PLATFORM_PUSH_STUCK');
    expect(warning).toMatchObject({ count: 1, message: expect.stringContaining('refused for good'), remedy: expect.stringContaining('retry-pushes') });
    expect((await status(t.orm, shop)).pushes).toMatchObject({ pending: 1, stopped: 1 });
    expect(await retryPushes(t.orm, shop)).toBe(1);
    expect((await status(t.orm, shop)).pushes).toMatchObject({ pending: 1, stopped: 0 });
  }, 60_000);
});
