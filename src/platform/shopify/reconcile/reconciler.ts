import type { Orm } from '../../../db/orm.ts';
import { startPeriodicPass } from '../../../kernel/jobs/periodic-pass.ts';
import type { ShopifyAdminApi } from '../admin-api.ts';
import { claimForReconcile, recordReconcile, type StoredConnection } from '../connections.ts';
import type { WebhookFollowers } from '../webhooks/apply.ts';
import { reconcileShop, type ReconcileShopResult } from './reconcile-shop.ts';

/** The part of a pino logger the reconciler uses: one line per shop per pass. */
export interface ReconcilerLogger {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

export interface ReconcilerOptions {
  orm: Orm;
  /** The Admin API client of a connection (its token opened with the secret box; the endpoint of the configuration). */
  apiFor: (connection: StoredConnection) => ShopifyAdminApi;
  /** Pause between passes; a shop is due again this long after its last pass. 0 = no timer: `runOnce` / `reconcileNow` only. */
  intervalMs: number;
  logger: ReconcilerLogger;
  followers?: WebhookFollowers;
  /** Reconcile only these shops (tests sharing a database). Default: every connected shop. */
  shopIds?: readonly string[];
  /** Shops reconciled at once: a slow store holds only its own slot. Default 4. */
  concurrency?: number;
  /** Shops claimed per pass. Default 50. */
  shopsPerPass?: number;
  /** Admin API requests one shop's pass may send. Default 100. */
  maxRequestsPerShop?: number;
  /** Time one shop's pass may take before it stops at the next page. Default 60 s. */
  shopBudgetMs?: number;
  /** The claim's lease: another instance may take the shop after it (a crashed pass). Default 10 min. */
  leaseMs?: number;
  /** How far before the last window's end the next one starts. Default 5 min. */
  overlapMs?: number;
}

export interface ShopReconcileReport extends ReconcileShopResult { shopId: string; ms: number; error: string | null }

export interface ReconcileResult { shops: ShopReconcileReport[] }

export interface Reconciler {
  /** One pass over the due shops now. */
  runOnce(): Promise<ReconcileResult>;
  /** One pass of one shop now, due or not (`bomcore shop reconcile`); null when another pass holds it or it cannot be reconciled. */
  reconcileNow(shopId: string): Promise<ShopReconcileReport | null>;
  stop(): Promise<void>;
}

/**
 * Reconciles connected shops with their Shopify stores in the background (`bomcore serve`, every
 * BOMCORE_SHOPIFY_RECONCILE_INTERVAL_S). A pass claims the due shops (claimForReconcile: `skip
 * locked` and a lease, so two instances never reconcile one shop at once), reconciles them a few at
 * a time, each within its own budget, and records on each connection its drift, its window and its
 * error. A shop whose window is unfinished is due again at once.
 */
export function startShopifyReconciler(options: ReconcilerOptions): Reconciler {
  const { orm, logger } = options;
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const budgetMs = options.shopBudgetMs ?? 60_000;
  const shopIds = options.shopIds ? [...options.shopIds] : null;

  async function reconcileOne(connection: StoredConnection): Promise<ShopReconcileReport> {
    const started = Date.now();
    const em = orm.em.fork();
    let report: ShopReconcileReport;
    try {
      const result = await reconcileShop({
        api: options.apiFor(connection), em, connection, followers: options.followers,
        maxRequests: options.maxRequestsPerShop ?? 100, deadline: started + budgetMs, overlapMs: options.overlapMs ?? 5 * 60_000,
      });
      report = { ...result, shopId: connection.shopId, ms: Date.now() - started, error: null };
      await recordReconcile(em, connection.shopId, { at: new Date(), through: result.through, state: result.state as unknown as Record<string, unknown> | null, drift: { ...result.drift }, error: null });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report = {
        shopId: connection.shopId, ms: Date.now() - started, error: message, drift: { locations: 0, variants: 0, levels: 0, orders: 0 },
        read: { locations: 0, products: 0, levels: 0, orders: 0 }, unmatched: 0, requests: 0, finished: false, through: null, state: null,
      };
      // The window stays as it was (the next due pass goes on with it); the error is shown by `shop status`.
      await recordReconcile(em, connection.shopId, { at: new Date(), through: null, state: connection.reconcileState, drift: {}, error: message });
    }
    const drifted = report.drift.locations + report.drift.variants + report.drift.levels + report.drift.orders;
    const details = { shopId: report.shopId, drift: report.drift, read: report.read, unmatched: report.unmatched, requests: report.requests, finished: report.finished, ms: report.ms };
    if (report.error) logger.warn({ ...details, error: report.error }, 'shopify reconcile failed');
    else if (drifted > 0) logger.warn(details, `shopify reconcile healed ${drifted} row(s) the webhooks missed`);
    else logger.info(details, 'shopify reconcile: mirror matches the store');
    return report;
  }

  async function runClaimed(claimed: StoredConnection[]): Promise<ShopReconcileReport[]> {
    const reports: ShopReconcileReport[] = [];
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) reports.push(await reconcileOne(claimed[next++]!));
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return reports;
  }

  async function pass(): Promise<ReconcileResult> {
    const dueBefore = new Date(Date.now() - Math.max(options.intervalMs, 1000) / 2);
    const claimed = await claimForReconcile(orm.em.fork(), { shopIds, dueBefore, leaseMs, limit: options.shopsPerPass ?? 50 });
    return { shops: await runClaimed(claimed) };
  }

  const loop = startPeriodicPass<ReconcileResult>({
    pass, stoppedResult: { shops: [] }, intervalMs: options.intervalMs, firstDelayMs: options.intervalMs,
    backlog: (r) => r.shops.some((s) => !s.finished && s.error === null),
    onError: (error) => logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'shopify reconcile pass failed'),
  });

  return {
    runOnce: loop.runOnce,
    async reconcileNow(shopId) {
      const [claimed] = await claimForReconcile(orm.em.fork(), { shopIds: [shopId], dueBefore: null, leaseMs, limit: 1 });
      return claimed ? reconcileOne(claimed) : null;
    },
    stop: loop.stop,
  };
}
