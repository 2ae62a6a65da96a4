import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { exact, fromParts } from '../../kernel/numbers/index.ts';
import { fractionDigits, magnitudeAtLeast, readClientDecimal } from '../../kernel/numbers/decimal-text.ts';
import type { PlatformPushStatus } from './platform-push.entity.ts';
import { stockSql } from './tables.ts';
import { recordEvents } from '../events/event-log.ts';
import { pushEvents, PUSH_EVENT_COLUMNS, type PushEventRow } from './stock-events.ts';

// The only code that reads and writes `platform_pushes` (the outbox of platform-linked stock
// moves). Plain SQL, a constant number of round trips per call. Shop-scoped functions take the
// shop id explicitly; the drainer's claim works across shops.

export interface NewPlatformPush {
  variantId: string;
  locationId: string;
  /** Signed decimal: a deduction is negative. */
  delta: string;
  workOrderId: string | null;
  buildRunId: string | null;
  /** The platform order of an order fulfilment's consumption (absent: none). */
  orderId?: string | null;
  /** e.g. 'build_run' | 'build_run_reversal'. */
  reason: string;
}

/** A pending push claimed by a drainer. */
export interface ClaimedPlatformPush {
  shopId: string;
  pushId: string;
  variantId: string;
  locationId: string;
  delta: string;
  attempts: number;
  createdAt: Date;
  workOrderId: string | null;
  buildRunId: string | null;
  orderId: string | null;
}

export interface StuckPlatformPushes {
  /** Pending pushes of the work order that have failed at least one attempt. */
  count: number;
  /** Σ |delta| of those pushes. */
  quantity: string;
  oldestAt: Date;
  /** The most recent failure's message. */
  lastError: string | null;
  /** Of `count`, those the platform refused for good (stopped until `bomcore shop retry-pushes`). */
  stopped: number;
}

/** A push's status as a literal in the statement text (the partial indexes name it). */
const PENDING = sql.lit<PlatformPushStatus>('pending');

/** Longest `last_error` kept: a message, never a stack or a response body. */
export const MAX_PUSH_ERROR_LENGTH = 500;

/** Bind parameters per row (status, attempts and the timestamps are literals). */
const INSERT_PARAMS_PER_ROW = 9;
/** PostgreSQL accepts at most 65,535 bind parameters per statement. */
const MAX_ROWS_PER_INSERT = Math.floor(60_000 / INSERT_PARAMS_PER_ROW);

function checkedDelta(delta: string): string {
  const reading = readClientDecimal(delta);
  if (reading === null) throw new Error(`platform push delta "${delta}" is not a number`);
  if (!reading.finite || fractionDigits(reading.parts) > 6 || magnitudeAtLeast(reading.parts, 14)) {
    throw new Error(`platform push delta "${delta}" does not fit numeric(20,6)`);
  }
  return fromParts(reading.parts).toFixed();
}

/**
 * Writes pushes to the outbox as pending, due now. Pass the stock move's transactional em: the
 * rows commit or roll back with it. One multi-row insert (split only past the bind-parameter
 * limit, 7,500 rows); push ids are random (`push_<uuid>`).
 */
export async function enqueuePlatformPushes(em: Em, shopId: string, pushes: readonly NewPlatformPush[]): Promise<void> {
  const rows = pushRows(shopId, pushes);
  for (let start = 0; start < rows.length; start += MAX_ROWS_PER_INSERT) {
    await runSqlWrite(em, stockSql.insertInto('platform_pushes').values(rows.slice(start, start + MAX_ROWS_PER_INSERT)));
  }
}

/**
 * The insert of `enqueuePlatformPushes` as one query, for a writer that sends it as a part of its
 * own statement (src/db/statement-parts.ts); null when there is nothing to push or too much for
 * one statement (the writer then calls `enqueuePlatformPushes`).
 */
export function platformPushesInsert(shopId: string, pushes: readonly NewPlatformPush[]) {
  if (pushes.length === 0 || pushes.length > MAX_ROWS_PER_INSERT) return null;
  return stockSql.insertInto('platform_pushes').values(pushRows(shopId, pushes));
}

