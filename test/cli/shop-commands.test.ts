import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetPlatform } from '../../src/dataset/types.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { startShopifyEmulator, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { runCli } from './run-cli.ts';

// `bomcore shop connect|sync|status|disconnect` as a merchant runs them, against the Shopify
// emulator: a token file, a refusal that names what is missing, a 10,000-variant store synced in
// bounded time and memory, a status that never shows the token.

const VARIANTS = 10_000;
const LOCATIONS = 3;

let emu: ShopifyEmulator;
let dir: string;
let env: Record<string, string | undefined>;

/** A store of `variants` variants, each stocked at every location, and 200 open orders of two lines. */
function bigStore(variants: number): DatasetPlatform {
  const locations = Array.from({ length: LOCATIONS }, (_, i) => ({ id: String(101 + i), name: `Location ${i + 1}` }));
  return {
    locations,
    variants: Array.from({ length: variants }, (_, i) => ({
      variantId: String(700_000 + i), productId: String(800_000 + Math.floor(i / 2)), inventoryItemId: String(900_000 + i),
      productName: `Product ${Math.floor(i / 2)}`, variantName: i % 2 === 0 ? 'Small' : 'Large', sku: `SKU-${i}`, vendor: 'Acme', price: '12.50', cost: '3.125',
      imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null,
      levels: locations.map((l, j) => ({ locationId: l.id, available: String((i * 7 + j) % 50) })),
    })),
    orders: Array.from({ length: 200 }, (_, i) => ({
      orderId: String(5_000_000 + i), name: `#${1000 + i}`,
      lineItems: [0, 1].map((k) => ({ variantId: String(700_000 + ((i * 2 + k) % variants)), productId: null, sku: null, title: `Line ${k}`, quantity: String(k + 1) })),
    })),
  };
}

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 20 });
  dir = mkdtempSync(join(tmpdir(), 'bomcore-shop-cli-'));
  env = {
    BOMCORE_SHOPIFY_ENDPOINT: emu.url, BOMCORE_SECRET_KEY: randomBytes(32).toString('hex'), CI: 'true',
    ...(process.env.DATABASE_URL ? {} : { BOMCORE_DATA_DIR: join(dir, 'data') }),
  };
});

afterAll(async () => {
  await emu?.close();
});

function tokenFile(token: string, mode = 0o600): string {
  const file = join(dir, `${randomBytes(4).toString('hex')}.token`);
  writeFileSync(file, `${token}\n`);
  chmodSync(file, mode);
  return file;
}

