import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter, timestamp } from '../../db/columns.ts';
import { WEBHOOK_DELIVERY_STATUSES } from './event-vocabulary.ts';

// The events module's tables: the per-shop sequence counter, the events (written in the
// transaction of the change they describe), the webhook endpoints and their deliveries (the
// delivery outbox). Only the events module reads and writes them.

/**
 * One row per shop: the last event sequence given out. An event write takes it last in its
 * transaction (`on conflict do update … returning`), so the shop's writers queue on it only for the
 * moment between their last statement and their commit, and no lock is ever taken after it.
 */
export const EventSequence = defineEntity({
  name: 'EventSequence',
  tableName: 'event_sequences',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    lastSequence: p.bigint('string'),
  },
});

/** An event: what changed, in the shop's order. `data` is the JSON text sent (exact decimals as JSON numbers). */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    sequence: p.bigint('string').primary(),
    eventId: p.text(),
    type: p.text(),
    /** What the event is about (`work_order:<id>`, `inventory:<variant>@<location>`): deliveries keep order per resource. */
    resource: p.text(),
    occurredAt: timestamp(),
    data: p.text(),
  },
  indexes: [{ properties: ['shopId', 'eventId'] }],
});

/** A shop's webhook endpoint. Secrets are sealed (AES-256-GCM, src/kernel/secret-box.ts); the previous one signs too until it expires. */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    endpointId: p.text().primary(),
    url: p.text(),
    topics: p.array(),
    description: p.text().nullable(),
    secretSealed: p.text(),
    previousSecretSealed: p.text().nullable(),
    previousSecretExpiresAt: timestamp().nullable(),
    /** Set when the endpoint is disabled (by a client, or after failing for the whole retry window), with the reason. */
    disabledAt: timestamp().nullable(),
    disabledReason: p.text().nullable(),
    /** The first failure since the last success: the retry window runs from here. */
    failingSince: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
});

/** One event for one endpoint (or a note of its log): the delivery outbox, drained with row locks. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    deliveryId: p.text().primary(),
    endpointId: p.text(),
    /** Null for a note. */
    eventSequence: p.bigint('string').nullable(),
    eventType: p.text(),
    resource: p.text(),
    status: p.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: p.integer().default(0),
    createdAt: timestamp(),
    nextAttemptAt: timestamp(),
    lastAttemptAt: timestamp().nullable(),
    /** Its first failed attempt: a delivery failing for the whole retry window from here is abandoned. */
    firstFailedAt: timestamp().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    deliveredAt: timestamp().nullable(),
  },
  indexes: [
    { name: 'webhook_deliveries_due_index', properties: ['nextAttemptAt'], where: `status = 'pending'` },
    { name: 'webhook_deliveries_resource_index', properties: ['shopId', 'endpointId', 'resource', 'eventSequence'], where: `status = 'pending'` },
    { properties: ['shopId', 'endpointId', 'createdAt'] },
  ],
});
