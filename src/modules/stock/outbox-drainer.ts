import type { Em, Orm } from '../../db/orm.ts';
import { startPeriodicPass } from '../../kernel/jobs/periodic-pass.ts';
import { PlatformPushFailure, type ConfirmedPush, type PlatformGatewayFactory } from '../../kernel/platform-port/gateway.ts';
import { shopEm, type ContextDeps } from '../../kernel/shop-context.ts';
import { claimDueStorefrontRecomputes, type ClaimedStorefrontRecompute } from '../boms/for-stock.ts';
import { settleStorefrontMarkers, type StorefrontSettleResult } from './storefront-levels.ts';
import { recordPushConfirmationEvents } from './platform-level-events.ts';
import type { PushEventRow } from './stock-events.ts';
import {
  claimDuePlatformPushes, markPlatformPushesFailed, markPlatformPushesPushed, markPlatformPushesStopped, MAX_PUSH_ERROR_LENGTH, releasePlatformPushes,
  type ClaimedPlatformPush,
} from './platform-push.repository.ts';

/** The part of a pino logger the drainer uses. */
export interface OutboxLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface OutboxDrainerOptions {
  orm: Orm;
  /**
   * The platform adapter per shop (no outbox view): `platformAdapter(config)` in `serve`, Shopify for a
   * connected shop. Required: a default of the local store once let serve's pushes miss Shopify.
   */
  platform: PlatformGatewayFactory;
  /** Pause between passes (a pass that pushed a full batch is followed at once). 0 = no timer: `drainOnce` only. */
  intervalMs: number;
  /** Pushes claimed per pass. */
  batchSize: number;
  logger: OutboxLogger;
  /** Drain only these shops (a per-tenant worker; tests sharing a database). Default: every shop. */
  shopIds?: readonly string[];
  /** Delay before the first retry of a failed push; doubled per further failure. Default 1000 ms. */
  retryBaseMs?: number;
  /** Cap of the retry delay. Default 60 s. */
  retryMaxMs?: number;
  /**
   * How long a claim keeps other drainers off the claimed pushes. A drainer that stops mid-pass
   * leaves them to be claimed again after it (the gateway skips what it already applied).
   * Default 30 s.
   */
  leaseMs?: number;
  /**
   * Storefront stock (storefront-levels.ts): with the shell's context dependencies, every pass also
   * claims the due storefront markers (as many as `batchSize`) and sets the finished goods' levels
   * through `platform`. Absent: the markers are left for a drainer that has them.
   */
  storefront?: ContextDeps;
}

/** `failed` counts pushes that stay pending for a retry; `stopped`, pushes the platform refused for good. */
export interface DrainResult { pushed: number; failed: number; stopped?: number; storefront?: StorefrontSettleResult }

export interface OutboxDrainer {
  /** One pass: claim a batch of due pushes, push them per shop, record the outcome. Resolves zeros once stopped. */
  drainOnce(): Promise<DrainResult>;
  /** Stops the timer and waits for the pass in flight; call before the ORM closes. */
  stop(): Promise<void>;
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, ' ').trim().slice(0, MAX_PUSH_ERROR_LENGTH) || 'unknown error';
}

/**
 * Drains the platform-push outbox: every pass claims up to `batchSize` due pending pushes (oldest
 * first, `for update skip locked` plus a lease, so drainers running at once never share a push),
 * hands each shop's to its platform gateway's `applyLevelAdjustments` (idempotent by push id)
 * and marks them pushed. A failed shop batch stays pending with attempts + 1, its error message and
 * an exponential backoff (capped); it is retried until it succeeds. Failures are logged at warn
 * level once per pass, message only.
 */
