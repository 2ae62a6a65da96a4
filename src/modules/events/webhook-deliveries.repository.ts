import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import type { WebhookDeliveryStatus, WebhookNote } from './event-vocabulary.ts';
import { eventsSql } from './tables.ts';

// The delivery outbox as the dispatcher works it, across shops: claim (row locks plus a lease, as
// the platform-push outbox does), then record each attempt's outcome. A constant number of
// statements per call.

const PENDING = sql.lit<WebhookDeliveryStatus>('pending');
export const MAX_DELIVERY_ERROR_LENGTH = 500;

export interface ClaimedDelivery {
  shopId: string; deliveryId: string; endpointId: string; resource: string; attempts: number; createdAt: Date;
  url: string; secretSealed: string; previousSecretSealed: string | null;
  eventId: string; type: string; occurredAt: Date; sequence: string; data: string;
  /** Whether a later delivery of its (endpoint, resource) was pending when it was claimed. */
  hasNext: boolean;
}

/** Whether a later delivery of `w`'s (endpoint, resource) is pending (the resource index answers it). */
const hasNextSql = (w: string) => sql<boolean>`exists (select 1 from webhook_deliveries n where n.shop_id = ${sql.ref(`${w}.shop_id`)}
  and n.endpoint_id = ${sql.ref(`${w}.endpoint_id`)} and n.resource = ${sql.ref(`${w}.resource`)} and n.status = 'pending' and n.event_sequence > ${sql.ref(`${w}.event_sequence`)})`;

/**
 * Claims up to `limit` due deliveries, each the oldest pending one of its (endpoint, resource) —
 * so an endpoint gets a resource's events in order, the next only once the one before is
 * delivered or abandoned — at most `perEndpoint` per endpoint (a slow endpoint cannot take every
 * slot), skipping endpoints in `busy` and rows other dispatchers hold (`for update skip locked`),
 * and leases them (`next_attempt_at` moved `leaseMs` ahead) in one statement; a second reads
 * their events and endpoints.
 */
