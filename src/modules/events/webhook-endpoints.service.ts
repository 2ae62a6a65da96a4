import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { DomainError } from '../../kernel/domain-error.ts';
import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import { secretBoxFor, SecretKeyError } from '../../kernel/secret-box.ts';
import type { Config } from '../../kernel/config.ts';
import { EVENT_TOPICS, isEventTopic, type EventTopic, type WebhookDeliveryStatus } from './event-vocabulary.ts';
import { newWebhookSecret } from './webhook-signing.ts';
import { checkWebhookUrl } from './webhook-targets.ts';
import { eventsSql } from './tables.ts';

// A shop's webhook endpoints: create (the secret is answered once, stored sealed), update (URL,
// topics, description, enable/disable), rotate the secret (the old one keeps signing for an
// overlap), delete, list with recent deliveries, replay a delivery. GraphQL and the CLI call these.

/** Endpoints a shop may have; recent deliveries a listing answers per endpoint at most. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
export const MAX_RECENT_DELIVERIES = 50;

export interface WebhookDeliveryView {
  deliveryId: string; endpointId: string; eventType: string; eventSequence: string | null; resource: string; status: WebhookDeliveryStatus;
  attempts: number; lastStatusCode: number | null; lastError: string | null; createdAt: Date; nextAttemptAt: Date | null; lastAttemptAt: Date | null; deliveredAt: Date | null;
}

export interface WebhookEndpointView {
  endpointId: string; url: string; topics: EventTopic[]; description: string | null; enabled: boolean; disabledAt: Date | null; disabledReason: string | null;
  failingSince: Date | null; previousSecretExpiresAt: Date | null; createdAt: Date; updatedAt: Date;
}

/** Who asks: a shop, its EntityManager and the configuration (URL rules, the secret key). */
export interface EndpointCaller { shopId: string; em: Em; config: Pick<Config, 'webhooks' | 'secretKey' | 'databaseUrl' | 'dataDir'> }

/** Seals a new secret; a server without its secret key answers UNAVAILABLE (a setting to fix), never INTERNAL. */
function seal(config: EndpointCaller['config'], secret: string): string {
  try {
    return secretBoxFor(config).seal(secret);
  } catch (err) {
    if (err instanceof SecretKeyError) throw new DomainError('UNAVAILABLE', `webhook endpoints need the server's secret key: ${err.message}`);
    throw err;
  }
}

export function parseTopics(values: readonly string[], field = 'topics'): EventTopic[] {
  if (values.length === 0) throw DomainError.invalid(field, `name at least one topic (${EVENT_TOPICS.join(', ')})`);
  const unknown = values.filter((t) => !isEventTopic(t));
  if (unknown.length > 0) throw DomainError.invalid(field, `unknown topic ${unknown.join(', ')}; topics: ${EVENT_TOPICS.join(', ')}`);
  return [...new Set(values as EventTopic[])];
}

const endpointColumns = [
  'endpoint_id', 'url', 'topics', 'description', 'disabled_at', 'disabled_reason', 'failing_since', 'previous_secret_expires_at', 'created_at', 'updated_at',
] as const;

type EndpointRow = { endpoint_id: string; url: string; topics: string[] | string; description: string | null; disabled_at: Date | string | null; disabled_reason: string | null;
  failing_since: Date | string | null; previous_secret_expires_at: Date | string | null; created_at: Date | string; updated_at: Date | string };

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));
const textArray = (v: string[] | string): string[] => (Array.isArray(v) ? v : v.replace(/^\{|\}$/g, '').split(',').filter(Boolean).map((s) => s.replace(/^"|"$/g, '')));

function toView(r: EndpointRow): WebhookEndpointView {
  return {
    endpointId: r.endpoint_id, url: r.url, topics: textArray(r.topics).filter(isEventTopic), description: r.description, enabled: r.disabled_at === null,
    disabledAt: date(r.disabled_at), disabledReason: r.disabled_reason, failingSince: date(r.failing_since), previousSecretExpiresAt: date(r.previous_secret_expires_at),
    createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
  };
}

