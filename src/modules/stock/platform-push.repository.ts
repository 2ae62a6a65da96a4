import { randomUUID } from 'node:crypto';
import type { QueryResult } from '@mikro-orm/core';
import type { Em } from '../../db/orm.ts';
import { exact, fromParts } from '../../numbers/index.ts';
import { fractionDigits, magnitudeAtLeast, readClientDecimal } from '../../numbers/decimal-text.ts';
import { levelKey, type PendingPushReader } from '../../platform/pending-aware-gateway.ts';

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
}

export interface StuckPlatformPushes {
  /** Pending pushes of the work order that have failed at least one attempt. */
  count: number;
  /** Σ |delta| of those pushes. */
  quantity: string;
  oldestAt: Date;
  /** The most recent failure's message. */
  lastError: string | null;
}

/** Longest `last_error` kept: a message, never a stack or a response body. */
export const MAX_PUSH_ERROR_LENGTH = 500;

const INSERT_COLUMNS = ['shop_id', 'push_id', 'variant_id', 'location_id', 'delta', 'work_order_id', 'build_run_id', 'reason', 'status', 'attempts', 'created_at', 'next_attempt_at'];
/** Bind parameters per row (status, attempts and the timestamps are literals). */
const INSERT_PARAMS_PER_ROW = 8;
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
  if (pushes.length === 0) return;
  const rows = pushes.map((push) => [
    shopId, `push_${randomUUID()}`, push.variantId, push.locationId, checkedDelta(push.delta), push.workOrderId, push.buildRunId, push.reason,
  ]);
  const head = `insert into platform_pushes (${INSERT_COLUMNS.join(', ')}) values `;
  const tuple = `(?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, now(), now())`;
  for (let start = 0; start < rows.length; start += MAX_ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + MAX_ROWS_PER_INSERT);
    await em.execute(head + chunk.map(() => tuple).join(', '), chunk.flat(), 'run');
  }
}

/**
 * Σ delta of the shop's pending pushes per (variant, location), for the given variants and
 * locations (`locationIds` null = every location). Keys are `levelKey(variantId, locationId)`
 * (src/platform/pending-aware-gateway.ts); pairs with nothing pending are absent. One round trip.
 */
export async function pendingLevelDeltas(
  em: Em, shopId: string, variantIds: readonly string[], locationIds: readonly string[] | null,
): Promise<Map<string, string>> {
  const deltas = new Map<string, string>();
  if (variantIds.length === 0 || (locationIds && locationIds.length === 0)) return deltas;
  const rows = await em.execute<{ variant_id: string; location_id: string; delta: string }[]>(
    `select variant_id, location_id, sum(delta) as delta from platform_pushes
      where shop_id = ? and status = 'pending' and variant_id in (?)${locationIds ? ' and location_id in (?)' : ''}
      group by variant_id, location_id`,
    locationIds ? [shopId, [...new Set(variantIds)], [...new Set(locationIds)]] : [shopId, [...new Set(variantIds)]],
  );
  for (const r of rows) deltas.set(levelKey(r.variant_id, r.location_id), exact(r.delta).toFixed());
  return deltas;
}

/** The outbox as the pending-aware platform gateway reads it (wired by src/composition.ts). */
export const platformPushOutboxReader: PendingPushReader = { pendingLevelDeltas };

/**
 * Per work order: its pending pushes that have failed at least one attempt (the
 * PLATFORM_PUSH_STUCK warning). Work orders with none are absent. One round trip.
 */
export async function stuckPushesByWorkOrder(em: Em, shopId: string, workOrderIds: readonly string[]): Promise<Map<string, StuckPlatformPushes>> {
  const stuck = new Map<string, StuckPlatformPushes>();
  if (workOrderIds.length === 0) return stuck;
  const rows = await em.execute<{ work_order_id: string; count: string | number; quantity: string; oldest_at: Date | string; last_error: string | null }[]>(
    `select work_order_id, count(*) as count, sum(abs(delta)) as quantity, min(created_at) as oldest_at,
            (array_agg(last_error order by next_attempt_at desc, push_id))[1] as last_error
       from platform_pushes
      where shop_id = ? and work_order_id in (?) and status = 'pending' and attempts > 0
      group by work_order_id`,
    [shopId, [...new Set(workOrderIds)]],
  );
  for (const r of rows) {
    stuck.set(r.work_order_id, {
      count: Number(r.count), quantity: exact(r.quantity).toFixed(), oldestAt: new Date(r.oldest_at), lastError: r.last_error,
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
  const rows = await em.execute<{ shop_id: string; push_id: string; variant_id: string; location_id: string; delta: string; attempts: number; created_at: Date | string }[]>(
    `with due as (
       select shop_id, push_id from platform_pushes
        where status = 'pending' and next_attempt_at <= now()${shopIds ? ' and shop_id in (?)' : ''}
        order by created_at, push_id
        limit ?
        for update skip locked
     )
     update platform_pushes p set next_attempt_at = now() + (? * interval '1 millisecond')
       from due
      where p.shop_id = due.shop_id and p.push_id = due.push_id
     returning p.shop_id, p.push_id, p.variant_id, p.location_id, p.delta, p.attempts, p.created_at`,
    shopIds ? [shopIds, options.limit, options.leaseMs] : [options.limit, options.leaseMs],
  );
  return rows
    .map((r) => ({
      shopId: r.shop_id, pushId: r.push_id, variantId: r.variant_id, locationId: r.location_id, delta: exact(r.delta).toFixed(),
      attempts: Number(r.attempts), createdAt: new Date(r.created_at),
    }))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.pushId < b.pushId ? -1 : a.pushId > b.pushId ? 1 : 0));
}

/** Marks pushes the platform accepted as pushed (an attempt counted). Already-pushed rows are left alone. One round trip. */
export async function markPlatformPushesPushed(em: Em, shopId: string, pushIds: readonly string[]): Promise<number> {
  if (pushIds.length === 0) return 0;
  const result = await em.execute<QueryResult>(
    `update platform_pushes set status = 'pushed', pushed_at = now(), attempts = attempts + 1, last_error = null
      where shop_id = ? and push_id in (?) and status = 'pending'`,
    [shopId, [...new Set(pushIds)]],
    'run',
  );
  return result.affectedRows;
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
  const result = await em.execute<QueryResult>(
    `update platform_pushes
        set attempts = attempts + 1, last_error = ?,
            next_attempt_at = now() + (least(?::double precision, ?::double precision * power(2, least(attempts, 30))) * interval '1 millisecond')
      where shop_id = ? and push_id in (?) and status = 'pending'`,
    [failure.error.slice(0, MAX_PUSH_ERROR_LENGTH), failure.retryMaxMs, failure.retryBaseMs, shopId, [...new Set(pushIds)]],
    'run',
  );
  return result.affectedRows;
}