export async function claimDueDeliveries(
  em: Em, options: { limit: number; perEndpoint: number; leaseMs: number; busy: readonly string[]; shopIds: readonly string[] | null },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  // The head of each (endpoint, resource): its pending delivery with the lowest sequence (one
  // grouped pass over the pending rows, not a probe per row).
  let heads = eventsSql.selectFrom('webhook_deliveries').select((eb) => ['shop_id', 'endpoint_id', 'resource', eb.fn.min('event_sequence').as('head')])
    .where('status', '=', PENDING).groupBy(['shop_id', 'endpoint_id', 'resource']);
  if (options.shopIds) heads = heads.where('shop_id', 'in', options.shopIds.length > 0 ? [...options.shopIds] : ['']);
  if (options.busy.length > 0) heads = heads.where(sql<boolean>`not (endpoint_id = any(${textArrayLiteral(options.busy)}::text[]))`);
  const candidates = eventsSql.selectFrom('webhook_deliveries as d')
    .innerJoin(heads.as('h'), (join) => join.onRef('h.shop_id', '=', 'd.shop_id').onRef('h.endpoint_id', '=', 'd.endpoint_id')
      .onRef('h.resource', '=', 'd.resource').onRef('h.head', '=', 'd.event_sequence'))
    .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.shop_id', '=', 'd.shop_id').onRef('e.endpoint_id', '=', 'd.endpoint_id').on('e.disabled_at', 'is', null))
    .select(['d.shop_id', 'd.delivery_id', sql<number>`row_number() over (partition by d.shop_id, d.endpoint_id order by d.next_attempt_at, d.event_sequence)`.as('rank')])
    .where('d.status', '=', PENDING).where('d.next_attempt_at', '<=', sql<Date>`now()`);
  const claimed = await runSql(em, eventsSql
    .with((cte) => cte('c').materialized(), () => candidates)
    .with('due', (db) => db.selectFrom('webhook_deliveries as w').select(['w.shop_id', 'w.delivery_id'])
      .where(sql<boolean>`(w.shop_id, w.delivery_id) in (select c.shop_id, c.delivery_id from c where c.rank <= ${options.perEndpoint})`)
      .where('w.status', '=', PENDING).where('w.next_attempt_at', '<=', sql<Date>`now()`)
      .orderBy('w.next_attempt_at').limit(options.limit).forUpdate().skipLocked())
    .updateTable('webhook_deliveries as x')
    .set({ next_attempt_at: sql<Date>`now() + (${options.leaseMs} * interval '1 millisecond')` })
    .from('due').whereRef('x.shop_id', '=', 'due.shop_id').whereRef('x.delivery_id', '=', 'due.delivery_id')
    .returning(['x.shop_id', 'x.delivery_id', 'x.endpoint_id', 'x.resource', 'x.event_sequence', 'x.attempts', 'x.created_at']));
  if (claimed.length === 0) return [];
  const details = await runSql(em, eventsSql.selectFrom('webhook_deliveries as w')
    .innerJoin('events as v', (join) => join.onRef('v.shop_id', '=', 'w.shop_id').onRef('v.sequence', '=', 'w.event_sequence'))
    .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.shop_id', '=', 'w.shop_id').onRef('e.endpoint_id', '=', 'w.endpoint_id'))
    .select(['w.shop_id', 'w.delivery_id', 'e.url', 'e.secret_sealed',
      sql<string | null>`case when e.previous_secret_expires_at > now() then e.previous_secret_sealed end`.as('previous_secret_sealed'),
      'v.event_id', 'v.type', 'v.occurred_at', 'v.sequence', 'v.data', hasNextSql('w').as('has_next')])
    .where((eb) => eb(eb.refTuple('w.shop_id', 'w.delivery_id'), 'in', claimed.map((c) => eb.tuple(c.shop_id, c.delivery_id)))));
  const byKey = new Map(details.map((d) => [`${d.shop_id}|${d.delivery_id}`, d]));
  return claimed.flatMap((c): ClaimedDelivery[] => {
    const d = byKey.get(`${c.shop_id}|${c.delivery_id}`);
    if (!d) return [];
    return [{
      shopId: c.shop_id, deliveryId: c.delivery_id, endpointId: c.endpoint_id, resource: c.resource, attempts: Number(c.attempts), createdAt: new Date(c.created_at),
      url: d.url, secretSealed: d.secret_sealed, previousSecretSealed: d.previous_secret_sealed,
      eventId: d.event_id, type: d.type, occurredAt: new Date(d.occurred_at), sequence: String(d.sequence), data: d.data, hasNext: Boolean(d.has_next),
    }];
  });
}

/** Where a resource's deliveries to one endpoint stand: the last sequence claimed. */
export interface ResourceCursor { shopId: string; endpointId: string; resource: string; sequence: string }

/**
 * A 2xx recorded (as `markDelivered` records it) and the next delivery of the same (endpoint,
 * resource) claimed, in one statement: the resource's new head, if it is due, not held by another
 * dispatcher and its endpoint enabled, leased as `claimDueDeliveries` leases. The dispatcher sends it
 * at once, so a hot resource goes at the receiver's pace, in order, never one event per pass.
 * Returns the next delivery with its event and endpoint; null when there is none.
 */