function pushRows(shopId: string, pushes: readonly NewPlatformPush[]) {
  return pushes.map((push) => ({
    shop_id: shopId, push_id: `push_${randomUUID()}`, variant_id: push.variantId, location_id: push.locationId, delta: checkedDelta(push.delta),
    work_order_id: push.workOrderId, build_run_id: push.buildRunId, order_id: push.orderId ?? null, reason: push.reason,
    status: PENDING, attempts: sql.lit(0), created_at: sql<Date>`now()`, next_attempt_at: sql<Date>`now()`,
  }));
}

/** Key of a (variant, location) level in a map of levels: `${variantId}|${locationId}`. */
export function levelKey(variantId: string, locationId: string): string {
  return `${variantId}|${locationId}`;
}

/**
 * Σ delta of the shop's pending pushes per (variant, location), for the given variants and
 * locations (`locationIds` null = every location). Keys are `levelKey(variantId, locationId)`;
 * pairs with nothing pending are absent. One round trip.
 */
export async function pendingLevelDeltas(
  em: Em, shopId: string, variantIds: readonly string[], locationIds: readonly string[] | null,
): Promise<Map<string, string>> {
  const deltas = new Map<string, string>();
  if (variantIds.length === 0 || (locationIds && locationIds.length === 0)) return deltas;
  const rows = await runSql(em, pendingLevelDeltasSql(shopId, variantIds, locationIds));
  for (const r of rows) deltas.set(levelKey(r.variant_id, r.location_id), exact(r.delta).toFixed());
  return deltas;
}

/** The select of `pendingLevelDeltas` (variant_id, location_id, delta), to embed; `variantIds` and a given `locationIds` are not empty. */
export function pendingLevelDeltasSql(shopId: string, variantIds: readonly string[], locationIds: readonly string[] | null) {
  let query = stockSql.selectFrom('platform_pushes')
    .select((eb) => ['variant_id', 'location_id', eb.fn.sum<string>('delta').as('delta')])
    // One array parameter per list, not one parameter per id: a recipe's hundreds of materials.
    .where('shop_id', '=', shopId).where('status', '=', PENDING).where('variant_id', '=', sql<string>`any(${textArrayLiteral([...new Set(variantIds)])}::text[])`);
  if (locationIds) query = query.where('location_id', '=', sql<string>`any(${textArrayLiteral([...new Set(locationIds)])}::text[])`);
  return query.groupBy(['variant_id', 'location_id']);
}


/**
 * Per work order: its pending pushes that have failed at least one attempt (the
 * PLATFORM_PUSH_STUCK warning). Work orders with none are absent. One round trip.
 */
export async function stuckPushesByWorkOrder(em: Em, shopId: string, workOrderIds: readonly string[]): Promise<Map<string, StuckPlatformPushes>> {
  const stuck = new Map<string, StuckPlatformPushes>();
  if (workOrderIds.length === 0) return stuck;
  const rows = await runSql(em, stockSql.selectFrom('platform_pushes')
    .select((eb) => [
      'work_order_id', eb.fn.countAll<string | number>().as('count'), eb.fn.sum<string>(eb.fn('abs', ['delta'])).as('quantity'),
      eb.fn.min('created_at').as('oldest_at'),
      sql<string | null>`(array_agg(last_error order by next_attempt_at desc, push_id))[1]`.as('last_error'),
      sql<string | number>`count(*) filter (where stopped_at is not null)`.as('stopped'),
    ])
    .where('shop_id', '=', shopId).where('work_order_id', 'in', [...new Set(workOrderIds)]).where('status', '=', PENDING).where('attempts', '>', sql.lit(0))
    .groupBy('work_order_id'));
  for (const r of rows) {
    stuck.set(r.work_order_id!, {
      count: Number(r.count), quantity: exact(r.quantity).toFixed(), oldestAt: new Date(r.oldest_at), lastError: r.last_error, stopped: Number(r.stopped),
    });
  }
  return stuck;
}

