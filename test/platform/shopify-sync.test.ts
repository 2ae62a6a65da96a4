import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, status, sync } from '../../src/cli/shop-link.ts';
import { exportDataset } from '../../src/dataset/export.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { serializeDataset } from '../../src/dataset/serialize.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// A shop connected to its Shopify store reads what the store holds: the full sync (locations,
// variants with products, inventory items and levels, open orders, through bulk exports) fills the
// shop's mirror, and platform-linked materials take their catalogue fields, so every read answers
// exactly as the same shop loaded from its dataset file.

const SECRET_KEY = randomBytes(32).toString('hex');

let emu: ShopifyEmulator;
let t: TestApp;
const reference = uniqueShopId('shopify-ref');
const connected = uniqueShopId('shopify-con');
const domain = `${connected}.myshopify.com`;
const token = `shpat_${randomBytes(8).toString('hex')}`;
let dataset: Dataset;
let refKey: string;
let conKey: string;

/** The same dataset, as a stale copy of the store: other names and prices, no levels, renamed orders. */
function staleCopy(source: Dataset, shopId: string): Dataset {
  const copy = structuredClone(source);
  copy.shop.id = shopId;
  copy.shop.settings.materialRequirementsMetafield = true;
  for (const v of copy.platform.variants) {
    v.productName = `stale ${v.productName}`;
    v.price = v.price === null ? null : '0.01';
    v.levels = [];
  }
  for (const m of copy.materials) if (m.origin === 'platform') delete (m as { cachedQuantity?: string }).cachedQuantity;
  for (const o of copy.platform.orders) o.name = `stale ${o.name}`;
  return copy;
}

beforeAll(async () => {
  dataset = generateDataset({ materials: 40, boms: 8, depth: 2, locations: 3, workOrders: 6, orders: 12, seed: 11, shopId: reference });
  emu = await startShopifyEmulator({ bulkRunningMs: 20 });
  emu.addShop({ domain, token, seed: dataset.platform, name: 'Generated candles' });
  t = await createTestApp({ config: { secretKey: SECRET_KEY, shopifyEndpoint: emu.url } });
  await t.load(dataset);
  await t.load(staleCopy(dataset, connected));
  refKey = await t.createKey(reference, ['read']);
  conKey = await t.createKey(connected, ['read']);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await emu?.close();
});

