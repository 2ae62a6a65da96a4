import { sql } from 'kysely';
import type { Em, Orm } from '../../../db/orm.ts';
import type { PlatformLevelChange, PlatformOrderChange, PlatformOrderLocation } from '../../../kernel/platform-port/gateway.ts';
import { runSql, runSqlWrite } from '../../../db/typed-sql.ts';
import { startPeriodicPass } from '../../../kernel/jobs/periodic-pass.ts';
import type { ShopifyAdminApi } from '../admin-api.ts';
import { COMPLIANCE_TOPICS, customerDataRequested, customerRedacted, REDACTED_PAYLOAD, scopesUpdated, shopRedacted, uninstalled } from './app-events.ts';
import { readOrderLocations } from '../fulfilment-orders.ts';
import {
  applyFulfillmentOrders, applyInventoryItem, applyLevel, applyLocation, applyOrder, applyProduct, deleteLocation, deleteOrder, deleteProduct, disconnectLevel,
  locationReadsOf, NotYetApplicable, type Applied, type InboxEvent, type LocatedOrders,
} from './mirror-writes.ts';
import type { WebhookEventStatus } from './inbox.entity.ts';
import { webhookInboxSql } from './tables.ts';

/** The part of a pino logger the applier uses. */
export interface WebhookApplierLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * What follows the mirror outside src/platform, wired by the composition root: platform-linked
 * materials take their variants' new catalogue fields and level totals, and their moved levels
 * become events. Runs in the event's transaction.
 */
export interface WebhookFollowers {
  variantsChanged(em: Em, shopId: string, variantIds: readonly string[]): Promise<void>;
  /** Levels whose value the mirror moved (a webhook's, a reconciliation's): their `inventory.level_changed` events. */
  levelsChanged?(em: Em, shopId: string, changes: readonly PlatformLevelChange[]): Promise<void>;
  /**
   * An order event the mirror took: order execution reserves, consumes the fulfilments not applied
   * yet and releases (idempotent: replays move nothing). `eventId` names the event in the records.
   */
  orderChanged?(em: Em, shopId: string, change: PlatformOrderChange, eventId: string): Promise<void>;
  /** An open order whose units Shopify placed elsewhere (a fulfilment order moved or split): its reservations move with them. */
  orderRelocated?(em: Em, shopId: string, location: PlatformOrderLocation, eventId: string): Promise<void>;
  /** shop/redact erased the store's data: bomcore's own records of the shop follow the operator's BOMCORE_SHOP_REDACT. */
  shopRedacted?(em: Em, shopId: string): Promise<void>;
}

export interface WebhookApplierOptions {
  orm: Orm;
  /** Pause between passes (a pass that claimed a full batch is followed at once). 0 = no timer: `applyOnce` only. */
  intervalMs: number;
  /** Events claimed per pass. */
  batchSize: number;
  logger: WebhookApplierLogger;
  followers?: WebhookFollowers;
  /**
   * The Admin API client of a connected shop (null: none). With it, a pass reads from Shopify where
   * the orders its events are about are (an online order's fulfilment orders, the order of a moved
   * fulfilment order) before applying them; without it, an order is where its payload says.
   */
  apiFor?: (em: Em, shopId: string) => Promise<ShopifyAdminApi | null>;
  /** Apply only these shops' events (tests sharing a database). Default: every shop. */
  shopIds?: readonly string[];
  /** How long a claim keeps other appliers off the claimed events. Default 30 s. */
  leaseMs?: number;
  /** Delay before an event that could not be applied yet is tried again; doubled per attempt, capped at 60 s. Default 1 s. */
  retryBaseMs?: number;
  /** Attempts after which such an event is set aside as `skipped` (the next full sync or reconciliation covers it). Default 12. */
  maxAttempts?: number;
  /** Applied and skipped events are kept this long (duplicates and removals stay known). Default 7 days. */
  retentionMs?: number;
}

export interface ApplyResult { applied: number; deferred: number; skipped: number; claimed: number }

export interface WebhookApplier {
  /** One pass: claim due events, apply each in its own transaction (in Shopify's time order), prune old ones. */
  applyOnce(): Promise<ApplyResult>;
  stop(): Promise<void>;
}

const MAX_ERROR_LENGTH = 500;
const PENDING = sql.lit<WebhookEventStatus>('pending');

type Apply = (em: Em, e: InboxEvent, located?: LocatedOrders) => Promise<Applied>;