export async function claimNextOfResource(
  em: Em, after: ResourceCursor, options: { leaseMs: number; delivered: { delivery: ClaimedDelivery; statusCode: number } },
): Promise<ClaimedDelivery | null> {
  const delivered = options.delivered;
  const [row] = await runSql(em, eventsSql
    .with('ok', (db) => db.updateTable('webhook_endpoints').set({ failing_since: null })
      .where('shop_id', '=', after.shopId).where('endpoint_id', '=', delivered.delivery.endpointId).where('failing_since', 'is not', null))
    .with('done', (db) => db.updateTable('webhook_deliveries').set((eb) => ({
      status: sql.lit<WebhookDeliveryStatus>('delivered'), delivered_at: sql<Date>`now()`, last_attempt_at: sql<Date>`now()`, attempts: eb('attempts', '+', sql.lit(1)),
      last_status_code: delivered.statusCode, last_error: null,
    })).where('shop_id', '=', after.shopId).where('delivery_id', '=', delivered.delivery.deliveryId).where('status', '=', PENDING))
    // The statement sees the rows as they were before it: the delivery just recorded still reads pending, hence the sequence bound.
    .with('head', (db) => db.selectFrom('webhook_deliveries as h').select(['h.shop_id', 'h.delivery_id'])
      .where('h.shop_id', '=', after.shopId).where('h.endpoint_id', '=', after.endpointId).where('h.resource', '=', after.resource)
      .where('h.status', '=', PENDING).where('h.event_sequence', '>', sql<string>`${after.sequence}::bigint`).orderBy('h.event_sequence').limit(1))
    .with('due', (db) => db.selectFrom('webhook_deliveries as w').select(['w.shop_id', 'w.delivery_id'])
      .where(sql<boolean>`(w.shop_id, w.delivery_id) in (select shop_id, delivery_id from head)`)
      .where('w.status', '=', PENDING).where('w.next_attempt_at', '<=', sql<Date>`now()`).forUpdate().skipLocked())
    .updateTable('webhook_deliveries as x')
    .set({ next_attempt_at: sql<Date>`now() + (${options.leaseMs} * interval '1 millisecond')` })
    .from(['due', 'events as v', 'webhook_endpoints as e'])
    .whereRef('x.shop_id', '=', 'due.shop_id').whereRef('x.delivery_id', '=', 'due.delivery_id')
    .whereRef('v.shop_id', '=', 'x.shop_id').whereRef('v.sequence', '=', 'x.event_sequence')
    .whereRef('e.shop_id', '=', 'x.shop_id').whereRef('e.endpoint_id', '=', 'x.endpoint_id').where('e.disabled_at', 'is', null)
    .returning(['x.shop_id', 'x.delivery_id', 'x.endpoint_id', 'x.resource', 'x.attempts', 'x.created_at', 'e.url', 'e.secret_sealed',
      sql<string | null>`case when e.previous_secret_expires_at > now() then e.previous_secret_sealed end`.as('previous_secret_sealed'),
      'v.event_id', 'v.type', 'v.occurred_at', 'v.sequence', 'v.data', hasNextSql('x').as('has_next')]));
  if (!row) return null;
  return {
    shopId: row.shop_id, deliveryId: row.delivery_id, endpointId: row.endpoint_id, resource: row.resource, attempts: Number(row.attempts), createdAt: new Date(row.created_at),
    url: row.url, secretSealed: row.secret_sealed, previousSecretSealed: row.previous_secret_sealed,
    eventId: row.event_id, type: row.type, occurredAt: new Date(row.occurred_at), sequence: String(row.sequence), data: row.data, hasNext: Boolean(row.has_next),
  };
}

/** A 2xx: the delivery is delivered and its endpoint's failure window closes. One statement. */
export async function markDelivered(em: Em, delivery: ClaimedDelivery, statusCode: number): Promise<void> {
  await runSqlWrite(em, eventsSql
    .with('ok', (db) => db.updateTable('webhook_endpoints').set({ failing_since: null })
      .where('shop_id', '=', delivery.shopId).where('endpoint_id', '=', delivery.endpointId).where('failing_since', 'is not', null))
    .updateTable('webhook_deliveries').set((eb) => ({
      status: sql.lit<WebhookDeliveryStatus>('delivered'), delivered_at: sql<Date>`now()`, last_attempt_at: sql<Date>`now()`, attempts: eb('attempts', '+', sql.lit(1)),
      last_status_code: statusCode, last_error: null,
    }))
    .where('shop_id', '=', delivery.shopId).where('delivery_id', '=', delivery.deliveryId).where('status', '=', PENDING));
}

/**
 * A failed attempt: attempts + 1, the status code and error, the next attempt after
 * min(retryMaxMs, retryBaseMs × 2^attempts) scaled by a random 50–100 % (jitter, so failed
 * deliveries do not come back in step); the endpoint's failure window opens if it was closed. A
 * delivery that has failed for longer than `giveUpMs` (since its first failure) is abandoned. Answers whether the endpoint has now failed for
 * longer than `giveUpMs`. One statement.
 */