/**
 * The drainer's claim, across shops (or only `shopIds`): up to `limit` due pending pushes, oldest
 * first, locked with `for update skip locked` and leased by moving their `next_attempt_at`
 * `leaseMs` ahead, all in one statement (one transaction). Another drainer neither waits for them
 * nor sees them as due until the lease runs out; a drainer that dies mid-push leaves them to be
 * claimed again after it, and the gateway's idempotency by push id makes that re-push harmless.
 */
export async function claimDuePlatformPushes(
  em: Em, options: { limit: number; leaseMs: number; shopIds?: readonly string[] | null },
): Promise<ClaimedPlatformPush[]> {
  const shopIds = options.shopIds ? [...new Set(options.shopIds)] : null;
  if (shopIds && shopIds.length === 0) return [];
  let due = stockSql.selectFrom('platform_pushes').select(['shop_id', 'push_id'])
    .where('status', '=', PENDING).where('next_attempt_at', '<=', sql<Date>`now()`).where('stopped_at', 'is', null);
  if (shopIds) due = due.where('shop_id', 'in', shopIds);
  const rows = await runSql(em, stockSql
    .with('due', () => due.orderBy('created_at').orderBy('push_id').limit(options.limit).forUpdate().skipLocked())
    .updateTable('platform_pushes as p')
    .set({ next_attempt_at: sql<Date>`now() + (${options.leaseMs} * interval '1 millisecond')` })
    .from('due')
    .whereRef('p.shop_id', '=', 'due.shop_id').whereRef('p.push_id', '=', 'due.push_id')
    .returning(['p.shop_id', 'p.push_id', 'p.variant_id', 'p.location_id', 'p.delta', 'p.attempts', 'p.created_at', 'p.work_order_id', 'p.build_run_id', 'p.order_id']));
  return rows
    .map((r) => ({
      shopId: r.shop_id, pushId: r.push_id, variantId: r.variant_id, locationId: r.location_id, delta: exact(r.delta).toFixed(),
      attempts: Number(r.attempts), createdAt: new Date(r.created_at), workOrderId: r.work_order_id, buildRunId: r.build_run_id, orderId: r.order_id,
    }))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.pushId < b.pushId ? -1 : a.pushId > b.pushId ? 1 : 0));
}

/**
 * Runs a mark of pushes and records the events it calls for (`platform.push_stuck` on a first
 * failure, `platform.push_recovered` on a success after failures) in one transaction: two round
 * trips when an event is due, one otherwise.
 */
async function markWithEvents(
  em: Em, shopId: string, mark: (tx: Em) => Promise<PushEventRow[]>, outcome: 'failed' | 'stopped' | 'pushed', then?: (tx: Em, rows: PushEventRow[]) => Promise<void>,
): Promise<number> {
  return em.transactional(async (tx) => {
    const rows = await mark(tx as Em);
    await recordEvents({ shopId, em: tx as Em }, pushEvents(rows, outcome));
    if (then) await then(tx as Em, rows);
    return rows.length;
  });
}

/**
 * Marks pushes the platform accepted as pushed (an attempt counted). Already-pushed rows are left
 * alone. `then` runs in the same transaction with the rows marked (the drainer's confirmation events).
 */
export async function markPlatformPushesPushed(em: Em, shopId: string, pushIds: readonly string[], then?: (tx: Em, rows: PushEventRow[]) => Promise<void>): Promise<number> {
  if (pushIds.length === 0) return 0;
  return markWithEvents(em, shopId, (tx) => runSql(tx, stockSql.updateTable('platform_pushes')
    .set((eb) => ({ status: sql.lit<PlatformPushStatus>('pushed'), pushed_at: sql<Date>`now()`, attempts: eb('attempts', '+', sql.lit(1)), last_error: null }))
    .where('shop_id', '=', shopId).where('push_id', 'in', [...new Set(pushIds)]).where('status', '=', PENDING)
    .returning(PUSH_EVENT_COLUMNS)), 'pushed', then);
}

