import type { Config } from '../kernel/config.ts';
import type { Em, Orm } from '../db/orm.ts';
import { ensureShop } from '../modules/shops/shop-settings.ts';
import { writesMaterialRequirementsMetafield } from '../modules/shops/for-orders.ts';
import { countPlatformPushes, retryStoppedPlatformPushes } from '../modules/stock/platform-push.repository.ts';
import { ConnectError, connectShop, disconnectShop, type ConnectGrant, type ConnectResult } from '../platform/shopify/connect.ts';
import { connectionInfo, findConnection, type ConnectionInfo } from '../platform/shopify/connections.ts';
import type { SyncPhase } from '../platform/shopify/full-sync.ts';
import { syncConnectedShop, type SyncReport } from '../app/shopify-link.ts';
import { adminApiFor, installAppOf } from '../platform/shopify/shopify-gateway.ts';
import { sharedCostPacer, type ShopifyAdminApi } from '../platform/shopify/admin-api.ts';
import { resolveSecretKey, SecretBox, SecretKeyError } from '../kernel/secret-box.ts';
import type { ThrottleSnapshot } from '../platform/shopify/throttle.ts';
import { startShopifyReconciler, type Reconciler, type ReconcilerLogger, type ShopReconcileReport } from '../platform/shopify/reconcile/reconciler.ts';
import { webhookFollowers } from '../app/composition.ts';
import { CommandError } from './args.ts';

// A shop's link to its Shopify store, as the CLI and the server's reconciliation run it:
// connect, full sync, reconcile, status, disconnect. Here the platform adapter meets the modules that follow
// the platform: shops (the shop row), materials (platform-linked materials mirror their variants),
// recipes (the cost roll-up when a cost moved).

function secretBox(config: Config): SecretBox {
  try {
    return new SecretBox(resolveSecretKey(config));
  } catch (error) {
    if (error instanceof SecretKeyError) throw new CommandError(error.message);
    throw error;
  }
}

export interface ConnectOptions {
  shopId: string; domain: string; apiVersion?: string; webhookUri: string | null;
  /** How the token is got; `token` is short for a token file's `{ kind: 'token', accessToken }`. */
  grant?: ConnectGrant; token?: string;
}

export async function connect(orm: Orm, config: Config, options: ConnectOptions): Promise<ConnectResult> {
  const em = orm.em.fork();
  const box = secretBox(config);
  await ensureShop(em, options.shopId, options.shopId);
  try {
    return await connectShop(em, box, {
      shopId: options.shopId, domain: options.domain, grant: options.grant ?? { kind: 'token', accessToken: options.token ?? '' }, apiVersion: options.apiVersion, webhookUri: options.webhookUri,
      metafieldWriteBack: await writesMaterialRequirementsMetafield(em, options.shopId),
    }, { endpoint: config.shopifyEndpoint });
  } catch (error) {
    if (error instanceof ConnectError) throw new CommandError(error.message);
    throw error;
  }
}

export type { SyncReport } from '../app/shopify-link.ts';

/** A full sync of a connected shop (src/app/shopify-link.ts). */
export async function sync(orm: Orm, config: Config, shopId: string, onProgress?: (phase: SyncPhase, count: number, total: number | null) => void, options: { pollMs?: number } = {}): Promise<SyncReport> {
  const connection = await findConnection(orm.em.fork(), shopId);
  if (!connection) throw new CommandError(`shop ${shopId} is not connected to a store: run bomcore shop connect first`);
  secretBox(config);
  return syncConnectedShop(orm, config, connection, onProgress, options);
}

export interface ShopStatus {
  connection: ConnectionInfo | null;
  pushes: { pending: number; failing: number; stopped: number; oldestPendingAt: string | null };
  /** Shopify's cost bucket as this process last saw it (null in a process that has not called Shopify: see the sync counts). */
  throttle: ThrottleSnapshot | null;
}

/** What `shop status` shows: the connection (never its token), the outbox, the last known Shopify bucket. */
export async function status(orm: Orm, shopId: string): Promise<ShopStatus> {
  const em = orm.em.fork();
  const stored = await findConnection(em, shopId);
  const pushes = await countPlatformPushes(em, shopId);
  if (!stored) return { connection: null, pushes, throttle: null };
  const connection = connectionInfo(stored);
  return { connection, pushes, throttle: sharedCostPacer.snapshot(connection.domain) };
}

export async function disconnect(orm: Orm, shopId: string): Promise<boolean> {
  return disconnectShop(orm.em.fork(), shopId);
}

/** Releases the shop's stopped pushes (refused for good, cause since fixed) to the drainer; returns how many. */
export async function retryPushes(orm: Orm, shopId: string): Promise<number> {
  return retryStoppedPlatformPushes(orm.em.fork(), shopId);
}

/**
 * The reconciler of `bomcore serve` (every `intervalMs`) and of `bomcore shop reconcile` (0: on
 * demand): the Admin API client of each connection, and platform-linked materials following the
 * variants a pass changed, as the webhook applier's do.
 */
export function startReconciler(orm: Orm, config: Config, options: { intervalMs: number; logger: ReconcilerLogger; shopIds?: readonly string[] }): Reconciler {
  return startShopifyReconciler({
    orm, intervalMs: options.intervalMs, logger: options.logger, shopIds: options.shopIds, followers: webhookFollowers(config),
    apiFor: (connection) => adminApiFor(connection, secretBox(config), { endpoint: config.shopifyEndpoint, em: orm.em.fork(), installApp: installAppOf(config) }),
  });
}

/**
 * The webhook applier's Admin API client of a shop (`bomcore serve`): the connection's, while the
 * store has the app installed; null for a shop not connected to a store.
 */
export function webhookApiFor(config: Config): (em: Em, shopId: string) => Promise<ShopifyAdminApi | null> {
  return async (em, shopId) => {
    const connection = await findConnection(em, shopId);
    return connection && !connection.uninstalledAt ? adminApiFor(connection, secretBox(config), { endpoint: config.shopifyEndpoint, em: em.fork(), installApp: installAppOf(config) }) : null;
  };
}

const quiet: ReconcilerLogger = { info: () => {}, warn: () => {} };

/** One reconciliation pass of a shop now (`bomcore shop reconcile`): its drift, or why it could not run. */
export async function reconcile(orm: Orm, config: Config, shopId: string): Promise<ShopReconcileReport> {
  const connection = await findConnection(orm.em.fork(), shopId);
  if (!connection) throw new CommandError(`shop ${shopId} is not connected to a store: run bomcore shop connect first`);
  if (connection.uninstalledAt) throw new CommandError(`the store of shop ${shopId} uninstalled the app at ${connection.uninstalledAt.toISOString()}: reinstall it and connect again`);
  if (!connection.syncCompletedAt) throw new CommandError(`shop ${shopId} has never completed a sync: run bomcore shop sync first`);
  const reconciler = startReconciler(orm, config, { intervalMs: 0, logger: quiet });
  try {
    const report = await reconciler.reconcileNow(shopId);
    if (!report) throw new CommandError(`a reconciliation pass of shop ${shopId} is running (another process): try again when it ends`);
    if (report.error) throw new CommandError(`reconciling shop ${shopId} failed: ${report.error}`);
    return report;
  } finally {
    await reconciler.stop();
  }
}