export async function markFailed(
  em: Em, delivery: ClaimedDelivery, failure: { statusCode: number | null; error: string; retryBaseMs: number; retryMaxMs: number; giveUpMs: number },
): Promise<boolean> {
  const [row] = await runSql(em, eventsSql
    .with('d', (db) => db.updateTable('webhook_deliveries').set((eb) => ({
      attempts: eb('attempts', '+', sql.lit(1)), last_attempt_at: sql<Date>`now()`, last_status_code: failure.statusCode,
      last_error: failure.error.slice(0, MAX_DELIVERY_ERROR_LENGTH),
      first_failed_at: sql<Date>`coalesce(first_failed_at, now())`,
      status: sql<WebhookDeliveryStatus>`case when coalesce(first_failed_at, now()) < now() - (${failure.giveUpMs} * interval '1 millisecond') then 'abandoned' else 'pending' end`,
      next_attempt_at: sql<Date>`now() + (least(${failure.retryMaxMs}::double precision, ${failure.retryBaseMs}::double precision * power(2, least(attempts, 30))) * (0.5 + random() / 2) * interval '1 millisecond')`,
    })).where('shop_id', '=', delivery.shopId).where('delivery_id', '=', delivery.deliveryId).where('status', '=', PENDING).returning('delivery_id'))
    .updateTable('webhook_endpoints').set({ failing_since: sql<Date>`coalesce(failing_since, now())` })
    .where('shop_id', '=', delivery.shopId).where('endpoint_id', '=', delivery.endpointId)
    .returning(sql<boolean>`coalesce(failing_since, now()) < now() - (${failure.giveUpMs} * interval '1 millisecond')`.as('expired')));
  return Boolean(row?.expired);
}

/**
 * Disables an endpoint that failed for the whole retry window: the reason on the endpoint, its
 * pending deliveries abandoned (a replay sends one again), and a note in its delivery log. One
 * statement; nothing if it is disabled already.
 */
export async function disableFailingEndpoint(em: Em, shopId: string, endpointId: string, reason: string): Promise<void> {
  const note: WebhookNote = 'webhook.endpoint_disabled';
  await runSqlWrite(em, eventsSql
    .with('off', (db) => db.updateTable('webhook_endpoints').set({ disabled_at: sql<Date>`now()`, disabled_reason: reason.slice(0, MAX_DELIVERY_ERROR_LENGTH) })
      .where('shop_id', '=', shopId).where('endpoint_id', '=', endpointId).where('disabled_at', 'is', null).returning('endpoint_id'))
    .with('dropped', (db) => db.updateTable('webhook_deliveries').set({ status: sql.lit<WebhookDeliveryStatus>('abandoned') })
      .where('shop_id', '=', shopId).where('endpoint_id', 'in', db.selectFrom('off').select('endpoint_id')).where('status', '=', PENDING))
    .insertInto('webhook_deliveries').columns(['shop_id', 'delivery_id', 'endpoint_id', 'event_sequence', 'event_type', 'resource', 'status', 'attempts', 'created_at', 'next_attempt_at', 'last_error'])
    .expression((eb) => eb.selectFrom('off').select([
      sql<string>`${shopId}`.as('shop_id'), sql<string>`'whd_' || gen_random_uuid()`.as('delivery_id'), 'off.endpoint_id', sql<null>`null`.as('event_sequence'),
      sql<string>`${note}`.as('event_type'), sql<string>`${`endpoint:${endpointId}`}`.as('resource'), sql.lit('note').as('status'), sql.lit(0).as('attempts'),
      sql<Date>`now()`.as('created_at'), sql<Date>`now()`.as('next_attempt_at'), sql<string>`${reason.slice(0, MAX_DELIVERY_ERROR_LENGTH)}`.as('last_error'),
    ])));
}

/** Pending deliveries of the shops (tests wait for zero). One statement. */
export async function countPendingDeliveries(em: Em, shopIds: readonly string[]): Promise<number> {
  if (shopIds.length === 0) return 0;
  const [row] = await runSql(em, eventsSql.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('shop_id', 'in', [...shopIds]).where('status', '=', PENDING));
  return Number(row?.n ?? 0);
}
