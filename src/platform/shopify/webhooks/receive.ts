import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Em } from '../../../db/orm.ts';
import { runSql } from '../../../db/typed-sql.ts';
import { jsonTextNestsDeeper } from '../../../kernel/json-depth.ts';
import { findConnectionByDomain, markUninstalled } from '../connections.ts';
import { fromGid, gidResource, numericId } from '../ids.ts';
import { webhookInboxSql } from './tables.ts';

/** Nesting a Shopify webhook body may have (an order's deepest money sets are about 6 levels). */
export const MAX_WEBHOOK_DEPTH = 64;
/** The longest event id stored as sent (it is half the inbox's primary key); a longer one is stored as its SHA-256. */
const MAX_EVENT_ID_LENGTH = 200;

// The receiving half of Shopify webhooks: check the signature, find the shop by its store's
// domain, store the event in the inbox (once per event id) and nothing else, so Shopify's 5 s are
// never at risk. The applier (apply.ts) does the work afterwards.

/**
 * Shopify's signature check: base64 HMAC-SHA256 of the raw body bytes with the app's API secret,
 * compared in constant time with X-Shopify-Hmac-Sha256. A missing or malformed header is false.
 */
export function verifyShopifyHmac(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  let given: Buffer;
  try {
    given = Buffer.from(header.trim(), 'base64');
  } catch {
    return false;
  }
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The headers Shopify sends with every webhook that bomcore reads (lower-case names). */
export interface WebhookHeaders {
  topic: string | undefined;
  shopDomain: string | undefined;
  eventId: string | undefined;
  webhookId: string | undefined;
  triggeredAt: string | undefined;
}

export type ReceiveOutcome =
  | { outcome: 'stored'; shopId: string; eventId: string }
  | { outcome: 'duplicate'; shopId: string; eventId: string }
  | { outcome: 'unknown-shop'; domain: string }
  | { outcome: 'ignored'; shopId: string; reason: string }
  | { outcome: 'invalid'; reason: string };

/** The resource an event is about and Shopify's time of the change it reports. */
export interface EventSubject { resource: string; version: Date }

function validDate(text: unknown): Date | null {
  if (typeof text !== 'string' || text === '') return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * What an event is about, by topic: a level (inventory item × location), an inventory item, a
 * product, a location, an order, a fulfilment order (the one a fulfillment_orders/* event moved or
 * split), the shop (app/uninstalled, app/scopes_update, shop/redact) or a customer (customers/*). Its version is the payload's `updated_at`; payloads without
 * one (deletions, level disconnects) take X-Shopify-Triggered-At, else the time it arrived.
 * Null for a topic bomcore does not apply or a payload without the id it needs.
 */
export function eventSubject(topic: string, payload: Record<string, unknown>, triggeredAt: string | undefined, receivedAt: Date): EventSubject | null {
  const version = validDate(payload.updated_at) ?? validDate(triggeredAt) ?? receivedAt;
  const [resource] = topic.split('/');
  switch (resource) {
    case 'inventory_levels': {
      const item = numericId(payload.inventory_item_id);
      const location = numericId(payload.location_id);
      return item && location ? { resource: `level:${item}:${location}`, version } : null;
    }
    case 'inventory_items': {
      const item = numericId(payload.id);
      return item ? { resource: `item:${item}`, version } : null;
    }
    case 'products':
    case 'locations':
    case 'orders': {
      const id = numericId(payload.id);
      return id ? { resource: `${resource.slice(0, -1)}:${id}`, version } : null;
    }
    case 'fulfillment_orders': {
      const [first] = fulfillmentOrderIdsOf(payload);
      return first ? { resource: `fulfillment_order:${first}`, version } : null;
    }
    case 'app':
      if (topic === 'app/uninstalled') return { resource: 'shop', version };
      return topic === 'app/scopes_update' ? { resource: 'shop:scopes', version } : null;
    // The compliance topics (https://shopify.dev/docs/apps/build/compliance/privacy-law-compliance): their
    // payloads carry no updated_at; each request is its own resource, so none is ever taken for an older copy.
    case 'customers': {
      const customer = numericId((payload.customer as { id?: unknown } | null | undefined)?.id);
      const request = numericId((payload.data_request as { id?: unknown } | null | undefined)?.id);
      if (topic === 'customers/data_request') return customer ? { resource: `customer:${customer}:request:${request ?? version.getTime()}`, version } : null;
      return topic === 'customers/redact' && customer ? { resource: `customer:${customer}:redact`, version } : null;
    }
    case 'shop':
      return topic === 'shop/redact' ? { resource: 'shop:redact', version } : null;
    default:
      return null;
  }
}

/**
 * The fulfilment orders a fulfillment_orders/* payload names (legacy ids), the one it is about
 * first: fulfillment_orders/moved names `original_fulfillment_order` and `moved_fulfillment_order`,
 * fulfillment_orders/split `fulfillment_order`, `remaining_fulfillment_order` and
 * `replacement_fulfillment_order`, each `{ id: "gid://shopify/FulfillmentOrder/…", status, … }`.
 */
export function fulfillmentOrderIdsOf(payload: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const key of ['original_fulfillment_order', 'fulfillment_order', 'moved_fulfillment_order', 'remaining_fulfillment_order', 'replacement_fulfillment_order']) {
    const id = (payload[key] as { id?: unknown } | null | undefined)?.id;
    const legacy = typeof id === 'string' ? (gidResource(id) === 'FulfillmentOrder' ? numericId(fromGid('FulfillmentOrder', id)) : null) : numericId(id);
    if (legacy && !ids.includes(legacy)) ids.push(legacy);
  }
  return ids;
}

/** The topics the applier knows (Shopify's header form of WEBHOOK_TOPICS). */
export const APPLIED_TOPICS: ReadonlySet<string> = new Set([
  'inventory_levels/update', 'inventory_levels/connect', 'inventory_levels/disconnect', 'inventory_items/update',
  'products/create', 'products/update', 'products/delete',
  'locations/create', 'locations/update', 'locations/delete', 'locations/activate', 'locations/deactivate',
  'orders/create', 'orders/updated', 'orders/cancelled', 'orders/fulfilled', 'orders/delete',
  'fulfillment_orders/moved', 'fulfillment_orders/split',
  'app/uninstalled', 'app/scopes_update',
  'customers/data_request', 'customers/redact', 'shop/redact',
]);

/**
 * Stores a verified webhook in its shop's inbox: one statement to find the shop by domain, one
 * insert that does nothing when the event id is already there (a retry, or the same event sent to
 * a second subscription). A shop not connected here, or a topic bomcore does not apply, stores
 * nothing. The event id falls back to the webhook id, then to a hash of topic and body.
 */
export async function receiveWebhook(em: Em, headers: WebhookHeaders, rawBody: Buffer): Promise<ReceiveOutcome> {
  const domain = headers.shopDomain?.trim().toLowerCase();
  if (!domain) return { outcome: 'invalid', reason: 'X-Shopify-Shop-Domain is missing' };
  const topic = headers.topic?.trim().toLowerCase();
  if (!topic) return { outcome: 'invalid', reason: 'X-Shopify-Topic is missing' };
  let payload: unknown;
  const text = rawBody.toString('utf8');
  // Before anything walks it (the parser, the stringify of the inbox row, the applier): Shopify's payloads nest a few levels.
  if (jsonTextNestsDeeper(text, MAX_WEBHOOK_DEPTH)) return { outcome: 'invalid', reason: `the body nests arrays and objects more than ${MAX_WEBHOOK_DEPTH} levels deep` };
  try {
    payload = JSON.parse(text);
  } catch {
    return { outcome: 'invalid', reason: 'the body is not JSON' };
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return { outcome: 'invalid', reason: 'the body is not a JSON object' };
  const connection = await findConnectionByDomain(em, domain);
  if (!connection) return { outcome: 'unknown-shop', domain };
  const shopId = connection.shopId;
  if (!APPLIED_TOPICS.has(topic)) return { outcome: 'ignored', shopId, reason: `topic ${topic} is not one bomcore applies` };
  const receivedAt = new Date();
  const subject = eventSubject(topic, payload as Record<string, unknown>, headers.triggeredAt, receivedAt);
  if (!subject) return { outcome: 'ignored', shopId, reason: `the ${topic} payload has no id bomcore can use` };
  const sent = headers.eventId?.trim() || headers.webhookId?.trim();
  // An id is kept whole, or hashed when longer than the column holds (never cut: two ids sharing a prefix would collide).
  const eventId = sent
    ? (sent.length <= MAX_EVENT_ID_LENGTH ? sent : `sha256:${createHash('sha256').update(sent).digest('hex')}`)
    : `sha256:${createHash('sha256').update(topic).update('\n').update(rawBody).digest('hex')}`;
  const inserted = await runSql(em, webhookInboxSql.insertInto('shopify_webhook_events').values({
    shop_id: shopId, event_id: eventId, topic, resource: subject.resource, version: subject.version, payload: JSON.stringify(payload) as never,
    received_at: receivedAt, status: 'pending', attempts: 0, next_attempt_at: receivedAt,
  }).onConflict((oc) => oc.columns(['shop_id', 'event_id']).doNothing()).returning('event_id'));
  // An uninstall stops every call and push at once and drops the tokens, not when the applier gets to it.
  if (topic === 'app/uninstalled' && inserted.length > 0) await markUninstalled(em, shopId, subject.version);
  return { outcome: inserted.length > 0 ? 'stored' : 'duplicate', shopId, eventId };
}