export async function createWebhookEndpoint(
  ctx: EndpointCaller, input: { url: string; topics: readonly string[]; description?: string | null },
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const url = checkWebhookUrl(input.url, ctx.config.webhooks);
  const topics = parseTopics(input.topics);
  const [count] = await runSql(ctx.em, eventsSql.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<string | number>().as('n')).where('shop_id', '=', ctx.shopId));
  if (Number(count?.n ?? 0) >= MAX_WEBHOOK_ENDPOINTS) throw new DomainError('CONFLICT', `a shop has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
  const secret = newWebhookSecret();
  const [row] = await runSql(ctx.em, eventsSql.insertInto('webhook_endpoints').values({
    shop_id: ctx.shopId, endpoint_id: `whe_${randomUUID()}`, url, topics: sql<string[]>`${textArrayLiteral(topics)}::text[]`, description: input.description ?? null,
    secret_sealed: seal(ctx.config, secret), created_at: sql<Date>`now()`, updated_at: sql<Date>`now()`,
  }).returning(endpointColumns));
  return { endpoint: toView(row as EndpointRow), secret };
}

export async function updateWebhookEndpoint(
  ctx: EndpointCaller, endpointId: string, patch: { url?: string | null; topics?: readonly string[] | null; description?: string | null; enabled?: boolean | null },
): Promise<WebhookEndpointView> {
  const set: Record<string, unknown> = { updated_at: sql<Date>`now()` };
  if (patch.url !== undefined && patch.url !== null) set.url = checkWebhookUrl(patch.url, ctx.config.webhooks);
  if (patch.topics !== undefined && patch.topics !== null) set.topics = sql`${textArrayLiteral(parseTopics(patch.topics))}::text[]`;
  if (patch.description !== undefined) set.description = patch.description;
  // Enabling clears the failure window, so a re-enabled endpoint gets the whole retry window again.
  if (patch.enabled === true) Object.assign(set, { disabled_at: null, disabled_reason: null, failing_since: null });
  if (patch.enabled === false) Object.assign(set, { disabled_at: sql<Date>`coalesce(disabled_at, now())`, disabled_reason: sql<string>`coalesce(disabled_reason, 'disabled by a client')` });
  const [row] = await runSql(ctx.em, eventsSql.updateTable('webhook_endpoints').set(set)
    .where('shop_id', '=', ctx.shopId).where('endpoint_id', '=', endpointId).returning(endpointColumns));
  if (!row) throw DomainError.notFound('webhook endpoint', endpointId);
  return toView(row as EndpointRow);
}

/** A new secret; the current one keeps signing (a second signature) for `overlapSeconds`. */
export async function rotateWebhookSecret(ctx: EndpointCaller, endpointId: string, overlapSeconds: number): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > 7 * 86_400) throw DomainError.invalid('overlapSeconds', 'must be a whole number of seconds from 0 to 604800 (7 days)');
  const [known] = await runSql(ctx.em, eventsSql.selectFrom('webhook_endpoints').select('endpoint_id').where('shop_id', '=', ctx.shopId).where('endpoint_id', '=', endpointId));
  if (!known) throw DomainError.notFound('webhook endpoint', endpointId);
  const secret = newWebhookSecret();
  const [row] = await runSql(ctx.em, eventsSql.updateTable('webhook_endpoints').set({
    previous_secret_sealed: sql<string>`secret_sealed`, previous_secret_expires_at: sql<Date>`now() + (${overlapSeconds} * interval '1 second')`,
    secret_sealed: seal(ctx.config, secret), updated_at: sql<Date>`now()`,
  }).where('shop_id', '=', ctx.shopId).where('endpoint_id', '=', endpointId).returning(endpointColumns));
  if (!row) throw DomainError.notFound('webhook endpoint', endpointId);
  return { endpoint: toView(row as EndpointRow), secret };
}

/** Deletes an endpoint and its delivery log. */
export async function deleteWebhookEndpoint(ctx: EndpointCaller, endpointId: string): Promise<{ endpointId: string }> {
  const [gone] = await Promise.all([
    runSqlWrite(ctx.em, eventsSql.deleteFrom('webhook_endpoints').where('shop_id', '=', ctx.shopId).where('endpoint_id', '=', endpointId)),
    runSqlWrite(ctx.em, eventsSql.deleteFrom('webhook_deliveries').where('shop_id', '=', ctx.shopId).where('endpoint_id', '=', endpointId)),
  ]);
  if (gone === 0) throw DomainError.notFound('webhook endpoint', endpointId);
  return { endpointId };
}

/** The shop's endpoints, oldest first. One statement. */
export async function listWebhookEndpoints(ctx: Pick<EndpointCaller, 'shopId' | 'em'>): Promise<WebhookEndpointView[]> {
  const rows = await runSql(ctx.em, eventsSql.selectFrom('webhook_endpoints').select(endpointColumns).where('shop_id', '=', ctx.shopId).orderBy('created_at').orderBy('endpoint_id'));
  return rows.map((r) => toView(r as EndpointRow));
}

const deliveryColumns = [
  'delivery_id', 'endpoint_id', 'event_type', 'event_sequence', 'resource', 'status', 'attempts', 'last_status_code', 'last_error', 'created_at', 'next_attempt_at',
  'last_attempt_at', 'delivered_at',
] as const;

function toDeliveryView(r: Record<(typeof deliveryColumns)[number], unknown>): WebhookDeliveryView {
  return {
    deliveryId: r.delivery_id as string, endpointId: r.endpoint_id as string, eventType: r.event_type as string,
    eventSequence: r.event_sequence === null ? null : String(r.event_sequence), resource: r.resource as string, status: r.status as WebhookDeliveryStatus,
    attempts: Number(r.attempts), lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code), lastError: r.last_error as string | null,
    createdAt: new Date(r.created_at as string), nextAttemptAt: r.status === 'pending' ? new Date(r.next_attempt_at as string) : null,
    lastAttemptAt: date(r.last_attempt_at as string | null), deliveredAt: date(r.delivered_at as string | null),
  };
}

/** The newest `limit` log entries of each endpoint named, newest first; one statement whatever the number of endpoints. */
export async function recentDeliveries(ctx: Pick<EndpointCaller, 'shopId' | 'em'>, endpointIds: readonly string[], limit: number): Promise<Map<string, WebhookDeliveryView[]>> {
  const result = new Map<string, WebhookDeliveryView[]>(endpointIds.map((id) => [id, []]));
  if (endpointIds.length === 0 || limit <= 0) return result;
  const ranked = eventsSql.selectFrom('webhook_deliveries').select([...deliveryColumns, sql<number>`row_number() over (partition by endpoint_id order by created_at desc, event_sequence desc nulls first, delivery_id)`.as('rank')])
    .where('shop_id', '=', ctx.shopId).where('endpoint_id', 'in', [...new Set(endpointIds)]);
  const rows = await runSql(ctx.em, eventsSql.selectFrom(ranked.as('d')).selectAll().where('d.rank', '<=', Math.min(limit, MAX_RECENT_DELIVERIES)).orderBy('d.endpoint_id').orderBy('d.rank'));
  for (const r of rows) result.get(r.endpoint_id)?.push(toDeliveryView(r));
  return result;
}

/** Sends an event to an endpoint again: a new pending delivery of the same event, due now. */
export async function replayWebhookDelivery(ctx: Pick<EndpointCaller, 'shopId' | 'em'>, deliveryId: string): Promise<WebhookDeliveryView> {
  const [row] = await runSql(ctx.em, eventsSql.insertInto('webhook_deliveries').columns([
    'shop_id', 'delivery_id', 'endpoint_id', 'event_sequence', 'event_type', 'resource', 'status', 'attempts', 'created_at', 'next_attempt_at',
  ]).expression(eventsSql.selectFrom('webhook_deliveries').select([
    'shop_id', sql<string>`'whd_' || gen_random_uuid()`.as('delivery_id'), 'endpoint_id', 'event_sequence', 'event_type', 'resource', sql.lit('pending').as('status'),
    sql.lit(0).as('attempts'), sql<Date>`now()`.as('created_at'), sql<Date>`now()`.as('next_attempt_at'),
  ]).where('shop_id', '=', ctx.shopId).where('delivery_id', '=', deliveryId).where('event_sequence', 'is not', null))
    .returning(deliveryColumns));
  if (!row) throw DomainError.notFound('webhook delivery', deliveryId);
  return toDeliveryView(row);
}
