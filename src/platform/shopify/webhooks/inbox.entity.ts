import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter, timestamp } from '../../../db/columns.ts';

export const WEBHOOK_EVENT_STATUSES = ['pending', 'applied', 'skipped'] as const;
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number];

/**
 * What an applied event did to its resource: `upsert` wrote it, `remove` took it out of the
 * mirror (a cancelled or closed order, a deactivated location, a disconnected level: it may come
 * back with a newer event), `delete` removed it for good (Shopify never reuses the id). Applied
 * `remove` and `delete` rows are the tombstones a late, older event is checked against.
 */
export const WEBHOOK_EVENT_EFFECTS = ['upsert', 'remove', 'delete', 'none'] as const;
export type WebhookEventEffect = (typeof WEBHOOK_EVENT_EFFECTS)[number];

/**
 * The Shopify webhook inbox: every signed delivery is stored here first (deduplicated by Shopify's
 * event id per shop) and answered at once; the webhook applier applies it to the shop's mirror
 * afterwards. Kept a week after it is applied: duplicates within Shopify's 48-hour retry window
 * are recognised, and removals stay known to late events.
 */
export const ShopifyWebhookEvent = defineEntity({
  name: 'ShopifyWebhookEvent',
  tableName: 'shopify_webhook_events',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    /** X-Shopify-Event-Id (the same for every delivery and retry of one event). */
    eventId: p.text().primary(),
    /** X-Shopify-Topic, e.g. `inventory_levels/update`. */
    topic: p.text(),
    /** The resource the event is about (`level:<item>:<location>`, `product:<id>`, `location:<id>`, `order:<id>`, `shop`). */
    resource: p.text(),
    /** Shopify's time of the change: the payload's `updated_at`, else X-Shopify-Triggered-At. */
    version: timestamp(),
    payload: p.json<Record<string, unknown>>(),
    receivedAt: timestamp(),
    status: p.enum(WEBHOOK_EVENT_STATUSES).default('pending'),
    effect: p.enum(WEBHOOK_EVENT_EFFECTS).nullable(),
    attempts: p.integer().default(0),
    /** When a pending event is next due; an applier's claim moves it forward by a lease. */
    nextAttemptAt: timestamp(),
    appliedAt: timestamp().nullable(),
    /** Why the last attempt did not apply it (bounded message). */
    lastError: p.text().nullable(),
  },
  indexes: [
    { properties: ['status', 'nextAttemptAt'] },
    { properties: ['shopId', 'resource'] },
    { properties: ['receivedAt'] },
  ],
});