describe(`Shopify full sync on ${databaseLabel}`, () => {
  it('connect refuses a token that lacks a scope bomcore needs, naming each missing one', async () => {
    const weak = `shpat_${randomBytes(8).toString('hex')}`;
    const weakDomain = `${uniqueShopId('weak')}.myshopify.com`;
    emu.addShop({ domain: weakDomain, token: weak, scopes: ['read_products', 'read_locations'] });
    await expect(connect(t.orm, t.config, { shopId: uniqueShopId('weak'), domain: weakDomain, token: weak, webhookUri: null }))
      .rejects.toThrow(/lacks the access scopes read_inventory, write_inventory, read_orders/);
  });

  it('connect stores the link with the token sealed (never the token itself) and the granted scopes', async () => {
    const result = await connect(t.orm, t.config, { shopId: connected, domain, token, webhookUri: null });
    expect(result.storeName).toBe('Generated candles');
    expect(result.grantedScopes).toEqual(expect.arrayContaining(['read_products', 'write_inventory', 'read_orders']));
    const [row] = await t.orm.em.fork().getConnection().execute('select token_sealed from platform_connections where shop_id = ?', [connected]);
    expect(row.token_sealed).toMatch(/^v1:/);
    expect(row.token_sealed).not.toContain(token);
  });

  it('after a full sync every REST read of the connected shop answers exactly as the same shop loaded from its dataset file', async () => {
    const report = await sync(t.orm, t.config, connected, undefined, { pollMs: 10 });
    expect(report).toMatchObject({ locations: dataset.platform.locations.length, variants: dataset.platform.variants.length, orders: dataset.platform.orders.length });
    expect(report.levels).toBe(dataset.platform.variants.reduce((n, v) => n + v.levels.length, 0));
    expect(report.materialsUpdated).toBeGreaterThan(0);

    const reads = readsOf(dataset);
    expect(reads.length).toBeGreaterThan(20);
    for (const url of reads) {
      const [a, b] = await Promise.all([t.get(`/api/v1${url}`, refKey), t.get(`/api/v1${url}`, conKey)]);
      expect({ url, status: b.status }).toEqual({ url, status: 200 });
      expect({ url, status: a.status }).toEqual({ url, status: 200 });
      expect(normalise(b.body)).toEqual(normalise(a.body));
    }
  });

  it('a dataset export of the connected shop carries no token and loads into a fresh shop that answers every read the same', async () => {
    const exported = await exportDataset(t.orm.em, connected);
    const text = serializeDataset(exported);
    expect(text).not.toContain(token);
    expect(text).not.toContain('v1:');
    const fresh = uniqueShopId('shopify-copy');
    exported.shop.id = fresh;
    await t.load(exported);
    const freshKey = await t.createKey(fresh, ['read']);
    for (const url of readsOf(dataset)) {
      const [a, b] = await Promise.all([t.get(`/api/v1${url}`, refKey), t.get(`/api/v1${url}`, freshKey)]);
      expect({ url, status: b.status }).toEqual({ url, status: 200 });
      expect(normalise(b.body)).toEqual(normalise(a.body));
    }
  });

  it('order metafield write-back goes to Shopify through metafieldsSet (at most 25 per call) and the mirror keeps its copy', async () => {
    const writer = await t.createKey(connected, ['read', 'write']);
    const before = emu.shop(domain).requests.filter((r) => r.operationName === 'MetafieldsSet').length;
    const res = await t.graphql(writer, 'mutation { syncOrderMaterialRequirements { materialRequirementsSync { enabled written key } userErrors { code } } }');
    expect(res.body.data.syncOrderMaterialRequirements.materialRequirementsSync).toMatchObject({ enabled: true, written: dataset.platform.orders.length, key: 'material_requirements_json' });
    const calls = emu.shop(domain).requests.filter((r) => r.operationName === 'MetafieldsSet').length - before;
    expect(calls).toBe(Math.ceil(dataset.platform.orders.length / 25));
    for (const order of dataset.platform.orders) {
      const [field] = emu.shop(domain).metafields(`gid://shopify/Order/${order.orderId}`).filter((m) => m.key === 'material_requirements_json');
      expect(field).toMatchObject({ namespace: 'bomcore', type: 'json' });
      expect(JSON.parse(field!.value)).toHaveProperty('boms');
    }
    const [copies] = await t.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from platform_order_metafields where shop_id = ?', [connected]);
    expect(copies!.n).toBe(dataset.platform.orders.length);
  });

  it('shop status shows the last sync and its counts, and never the token', async () => {
    const shown = await status(t.orm, connected);
    expect(shown.connection?.syncCompletedAt).toBeInstanceOf(Date);
    expect(shown.connection?.syncCounts).toMatchObject({ variants: dataset.platform.variants.length });
    expect(JSON.stringify(shown)).not.toContain(token);
    expect(JSON.stringify(shown)).not.toContain('v1:');
  });
});

/** The REST reads compared: lists, each platform material and its stock reads, BOMs, buildable, orders, locations. */
function readsOf(d: Dataset): string[] {
  const urls = ['/raw-materials?pageSize=100', '/raw-materials?sortBy=inventoryQuantity&sortOrder=desc&pageSize=100', '/locations',
    '/bills-of-materials?pageSize=100', '/work-orders?pageSize=100'];
  for (const m of d.materials.filter((x) => !x.archivedAt)) {
    urls.push(`/raw-materials/${encodeURIComponent(m.variantId)}`, `/raw-materials/${encodeURIComponent(m.variantId)}/inventory`);
  }
  for (const b of d.boms) urls.push(`/bills-of-materials/${encodeURIComponent(b.bomId)}`, `/bills-of-materials/${encodeURIComponent(b.bomId)}/buildable`);
  for (const o of d.platform.orders) urls.push(`/order-bom-breakdown/${encodeURIComponent(o.orderId)}`);
  for (const w of d.workOrders) urls.push(`/work-orders/${encodeURIComponent(w.workOrderId)}`, `/work-orders/${encodeURIComponent(w.workOrderId)}/material-plan`);
  return urls;
}

/** Fields that differ between two shops by construction (time of the write), not by content. */
function normalise(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (['updatedAt', 'requestId', 'generatedAt'].includes(key) ? '<time>' : value));
}