export function startOutboxDrainer(options: OutboxDrainerOptions): OutboxDrainer {
  const { orm, intervalMs, batchSize, logger } = options;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const retryMaxMs = options.retryMaxMs ?? 60_000;
  const leaseMs = options.leaseMs ?? 30_000;
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new Error('outbox drainer batchSize must be a positive integer');
  async function pass(): Promise<DrainResult> {
    const em = orm.em.fork();
    const claimed = await claimDuePlatformPushes(em, { limit: batchSize, leaseMs, shopIds: options.shopIds ?? null });
    const byShop = new Map<string, ClaimedPlatformPush[]>();
    for (const push of claimed) {
      const list = byShop.get(push.shopId);
      if (list) list.push(push);
      else byShop.set(push.shopId, [push]);
    }
    const result: DrainResult = { pushed: 0, failed: 0 };
    const failures: { shopId: string; pushes: number; error: string }[] = [];
    for (const [shopId, pushes] of byShop) {
      const pushIds = pushes.map((push) => push.pushId);
      // Pushes confirmed with a level change other than their delta: told as events when marked
      // (platform-level-events.ts), the platform's levels read in the mark's transaction.
      const confirming = (confirmed: readonly ConfirmedPush[]) => (confirmed.length === 0 ? undefined
        : (tx: Em, rows: PushEventRow[]) => recordPushConfirmationEvents(tx, shopId, rows, confirmed,
          (variantIds, locationIds) => options.platform({ shopId, em: tx }).getLevels(variantIds, locationIds)));
      let confirmed: readonly ConfirmedPush[];
      try {
        const gateway = options.platform({ shopId, em: shopEm(orm, shopId) });
        confirmed = (await gateway.applyLevelAdjustments(pushes.map(({ pushId, variantId, locationId, delta, workOrderId, buildRunId, orderId }) => ({
          pushId, variantId, locationId, delta, workOrderId, buildRunId, orderId,
        }))));
      } catch (err) {
        const error = errorMessage(err);
        if (err instanceof PlatformPushFailure) {
          // Part of the batch went through: those are pushed; the failing push is retried or, refused
          // for good, stopped; the pushes after it were not tried and go back to the next pass.
          result.pushed += await markPlatformPushesPushed(em, shopId, err.applied, confirming(err.confirmed));
          const untried = pushIds.filter((id) => id !== err.pushId && !err.applied.includes(id));
          await releasePlatformPushes(em, shopId, untried);
          if (err.permanent) {
            await markPlatformPushesStopped(em, shopId, [err.pushId], error);
            result.stopped = (result.stopped ?? 0) + 1;
          } else {
            await markPlatformPushesFailed(em, shopId, [err.pushId], { error, retryBaseMs, retryMaxMs });
            result.failed += 1;
          }
          failures.push({ shopId, pushes: 1, error: err.permanent ? `stopped: ${error}` : error });
          continue;
        }
        await markPlatformPushesFailed(em, shopId, pushIds, { error, retryBaseMs, retryMaxMs });
        result.failed += pushIds.length;
        failures.push({ shopId, pushes: pushIds.length, error });
        continue;
      }
      result.pushed += await markPlatformPushesPushed(em, shopId, pushIds, confirming(confirmed));
    }
    if (options.storefront) result.storefront = await storefrontPass(options.storefront);
    if (failures.length > 0) {
      logger.warn(
        { pushed: result.pushed, failed: result.failed, shops: failures.length, failures: failures.slice(0, 5) },
        `platform push outbox: ${result.failed} push(es) failed and stay pending for a retry`,
      );
    }
    return result;
  }

  /** Claims due storefront markers and settles them per shop; a failed one is retried with backoff (logged once per pass). */
  async function storefrontPass(deps: ContextDeps): Promise<StorefrontSettleResult> {
    const claimed = await claimDueStorefrontRecomputes(orm.em.fork(), { limit: batchSize, leaseMs, shopIds: options.shopIds ?? null });
    const byShop = new Map<string, ClaimedStorefrontRecompute[]>();
    for (const marker of claimed) byShop.set(marker.shopId, [...(byShop.get(marker.shopId) ?? []), marker]);
    const total: StorefrontSettleResult = { settled: 0, set: 0, stale: 0, failed: 0 };
    for (const [shopId, markers] of byShop) {
      const em = shopEm(orm, shopId);
      const done = await settleStorefrontMarkers(deps, em, options.platform({ shopId, em }), shopId, markers, { retryBaseMs, retryMaxMs, errorMessage });
      total.settled += done.settled; total.set += done.set; total.stale += done.stale; total.failed += done.failed;
    }
    if (total.failed > 0) logger.warn({ ...total }, `storefront stock: ${total.failed} finished good(s) could not be set and are retried`);
    return total;
  }

  const loop = startPeriodicPass<DrainResult>({
    pass,
    stoppedResult: { pushed: 0, failed: 0 },
    intervalMs,
    firstDelayMs: intervalMs,
    // A full batch pushed: more may be due. After a failure, wait (the platform may be down).
    backlog: (result) => result.failed === 0 && (result.pushed >= batchSize || (result.storefront !== undefined && result.storefront.failed === 0 && result.storefront.settled >= batchSize)),
    onError: (err) => logger.warn({ error: errorMessage(err) }, 'platform push outbox: a drain pass failed'),
  });
  return { drainOnce: loop.runOnce, stop: loop.stop };
}