/**
 * Records a failed attempt on pending pushes: attempts + 1, the error message (cut to
 * MAX_PUSH_ERROR_LENGTH) and the next attempt after an exponential backoff,
 * min(retryMaxMs, retryBaseMs × 2^(attempts before this one)). They stay pending. One round trip.
 */
export async function markPlatformPushesFailed(
  em: Em, shopId: string, pushIds: readonly string[], failure: { error: string; retryBaseMs: number; retryMaxMs: number },
): Promise<number> {
  if (pushIds.length === 0) return 0;
  return markWithEvents(em, shopId, (tx) => runSql(tx, stockSql.updateTable('platform_pushes')
    .set((eb) => ({
      attempts: eb('attempts', '+', sql.lit(1)), last_error: failure.error.slice(0, MAX_PUSH_ERROR_LENGTH),
      next_attempt_at: sql<Date>`now() + (least(${failure.retryMaxMs}::double precision, ${failure.retryBaseMs}::double precision * power(2, least(attempts, 30))) * interval '1 millisecond')`,
    }))
    .where('shop_id', '=', shopId).where('push_id', 'in', [...new Set(pushIds)]).where('status', '=', PENDING)
    .returning(PUSH_EVENT_COLUMNS)), 'failed');
}

/** Stops pushes the platform refused for good: attempts + 1, the error, and `stopped_at` (no drainer claims them again). One round trip. */
export async function markPlatformPushesStopped(em: Em, shopId: string, pushIds: readonly string[], error: string): Promise<number> {
  if (pushIds.length === 0) return 0;
  return markWithEvents(em, shopId, (tx) => runSql(tx, stockSql.updateTable('platform_pushes')
    .set((eb) => ({ attempts: eb('attempts', '+', sql.lit(1)), last_error: error.slice(0, MAX_PUSH_ERROR_LENGTH), stopped_at: sql<Date>`now()` }))
    .where('shop_id', '=', shopId).where('push_id', 'in', [...new Set(pushIds)]).where('status', '=', PENDING)
    .returning(PUSH_EVENT_COLUMNS)), 'stopped');
}

/** Gives claimed pushes that were not tried back to the next pass at once (no attempt counted). One round trip. */
export async function releasePlatformPushes(em: Em, shopId: string, pushIds: readonly string[]): Promise<number> {
  if (pushIds.length === 0) return 0;
  return runSqlWrite(em, stockSql.updateTable('platform_pushes').set({ next_attempt_at: sql<Date>`now()` })
    .where('shop_id', '=', shopId).where('push_id', 'in', [...new Set(pushIds)]).where('status', '=', PENDING));
}

/** Lets the drainer try the shop's stopped pushes again (`bomcore shop retry-pushes`, once the cause is fixed). One round trip. */
export async function retryStoppedPlatformPushes(em: Em, shopId: string): Promise<number> {
  return runSqlWrite(em, stockSql.updateTable('platform_pushes').set({ stopped_at: null, next_attempt_at: sql<Date>`now()` })
    .where('shop_id', '=', shopId).where('status', '=', PENDING).where('stopped_at', 'is not', null));
}

/** The shop's outbox at a glance (`bomcore shop status`): pending pushes, those that failed at least once, the oldest pending. One round trip. */
export async function countPlatformPushes(em: Em, shopId: string): Promise<{ pending: number; failing: number; stopped: number; oldestPendingAt: string | null }> {
  const [row] = await runSql(em, stockSql.selectFrom('platform_pushes')
    .select((eb) => [
      eb.fn.countAll<string | number>().as('pending'),
      sql<string | number>`count(*) filter (where attempts > 0 and stopped_at is null)`.as('failing'),
      sql<string | number>`count(*) filter (where stopped_at is not null)`.as('stopped'),
      eb.fn.min('created_at').as('oldest'),
    ])
    .where('shop_id', '=', shopId).where('status', '=', PENDING));
  return { pending: Number(row?.pending ?? 0), failing: Number(row?.failing ?? 0), stopped: Number(row?.stopped ?? 0), oldestPendingAt: row?.oldest ? new Date(row.oldest).toISOString() : null };
}
