import type { Config } from '../kernel/config.ts';
import { analyzeTables } from '../db/analyze.ts';
import type { Orm } from '../db/orm.ts';
import { secretBoxFor } from '../kernel/secret-box.ts';
import { recipeCatalogSources } from '../modules/materials/for-recipes.ts';
import { mirrorPlatformMaterials } from '../modules/materials/platform-mirror.ts';
import { rebuildShopCostRollup } from '../modules/boms/cost-rollup.repository.ts';
import { ensureShop } from '../modules/shops/shop-settings.ts';
import { writesMaterialRequirementsMetafield } from '../modules/shops/for-orders.ts';
import { sharedCostPacer } from '../platform/shopify/admin-api.ts';
import { ConnectError, connectShop, METAFIELD_WRITE_BACK_SCOPE, REQUIRED_SCOPES, type ConnectResult } from '../platform/shopify/connect.ts';
import { findConnection, findConnectionByDomain, recordSyncEnd, recordSyncStart, type StoredConnection } from '../platform/shopify/connections.ts';
import { fullSync, type SyncCounts, type SyncPhase } from '../platform/shopify/full-sync.ts';
import type { IssuedToken } from '../platform/shopify/oauth.ts';
import { adminApiFor, installAppOf } from '../platform/shopify/shopify-gateway.ts';
import { syncedOrdersFollower } from './composition.ts';

// A shop's link to its Shopify store where the platform adapter meets the modules that follow the
// platform (shops: the shop row; materials: platform-linked materials mirror their variants;
// recipes: the cost roll-up when a cost moved): the full sync, run by `bomcore shop sync|connect`
// and in the background after an install, and the install's own link.

/** The tables a sync rewrites: analyzed after it, like a dataset load. */
const SYNCED_TABLES = ['platform_locations', 'platform_variants', 'platform_levels', 'platform_orders', 'platform_order_lines', 'materials'];

export interface SyncReport extends SyncCounts { materialsUpdated: number; seconds: number }

/** A full sync of a connected shop; the connection records its start, its end (counts) or its error. */
export async function syncConnectedShop(orm: Orm, config: Config, connection: StoredConnection, onProgress?: (phase: SyncPhase, count: number, total: number | null) => void, options: { pollMs?: number } = {}): Promise<SyncReport> {
  const em = orm.em.fork();
  const shopId = connection.shopId;
  const started = new Date();
  await recordSyncStart(em, shopId, started);
  let materialsUpdated = 0;
  try {
    const api = adminApiFor(connection, secretBoxFor(config), { endpoint: config.shopifyEndpoint, em, installApp: installAppOf(config) });
    const counts = await fullSync({
      api, em, shopId, onProgress, pollMs: options.pollMs,
      afterMirror: async (tx, id, pages) => {
        const mirrored = await mirrorPlatformMaterials(tx, id, pages);
        materialsUpdated = mirrored.changed;
        // A cost, or a finished good's name, SKU or price in the BOM list: the whole roll-up, once (a sync is batch work).
        if (mirrored.changed > 0) await rebuildShopCostRollup(tx, id, recipeCatalogSources);
      },
      afterOrders: syncedOrdersFollower(config),
    });
    // The bucket as the sync left it: `shop status` in another process shows it.
    const bucket = sharedCostPacer.snapshot(connection.domain);
    const throttle: Record<string, number> = bucket ? { throttleAvailable: bucket.currentlyAvailable, throttleMaximum: bucket.maximumAvailable, throttleRestoreRate: bucket.restoreRate, throttled: bucket.throttledCount } : {};
    await recordSyncEnd(em, shopId, { completedAt: new Date(), counts: { ...counts, materialsUpdated, ...throttle } });
    await analyzeTables(orm.em, SYNCED_TABLES);
    return { ...counts, materialsUpdated, seconds: (Date.now() - started.getTime()) / 1000 };
  } catch (error) {
    await recordSyncEnd(em, shopId, { error: (error as Error).message });
    throw error;
  }
}

/** The bomcore shop a store installs into: the one it is linked to, else its subdomain (`candles` of candles.myshopify.com). */
export async function shopForStore(orm: Orm, domain: string): Promise<string> {
  return (await findConnectionByDomain(orm.em.fork(), domain))?.shopId ?? domain.replace(/\.myshopify\.com$/, '');
}

/** The scopes the install link asks for: those bomcore needs, and `write_orders` when the store's shop writes order metafields. */
export async function installScopes(orm: Orm, domain: string): Promise<string[]> {
  const writes = await writesMaterialRequirementsMetafield(orm.em.fork(), await shopForStore(orm, domain));
  return writes ? [...REQUIRED_SCOPES, METAFIELD_WRITE_BACK_SCOPE] : [...REQUIRED_SCOPES];
}

export interface InstalledStore extends ConnectResult { shopId: string; firstSync: Promise<void> }

/**
 * Links a store that installed the app (its expiring offline token from the install callback) to
 * its bomcore shop — made when it does not exist — with the webhooks subscribed to
 * `<BOMCORE_PUBLIC_URL>/webhooks/shopify`, and starts the first full sync in the background
 * (`firstSync` settles when it ends; its error is recorded on the connection, as `shop status` shows).
 * Refused (ConnectError, nothing linked) when a scope is missing, or when the shop of that name is
 * linked to another store.
 */
export async function linkInstalledStore(orm: Orm, config: Config, input: { domain: string; token: IssuedToken; webhookUri: string }, onSyncError: (error: unknown) => void): Promise<InstalledStore> {
  const em = orm.em.fork();
  const shopId = await shopForStore(orm, input.domain);
  const current = await findConnection(em, shopId);
  if (current && current.domain !== input.domain) {
    throw new ConnectError(`the bomcore shop ${shopId} is linked to ${current.domain}: disconnect it there first (bomcore shop disconnect --shop ${shopId}), or connect ${input.domain} with bomcore shop connect --shop <another shop>`);
  }
  await ensureShop(em, shopId, shopId);
  const result = await connectShop(em, secretBoxFor(config), {
    shopId, domain: input.domain, grant: { kind: 'authorization_code', token: input.token }, webhookUri: input.webhookUri,
    metafieldWriteBack: await writesMaterialRequirementsMetafield(em, shopId),
  }, { endpoint: config.shopifyEndpoint });
  const firstSync = syncConnectedShop(orm, config, result.connection).then(() => undefined, onSyncError);
  return { ...result, shopId, firstSync };
}
