import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/cli/shop-link.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { migrate, openDatabase } from '../../src/app/database.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { createApiKey } from '../../src/modules/auth/keys.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { killServersAfterEach, startServer, useServerDatabase, waitFor } from '../helpers/server-process.ts';
import { startShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Rule (docs/shopify.md, "Stock out, exactly once"): `bomcore serve` pushes a connected shop's
// platform-linked stock moves to its Shopify store in the background. Before, serve's outbox drainer
// used the local platform store: a build run moved only bomcore's copy of the level, never Shopify's
// (the drainer's own tests passed Shopify's adapter in by hand). PostgreSQL only: the test's process
// and the server share the database.

killServersAfterEach();
const db = useServerDatabase();

describe.runIf(usingPostgres)('bomcore serve with a shop connected to Shopify (PostgreSQL)', () => {
  it('a build run through the served API moves the Shopify store\'s level; the outbox empties and the mirror holds Shopify\'s answer', async () => {
    const emu = await startShopifyEmulator({ bulkRunningMs: 10 });
    const shop = uniqueShopId('serve-shopify');
    const domain = `${shop}.myshopify.com`;
    const token = `shpat_${randomBytes(8).toString('hex')}`;
    const secretKey = randomBytes(32).toString('hex');
    const json = workOrderShop(shop, [workOrder('wo_big', 'in_progress', {
      items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 400, completedQuantity: 0 }],
    })]) as { platform: { variants: { variantId: string; levels: { locationId: string; available: number }[] }[] } };
    json.platform.variants.find((v) => v.variantId === '44001')!.levels = [{ locationId: '101', available: 1000 }];
    const dataset = toDataset(json);
    const store = emu.addShop({ domain, token, seed: dataset.platform });
    const env = { DATABASE_URL: db.url(), BOMCORE_SECRET_KEY: secretKey, BOMCORE_SHOPIFY_ENDPOINT: emu.url, OUTBOX_DRAIN_INTERVAL_MS: '50' };
    const config = loadConfig(env);
    const orm = await openDatabase(config);
    try {
      await migrate(orm);
      await loadDataset(orm.em, dataset);
      await connect(orm, config, { shopId: shop, domain, token, webhookUri: null });
      const { key } = await createApiKey(orm.em.fork(), { shopId: shop, scopes: ['read', 'write'], name: 'serve-shopify' });
      const before = store.available('44001', '101')!;

      const server = await startServer(env);
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const current = await (await fetch(`${server.address}/api/v1/work-orders/wo_big`, { headers })).json() as { data: { updatedAt: string } };
      const run = await fetch(`${server.address}/api/v1/work-orders/wo_big/build-runs`, {
        method: 'PATCH', headers, body: JSON.stringify({ expectedUpdatedAt: current.data.updatedAt, buildRunId: 'run-served', items: [{ itemId: 'woi_1', quantity: 10 }] }),
      });
      expect(run.status).toBe(200);

      // 10 candles × 0.42 kg: 4 whole kg reach Shopify (the 0.2 stays in the residual carry), pushed by serve alone.
      await waitFor(() => store.available('44001', '101') !== before, 'the served drainer to push the build run to Shopify', 20_000);
      expect(store.available('44001', '101')).toBe(before - 4);
      expect(store.adjustmentGroups.filter((g) => g.referenceDocumentUri?.includes('run-served'))).toHaveLength(1);
      // Marked pushed just after Shopify answered.
      const statuses = async () => (await orm.em.fork().execute<{ status: string }[]>('select status from platform_pushes where shop_id = ?', [shop])).map((r) => r.status);
      for (let i = 0; i < 200 && (await statuses()).includes('pending'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await statuses()).toEqual(['pushed']);
      const [mirror] = await orm.em.fork().execute<{ available: string }[]>(
        `select available::text as available from platform_levels where shop_id = ? and variant_id = '44001' and location_id = '101'`, [shop]);
      expect(Number(mirror!.available)).toBe(before - 4);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await orm.close();
      await emu.close();
    }
  }, 120_000);
});