describe('bomcore shop', () => {
  it('refuses a token file other users can read, and a token that lacks scopes, naming each (exit 1, nothing stored)', async () => {
    const shop = uniqueShopId('cli-weak');
    const domain = `${shop}.myshopify.com`;
    const token = `shpat_${randomBytes(8).toString('hex')}`;
    emu.addShop({ domain, token, scopes: ['read_products', 'read_inventory', 'read_locations', 'read_orders', 'read_merchant_managed_fulfillment_orders'] });
    const open = await runCli(['shop', 'connect', '--shop', shop, '--domain', domain, '--token-file', tokenFile(token, 0o644)], env);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('can be read by other users');
    const weak = await runCli(['shop', 'connect', '--shop', shop, '--domain', domain, '--token-file', tokenFile(token)], env);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('lacks the access scope write_inventory');
    const status = await runCli(['shop', 'status', '--shop', shop, '--json'], env);
    expect(JSON.parse(status.stdout).connection).toBeNull();
  }, 120_000);

  it(`connects and syncs a ${VARIANTS.toLocaleString('en')}-variant store in ≤ 60 s and ≤ 300 MB peak memory; status shows the sync and never the token; disconnect forgets it`, async () => {
    const shop = uniqueShopId('cli-big');
    const domain = `${shop}.myshopify.com`;
    const token = `shpat_${randomBytes(8).toString('hex')}`;
    emu.addShop({ domain, token, seed: bigStore(VARIANTS), name: 'Big store' });
    const started = Date.now();
    const connected = await runCli(['shop', 'connect', '--shop', shop, '--domain', domain, '--token-file', tokenFile(token), '--json'], env);
    const seconds = (Date.now() - started) / 1000;
    expect(connected.stderr).not.toContain('Error');
    expect(connected.code).toBe(0);
    const report = JSON.parse(connected.stdout);
    expect(report.sync).toMatchObject({ locations: LOCATIONS, variants: VARIANTS, levels: VARIANTS * LOCATIONS, orders: 200, lineItems: 400 });
    console.log(`shop connect + full sync of ${VARIANTS} variants: ${seconds.toFixed(1)} s wall (sync ${report.sync.seconds.toFixed(1)} s), `
      + `peak RSS ${report.sync.maxRssMiB} MiB, of which the sync ${report.sync.syncRssGrowthMiB} MiB (V8 heap peak ${report.sync.heapPeakMiB} MiB)`);
    expect(seconds).toBeLessThanOrEqual(60);
    // The bound is the service's process with its database elsewhere (PostgreSQL): the embedded
    // database's heap (WASM, about 1 GB after migrating a fresh folder, growing with what it stores)
    // lives in the process, so on PGlite only the time is bounded and the memory is printed.
    // 300 MB is 286 MiB.
    if (process.env.DATABASE_URL) expect(report.sync.maxRssMiB * 2 ** 20).toBeLessThanOrEqual(300e6);
    expect(connected.stdout + connected.stderr).not.toContain(token);

    const status = await runCli(['shop', 'status', '--shop', shop, '--json'], env);
    expect(status.code).toBe(0);
    const shown = JSON.parse(status.stdout);
    expect(shown.connection).toMatchObject({ domain, storeName: 'Big store', syncCounts: { variants: VARIANTS } });
    expect(status.stdout).not.toContain(token);
    expect(status.stdout).not.toContain('v1:');

    const gone = await runCli(['shop', 'disconnect', '--shop', shop], env);
    expect(gone.stdout).toContain('disconnected');
    expect(JSON.parse((await runCli(['shop', 'status', '--shop', shop, '--json'], env)).stdout).connection).toBeNull();
  }, 180_000);

  it('connects with an app\'s client ID and secret file (client credentials): the secret file must be private, a wrong secret is refused, status never shows the secret', async () => {
    const shop = uniqueShopId('cli-cc');
    const domain = `${shop}.myshopify.com`;
    const app = { clientId: `cc${randomBytes(6).toString('hex')}`, clientSecret: `shpss_${randomBytes(12).toString('hex')}` };
    emu.addShop({ domain, organizationApp: app, seed: bigStore(4), name: 'Own store' });
    const base = ['shop', 'connect', '--shop', shop, '--domain', domain, '--client-id', app.clientId, '--json'];
    const open = await runCli([...base, '--client-secret-file', tokenFile(app.clientSecret, 0o644)], env);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('can be read by other users');
    const wrong = await runCli([...base, '--client-secret-file', tokenFile('shpss_wrong')], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid_client');
    const both = await runCli([...base, '--client-secret-file', tokenFile(app.clientSecret), '--token-file', tokenFile('shpat_x')], env);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('not both');
    const connected = await runCli([...base, '--client-secret-file', tokenFile(app.clientSecret)], env);
    expect(connected.stderr).not.toContain('Error');
    expect(connected.code).toBe(0);
    expect(JSON.parse(connected.stdout).sync).toMatchObject({ variants: 4 });
    const status = await runCli(['shop', 'status', '--shop', shop, '--json'], env);
    expect(JSON.parse(status.stdout).connection).toMatchObject({ grantKind: 'client_credentials', clientId: app.clientId, storeName: 'Own store' });
    for (const out of [connected.stdout + connected.stderr, status.stdout]) {
      expect(out).not.toContain(app.clientSecret);
      expect(out).not.toContain('v1:');
    }
  }, 120_000);

  it('shop reconcile heals a level whose webhook never came and counts it as drift', async () => {
    const shop = uniqueShopId('cli-rec');
    const domain = `${shop}.myshopify.com`;
    const token = `shpat_${randomBytes(8).toString('hex')}`;
    // Shopify Plus's restore rate (1,000 points/s): reconcile pages request about 750 points each, which a standard store (100/s) restores in 7.5 s.
    emu.addShop({ domain, token, seed: bigStore(20), restoreRate: 1000 });
    expect((await runCli(['shop', 'connect', '--shop', shop, '--domain', domain, '--token-file', tokenFile(token), '--json'], env)).code).toBe(0);
    emu.shop(domain).setAvailable('700003', '102', 999);
    const reconciled = await runCli(['shop', 'reconcile', '--shop', shop, '--json'], env);
    expect(reconciled.stderr).toBe('');
    expect(reconciled.code).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toMatchObject({ finished: true, drift: { levels: 1 } });
    const again = await runCli(['shop', 'reconcile', '--shop', shop, '--json'], env);
    expect(JSON.parse(again.stdout).drift).toMatchObject({ levels: 0, variants: 0, orders: 0 });
  }, 120_000);
});
