import { sql, type RawBuilder } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { isEventTopic, type EventTopic } from './event-vocabulary.ts';
import { eventsSql } from './tables.ts';

// The live feed behind GraphQL subscriptions. Each event write notifies `bomcore_events` in its own
// transaction (event-log.ts) with the shop and the range of sequences it took; PostgreSQL delivers a
// notice only after its transaction commits, to every listening process, so a change made through
// one instance reaches subscribers on all of them. A process that has subscribers of the shop reads
// the range back (one statement per notice) and fans the events out to them.

/** The PostgreSQL notification channel of committed events. */
export const EVENTS_CHANNEL = 'bomcore_events';

/** The in-process topic a shop's live events are published on: a subscriber only ever listens to its key's shop. */
export const liveTopic = (shopId: string): string => `bomcore-live:${shopId}`;

/** A committed event as subscribers get it; decimals stay decimal strings. */
export interface LiveEvent {
  shopId: string;
  sequence: string;
  eventId: string;
  type: EventTopic;
  resource: string;
  occurredAt: Date;
  /** The event's data as JSON text (exact digits), as a webhook delivery carries it. */
  dataJson: string;
  /** The same data parsed, every JSON number kept as its decimal string. */
  data: Record<string, unknown>;
}

export interface EventNotice { shopId: string; from: string; to: string }

/** The notice's text: `["shop", from, to]` (JSON, so any shop id survives). */
export function noticeText(shopId: string, from: RawBuilder<unknown>, to: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`json_build_array(${shopId}::text, (${from})::text, (${to})::text)::text`;
}

const INTEGER = /^\d+$/;

/** Reads a notice; null for anything this version did not write. */
export function parseNotice(text: string): EventNotice | null {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [shopId, from, to] = value as unknown[];
    if (typeof shopId !== 'string' || typeof from !== 'string' || typeof to !== 'string' || !INTEGER.test(from) || !INTEGER.test(to)) return null;
    return { shopId, from, to };
  } catch {
    return null;
  }
}

// JSON.parse's reviver gets each value's source text (Node ≥ 21): a number is kept as its digits,
// never rounded through a float.
type SourceReviver = (key: string, value: unknown, context?: { source?: string }) => unknown;
const keepDigits: SourceReviver = (_key, value, context) => (typeof value === 'number' && context?.source !== undefined ? context.source : value);

/** The data of an event with its numbers as decimal strings. */
export function parseEventData(text: string): Record<string, unknown> {
  return JSON.parse(text, keepDigits as Parameters<typeof JSON.parse>[1]) as Record<string, unknown>;
}

/** A shop's events of one notice, in sequence order: one statement. */
export async function readNoticedEvents(em: Em, notice: EventNotice): Promise<LiveEvent[]> {
  const rows = await runSql(em, eventsSql.selectFrom('events')
    .select(['sequence', 'event_id', 'type', 'resource', 'occurred_at', 'data'])
    .where('shop_id', '=', notice.shopId)
    .where(sql<boolean>`sequence between ${notice.from}::bigint and ${notice.to}::bigint`)
    .orderBy('sequence'));
  return rows.flatMap((row) => (isEventTopic(row.type) ? [{
    shopId: notice.shopId, sequence: String(row.sequence), eventId: row.event_id, type: row.type, resource: row.resource,
    occurredAt: new Date(row.occurred_at), dataJson: row.data, data: parseEventData(row.data),
  }] : []));
}