/** Each topic bomcore subscribes to (WEBHOOK_TOPICS, in Shopify's header form) and what applies it. */
export const TOPIC_APPLIERS: Readonly<Record<string, Apply>> = {
  'inventory_levels/update': applyLevel,
  'inventory_levels/connect': applyLevel,
  'inventory_levels/disconnect': disconnectLevel,
  'inventory_items/update': applyInventoryItem,
  'products/create': applyProduct,
  'products/update': applyProduct,
  'products/delete': deleteProduct,
  'locations/create': applyLocation,
  'locations/update': applyLocation,
  'locations/activate': applyLocation,
  'locations/deactivate': applyLocation,
  'locations/delete': deleteLocation,
  'orders/create': applyOrder,
  'orders/updated': applyOrder,
  'orders/fulfilled': applyOrder,
  'orders/cancelled': applyOrder,
  'orders/delete': deleteOrder,
  'fulfillment_orders/moved': applyFulfillmentOrders,
  'fulfillment_orders/split': applyFulfillmentOrders,
  'app/uninstalled': uninstalled,
  'app/scopes_update': scopesUpdated,
  'customers/data_request': customerDataRequested,
  'customers/redact': customerRedacted,
  'shop/redact': shopRedacted,
};

/**
 * Applies the webhook inbox to the shops' mirrors in the background. A pass claims due pending
 * events (oldest received first, `for update skip locked` plus a lease: two instances never take
 * the same event), sorts them by Shopify's time of the change and applies each in a transaction
 * that locks its row again and marks it applied, so an event is applied once even when a lease ran
 * out. An event that needs something not mirrored yet waits and is retried with backoff; after
 * `maxAttempts` it is set aside as skipped. Work not done stays in the table for the next pass.
 */
