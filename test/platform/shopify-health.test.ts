import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, status, sync, webhookApiFor } from '../../src/cli/shop-link.ts';
import { webhookFollowers } from '../../src/app/composition.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { startShopifyReconciler } from '../../src/platform/shopify/reconcile/reconciler.ts';
import { resolveSecretKey, SecretBox } from '../../src/kernel/secret-box.ts';
import { adminApiFor } from '../../src/platform/shopify/shopify-gateway.ts';
import { startWebhookApplier, type WebhookApplier } from '../../src/platform/shopify/webhooks/apply.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type EmulatedShop, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// When Shopify is down, reads serve the last synced state and say so: a shop whose store failed its
// last sync or reconciliation pass gets a PLATFORM_STALE warning with the age of its platform data
// on every answer (REST `meta.warnings`, GraphQL `extensions.warnings`), and loses it once a pass
// reads the store again. Other shops' answers never carry it.

const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;
const SECRET_KEY = randomBytes(32).toString('hex');
const quiet = { info: () => undefined, warn: () => undefined };

let emu: ShopifyEmulator;
let t: TestApp;
let applier: WebhookApplier;
let store: EmulatedShop;
let shopId: string;
let key: string;
let otherKey: string;
let variantId: string;

/** One reconciliation pass of the shop, as `serve` runs it; no retries, so a failing store fails the pass at once. */
async function reconcilePass(): Promise<string | null> {
  const box = new SecretBox(resolveSecretKey(t.config));
  const r = startShopifyReconciler({
    orm: t.orm, intervalMs: 0, logger: quiet, shopIds: [shopId], followers: webhookFollowers(t.config),
    apiFor: (c) => adminApiFor(c, box, { endpoint: emu.url, maxAttempts: 1, backoffBaseMs: 1 }),
  });
  try {
    return (await r.reconcileNow(shopId))!.error;
  } finally {
    await r.stop();
  }
}

