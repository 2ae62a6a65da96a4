import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSqlWrite } from '../../db/typed-sql.ts';
import type { BeforeCommit, ShopContext } from '../../kernel/shop-context.ts';
import { EVENTS_CHANNEL, noticeText } from './event-feed.ts';
import type { EventTopic } from './event-vocabulary.ts';
import { eventsSql } from './tables.ts';

// Events are written in the transaction of the change they describe. A writer calls `recordEvents`
// with its transaction's context; the events wait in the transaction's before-commit work and go
// out in one statement when the transaction's own work is done: the shop's sequence row is taken
// (upsert … returning), the events get the next numbers in the order they were recorded, and each
// enabled endpoint of the shop that takes the topic gets a pending delivery — the counter, the
// events and the deliveries in one round trip, whatever the number of events.

// JSON.rawJSON (Node ≥ 21) writes a number's digits verbatim; TypeScript's lib lacks it.
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** An exact decimal (a decimal string) as a JSON number with exactly its digits, as the REST contract writes them. */
export const jsonDecimal = (text: string): unknown => rawJSON(text);
export const jsonDecimalOrNull = (text: string | null): unknown => (text === null ? null : rawJSON(text));

export interface NewEvent {
  type: EventTopic;
  /** What the event is about; deliveries keep order per resource (`work_order:<id>`, …). */
  resource: string;
  /** The event's `data`; decimals through `jsonDecimal`. */
  data: Record<string, unknown>;
}

interface EventRow { eventId: string; type: EventTopic; resource: string; data: string; occurredAt: Date }

const pending = new WeakMap<BeforeCommit, EventRow[]>();

/**
 * Records events of a change. In a transaction of `inShopTransaction` they are written just
 * before it commits (one statement for all of them); outside one, at once through `ctx.em` (which
 * joins whatever transaction that EntityManager is in).
 */
export async function recordEvents(ctx: Pick<ShopContext, 'shopId' | 'em' | 'beforeCommit'>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const occurredAt = new Date();
  const rows = events.map((e): EventRow => ({ eventId: `evt_${randomUUID()}`, type: e.type, resource: e.resource, data: JSON.stringify(e.data), occurredAt }));
  const hooks = ctx.beforeCommit;
  if (!hooks) {
    await writeEvents(ctx.em, ctx.shopId, rows);
    return;
  }
  const buffered = pending.get(hooks);
  if (buffered) buffered.push(...rows);
  else pending.set(hooks, rows);
  const shopId = ctx.shopId;
  hooks.once('events', async (em) => {
    const all = pending.get(hooks) ?? [];
    pending.delete(hooks);
    await writeEvents(em, shopId, all);
  });
}

/** The sequence counter, the events and their deliveries: one statement. */
async function writeEvents(em: Em, shopId: string, rows: readonly EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const n = rows.length;
  const list = (values: readonly string[]) => sql`${textArrayLiteral(values)}::text[]`;
  await runSqlWrite(em, eventsSql
    .with('seq', (db) => db.insertInto('event_sequences').values({ shop_id: shopId, last_sequence: String(n) })
      .onConflict((oc) => oc.column('shop_id').doUpdateSet({ last_sequence: sql<string>`event_sequences.last_sequence + ${n}` }))
      // The live feed's notice (event-feed.ts): PostgreSQL hands it to the listeners only when this
      // transaction commits, and never when it rolls back. A data-modifying CTE runs to completion,
      // so its RETURNING is evaluated (an unreferenced plain select would not be).
      .returning(['last_sequence', sql<string>`pg_notify(${EVENTS_CHANNEL}, ${noticeText(shopId, sql`event_sequences.last_sequence - ${n} + 1`, sql`event_sequences.last_sequence`)})`.as('notified')]))
    .with('v', () => sql<{ event_id: string; type: string; resource: string; data: string; occurred_at: string; ord: string }>`(select * from unnest(${list(rows.map((r) => r.eventId))}, ${list(rows.map((r) => r.type))}, ${list(rows.map((r) => r.resource))}, ${list(rows.map((r) => r.data))}, ${list(rows.map((r) => r.occurredAt.toISOString()))}) with ordinality as v(event_id, type, resource, data, occurred_at, ord))`)
    .with('ev', (db) => db.insertInto('events').columns(['shop_id', 'sequence', 'event_id', 'type', 'resource', 'occurred_at', 'data'])
      .expression(db.selectFrom(['v', 'seq']).select((eb) => [
        eb.val(shopId).as('shop_id'), sql<string>`seq.last_sequence - ${n} + v.ord`.as('sequence'), 'v.event_id', 'v.type', 'v.resource',
        sql<Date>`v.occurred_at::timestamptz`.as('occurred_at'), 'v.data',
      ]))
      .returning(['sequence', 'type', 'resource']))
    .insertInto('webhook_deliveries').columns(['shop_id', 'delivery_id', 'endpoint_id', 'event_sequence', 'event_type', 'resource', 'status', 'attempts', 'created_at', 'next_attempt_at'])
    .expression((eb) => eb.selectFrom('ev').innerJoin('webhook_endpoints as e', (join) => join.on('e.shop_id', '=', shopId).on('e.disabled_at', 'is', null)
      .on(sql<boolean>`ev.type = any(e.topics)`))
      .select([
        sql<string>`${shopId}`.as('shop_id'), sql<string>`'whd_' || gen_random_uuid()`.as('delivery_id'), 'e.endpoint_id', 'ev.sequence', 'ev.type', 'ev.resource',
        sql.lit('pending').as('status'), sql.lit(0).as('attempts'), sql<Date>`now()`.as('created_at'), sql<Date>`now()`.as('next_attempt_at'),
      ])));
}