export function startWebhookApplier(options: WebhookApplierOptions): WebhookApplier {
  const { orm, batchSize, logger } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const maxAttempts = options.maxAttempts ?? 12;
  const retentionMs = options.retentionMs ?? 7 * 24 * 3600_000;
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new Error('webhook applier batchSize must be a positive integer');
  const shopIds = options.shopIds ? [...new Set(options.shopIds)] : null;

  async function claim(em: Em): Promise<InboxEvent[]> {
    if (shopIds && shopIds.length === 0) return [];
    let due = webhookInboxSql.selectFrom('shopify_webhook_events').select(['shop_id', 'event_id'])
      .where('status', '=', PENDING).where('next_attempt_at', '<=', sql<Date>`now()`);
    if (shopIds) due = due.where('shop_id', 'in', shopIds);
    const rows = await runSql(em, webhookInboxSql
      .with('due', () => due.orderBy('received_at').orderBy('event_id').limit(batchSize).forUpdate().skipLocked())
      .updateTable('shopify_webhook_events as e')
      .set({ next_attempt_at: sql<Date>`now() + (${leaseMs} * interval '1 millisecond')` })
      .from('due')
      .whereRef('e.shop_id', '=', 'due.shop_id').whereRef('e.event_id', '=', 'due.event_id')
      .returning(['e.shop_id', 'e.event_id', 'e.topic', 'e.resource', 'e.version', 'e.payload']));
    return rows.map((r) => ({
      shopId: r.shop_id, eventId: r.event_id, topic: r.topic, resource: r.resource, version: new Date(r.version),
      payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>,
    })).sort((a, b) => a.version.getTime() - b.version.getTime() || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
  }

  /** Applies one event in its own transaction; false when another applier already did. */
  async function applyEvent(e: InboxEvent, located: LocatedOrders | undefined): Promise<boolean> {
    const em = orm.em.fork();
    em.setFilterParams('tenant', { shopId: e.shopId });
    return em.transactional(async (tx) => {
      const locked = await runSql(tx, webhookInboxSql.selectFrom('shopify_webhook_events').select('event_id')
        .where('shop_id', '=', e.shopId).where('event_id', '=', e.eventId).where('status', '=', PENDING).forUpdate());
      if (locked.length === 0) return false;
      const apply = TOPIC_APPLIERS[e.topic];
      const applied = apply ? await apply(tx, e, located) : { effect: 'none' as const, variantIds: [] };
      if (applied.variantIds.length > 0 && options.followers) await options.followers.variantsChanged(tx, e.shopId, applied.variantIds);
      if (applied.levels?.length && options.followers?.levelsChanged) await options.followers.levelsChanged(tx, e.shopId, applied.levels);
      if (applied.order && options.followers?.orderChanged) await options.followers.orderChanged(tx, e.shopId, applied.order, e.eventId);
      for (const location of applied.relocated ?? []) await options.followers?.orderRelocated?.(tx, e.shopId, location, e.eventId);
      if (applied.shopRedacted) await options.followers?.shopRedacted?.(tx, e.shopId);
      if (applied.report) logger.warn({ dataRequest: applied.report }, 'Shopify customers/data_request: what bomcore holds of the customer (send it to the store)');
      // A compliance payload names a person: once applied, the event keeps only its id, topic and times.
      const scrubbed = COMPLIANCE_TOPICS.has(e.topic) ? { payload: JSON.stringify(REDACTED_PAYLOAD) as never } : {};
      await runSqlWrite(tx, webhookInboxSql.updateTable('shopify_webhook_events')
        .set((eb) => ({ status: sql.lit('applied'), effect: applied.effect, applied_at: sql<Date>`now()`, attempts: eb('attempts', '+', sql.lit(1)), last_error: null, ...scrubbed }))
        .where('shop_id', '=', e.shopId).where('event_id', '=', e.eventId));
      return true;
    });
  }

  async function postpone(em: Em, e: InboxEvent, error: unknown): Promise<'deferred' | 'skipped'> {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_LENGTH) || 'unknown error';
    const [row] = await runSql(em, webhookInboxSql.updateTable('shopify_webhook_events')
      .set((eb) => ({
        attempts: eb('attempts', '+', sql.lit(1)), last_error: message,
        status: sql`case when attempts + 1 >= ${maxAttempts} then 'skipped' else 'pending' end`,
        next_attempt_at: sql<Date>`now() + (least(60000, ${retryBaseMs} * power(2, least(attempts, 20))) * interval '1 millisecond')`,
      }))
      .where('shop_id', '=', e.shopId).where('event_id', '=', e.eventId).where('status', '=', PENDING)
      .returning('status'));
    return row?.status === 'skipped' ? 'skipped' : 'deferred';
  }

  /**
   * Where the claimed events' orders are, read from Shopify per shop before any is applied (one
   * request per 10 orders). A shop whose read failed maps to its error: its events that need the
   * read wait for a later pass.
   */
  async function readLocations(em: Em, events: readonly InboxEvent[]): Promise<Map<string, LocatedOrders | Error>> {
    const byShop = new Map<string, { orderIds: string[]; fulfillmentOrderIds: string[] }>();
    for (const e of events) {
      const reads = locationReadsOf(e);
      if (reads.orderIds.length === 0 && reads.fulfillmentOrderIds.length === 0) continue;
      const shop = byShop.get(e.shopId) ?? { orderIds: [], fulfillmentOrderIds: [] };
      shop.orderIds.push(...reads.orderIds);
      shop.fulfillmentOrderIds.push(...reads.fulfillmentOrderIds);
      byShop.set(e.shopId, shop);
    }
    const located = new Map<string, LocatedOrders | Error>();
    if (!options.apiFor) return located;
    for (const [shopId, reads] of byShop) {
      try {
        const api = await options.apiFor(em, shopId);
        if (api) located.set(shopId, await readOrderLocations(api, reads.orderIds, reads.fulfillmentOrderIds));
      } catch (error) {
        located.set(shopId, error instanceof Error ? error : new Error(String(error)));
      }
    }
    return located;
  }

  async function pass(): Promise<ApplyResult> {
    const em = orm.em.fork();
    const events = await claim(em);
    const result: ApplyResult = { applied: 0, deferred: 0, skipped: 0, claimed: events.length };
    const failures: { shopId: string; eventId: string; topic: string; error: string }[] = [];
    const located = await readLocations(em, events);
    for (const e of events) {
      try {
        const read = located.get(e.shopId);
        const needsRead = locationReadsOf(e);
        if (read instanceof Error && (needsRead.orderIds.length > 0 || needsRead.fulfillmentOrderIds.length > 0)) {
          throw new NotYetApplicable(`where its order is could not be read from Shopify: ${read.message}`);
        }
        if (await applyEvent(e, read instanceof Error ? undefined : read)) result.applied += 1;
      } catch (error) {
        const outcome = await postpone(em, e, error);
        result[outcome] += 1;
        if (!(error instanceof NotYetApplicable) || outcome === 'skipped') failures.push({ shopId: e.shopId, eventId: e.eventId, topic: e.topic, error: (error as Error).message });
      }
    }
    if (failures.length > 0) logger.warn({ failures: failures.slice(0, 10), count: failures.length }, 'webhook events not applied');
    let prune = webhookInboxSql.deleteFrom('shopify_webhook_events').where('status', '!=', PENDING)
      .where('received_at', '<', sql<Date>`now() - (${retentionMs} * interval '1 millisecond')`);
    if (shopIds && shopIds.length === 0) return result;
    if (shopIds) prune = prune.where('shop_id', 'in', shopIds);
    await runSqlWrite(em, prune);
    return result;
  }

  const loop = startPeriodicPass<ApplyResult>({
    pass, stoppedResult: { applied: 0, deferred: 0, skipped: 0, claimed: 0 }, intervalMs: options.intervalMs, firstDelayMs: options.intervalMs,
    backlog: (r) => r.claimed >= batchSize,
    onError: (error) => logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'webhook applier pass failed'),
  });
  return { applyOnce: loop.runOnce, stop: loop.stop };
}