const materialRead = () => t.get(`/api/v1/raw-materials/${variantId}/inventory`, key);
async function conditional(tag: string) {
  const response = await t.request({ method: 'GET', url: `/api/v1/raw-materials/${variantId}/inventory`, key, headers: { 'if-none-match': tag } });
  return { status: response.statusCode, headers: response.headers, body: response.statusCode === 200 ? response.json() : null };
}
const LEVELS = `query { rawMaterial(variantId: "VID") { variantId } }`;

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 10, apiSecret: API_SECRET });
  t = await createTestApp({ config: { secretKey: SECRET_KEY, shopifyEndpoint: emu.url, shopifyApiSecret: API_SECRET, platformHealthIntervalMs: 0 } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const webhookUri = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/webhooks/shopify`;
  shopId = uniqueShopId('health');
  const dataset = generateDataset({ materials: 10, boms: 3, depth: 2, locations: 2, workOrders: 1, orders: 2, seed: 5, shopId });
  variantId = dataset.materials.find((m) => /^\d+$/.test(m.variantId))!.variantId;
  const token = `shpat_${randomBytes(8).toString('hex')}`;
  store = emu.addShop({ domain: `${shopId}.myshopify.com`, token, seed: dataset.platform });
  await t.load(dataset);
  await connect(t.orm, t.config, { shopId, domain: `${shopId}.myshopify.com`, token, webhookUri });
  await sync(t.orm, t.config, shopId, undefined, { pollMs: 10 });
  key = await t.createKey(shopId, ['read']);
  const other = uniqueShopId('health-other');
  await t.load(generateDataset({ materials: 5, boms: 1, depth: 1, locations: 1, workOrders: 0, orders: 0, seed: 6, shopId: other }));
  otherKey = await t.createKey(other, ['read']);
  applier = startWebhookApplier({ orm: t.orm, intervalMs: 0, batchSize: 200, logger: quiet, followers: webhookFollowers(t.config), apiFor: webhookApiFor(t.config), shopIds: [shopId], retryBaseMs: 0 });
}, 120_000);

afterAll(async () => {
  await applier?.stop();
  await emu?.close();
  await t?.close();
});

describe(`reads say when Shopify is down (${databaseLabel})`, () => {
  it('a shop whose store answers: no warning in REST meta or GraphQL extensions', async () => {
    await t.app.platformHealth.refresh();
    const read = await materialRead();
    expect(read.status).toBe(200);
    expect(read.body.meta.warnings).toBeUndefined();
    const gql = await t.graphql(key, LEVELS.replace('VID', variantId));
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.extensions?.warnings).toBeUndefined();
  });

  it('the store fails a reconciliation pass: every answer of that shop serves the last synced state with a PLATFORM_STALE warning giving its age, at no SQL statement; other shops carry none', async () => {
    const synced = (await status(t.orm, shopId)).connection!;
    expect(synced.failingSince).toBeNull();
    expect(synced.lastContactAt).toEqual(synced.syncCompletedAt);
    const quietRead = await materialRead();

    store.failNext(100, 503);
    expect(await reconcilePass()).toMatch(/503/);
    const failing = (await status(t.orm, shopId)).connection!;
    expect(failing.failingSince).toBeInstanceOf(Date);
    expect(failing.lastContactAt).toEqual(synced.lastContactAt);
    await t.app.platformHealth.refresh();

    const ageBefore = Math.floor((Date.now() - synced.lastContactAt!.getTime()) / 1000);
    const read = await materialRead();
    const ageAfter = Math.floor((Date.now() - synced.lastContactAt!.getTime()) / 1000);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    // The data is what was synced; the warning costs no statement.
    expect(read.body.data).toEqual(quietRead.body.data);
    expect(read.headers['x-query-count']).toBe(quietRead.headers['x-query-count']);
    const [warning] = read.body.meta.warnings;
    expect(read.body.meta.warnings).toHaveLength(1);
    expect(warning).toMatchObject({ code: 'PLATFORM_STALE', lastSyncedAt: synced.lastContactAt!.toISOString() });
    // Whole seconds at the moment of the read, which a second boundary may separate from the test's clock.
    expect(warning.ageSeconds).toBeGreaterThanOrEqual(ageBefore);
    expect(warning.ageSeconds).toBeLessThanOrEqual(ageAfter);
    expect(warning.message).toContain(failing.failingSince!.toISOString());
    expect(warning.remedy).toContain('outbox');

    const gql = await t.graphql(key, LEVELS.replace('VID', variantId));
    expect(gql.body.extensions.warnings).toEqual([expect.objectContaining({ code: 'PLATFORM_STALE' })]);

    const other = await t.get('/api/v1/locations', otherKey);
    expect(other.status).toBe(200);
    expect(other.body.meta.warnings).toBeUndefined();
  });

  it('the tag of a stale shop\'s read holds the warning: a 304 only while the answer, its age included, is the same', async () => {
    const first = await materialRead();
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^"/);
    // Within the same second of age the answer is the same: 304. A second later the age differs: a new answer and tag.
    const again = await conditional(tag);
    const sameSecond = Math.floor((Date.now() - Date.parse(first.body.meta.warnings[0].lastSyncedAt)) / 1000) === first.body.meta.warnings[0].ageSeconds;
    if (sameSecond) expect(again.status).toBe(304);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await conditional(tag);
    expect(later.status).toBe(200);
    expect(later.headers.etag).not.toBe(tag);
    expect(later.body.meta.warnings[0].ageSeconds).toBeGreaterThan(first.body.meta.warnings[0].ageSeconds);
  });

  it('a second failed pass keeps the first failure\'s time; a pass that reads the store again clears the warning', async () => {
    const firstFailure = (await status(t.orm, shopId)).connection!.failingSince;
    store.failNext(100, 503);
    expect(await reconcilePass()).not.toBeNull();
    expect((await status(t.orm, shopId)).connection!.failingSince).toEqual(firstFailure);

    store.faults.failures.length = 0;
    expect(await reconcilePass()).toBeNull();
    const healed = (await status(t.orm, shopId)).connection!;
    expect(healed.failingSince).toBeNull();
    expect(healed.lastContactAt!.getTime()).toBeGreaterThan(firstFailure!.getTime());
    const staleTag = (await materialRead()).headers.etag as string;
    await t.app.platformHealth.refresh();
    // Healed: no warning, and the tag the stale answer had no longer matches (the answer lost its warning).
    const healedRead = await conditional(staleTag);
    expect(healedRead.status).toBe(200);
    expect(healedRead.body.meta.warnings).toBeUndefined();
  });

  it('a store that uninstalled the app: PLATFORM_UNINSTALLED, whose remedy is to reconnect', async () => {
    store.uninstall();
    await emu.webhooksIdle();
    while ((await applier.applyOnce()).applied > 0);
    await t.app.platformHealth.refresh();
    const read = await materialRead();
    expect(read.body.meta.warnings).toEqual([expect.objectContaining({ code: 'PLATFORM_UNINSTALLED', remedy: expect.stringContaining('bomcore shop connect') })]);
  });
});
