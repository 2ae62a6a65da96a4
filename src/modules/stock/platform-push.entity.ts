import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';

export const PLATFORM_PUSH_STATUSES = ['pending', 'pushed'] as const;
export type PlatformPushStatus = (typeof PLATFORM_PUSH_STATUSES)[number];

/**
 * The transactional outbox of platform-linked stock moves. A build run does not write the
 * platform's levels: it writes one row here per (variant, location) it consumed, in the same
 * transaction as the rest of the stock move, and the outbox drainer pushes it through the platform
 * gateway afterwards (retried until it succeeds; the gateway applies each `pushId` once). Reads of
 * live levels add the pending rows, so no client sees stock a run already took.
 * Only `platform-push.repository.ts` reads and writes this table.
 */
export const PlatformPush = defineEntity({
  name: 'PlatformPush',
  tableName: 'platform_pushes',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    pushId: p.text().primary(),
    variantId: p.text(),
    locationId: p.text(),
    /** Signed: a deduction is negative. */
    delta: decimal(),
    workOrderId: p.text().nullable(),
    buildRunId: p.text().nullable(),
    /** The platform order an order fulfilment's consumption comes from (its reference on the platform); null otherwise. */
    orderId: p.text().nullable(),
    /** Why the stock moved, e.g. 'build_run' or 'build_run_reversal'. */
    reason: p.text(),
    status: p.enum(PLATFORM_PUSH_STATUSES).default('pending'),
    /** Push attempts made (successful or not). */
    attempts: p.integer().default(0),
    /** The last failure's message (bounded), null once pushed. */
    lastError: p.text().nullable(),
    createdAt: timestamp(),
    /** When a pending push is next due; a drainer's claim moves it forward by a lease. */
    nextAttemptAt: timestamp(),
    pushedAt: timestamp().nullable(),
    /**
     * Set when the platform refused the push for good (a deleted variant, a missing scope, a
     * whole-unit platform given a fraction): the drainer no longer claims it, so a permanent failure
     * never becomes a retry loop. It stays pending (reads keep counting it) until `bomcore shop
     * retry-pushes` clears the mark once the cause is fixed.
     */
    stoppedAt: timestamp().nullable(),
  },
  indexes: [
    { properties: ['status', 'nextAttemptAt'] },
    { name: 'platform_pushes_pending_level_index', properties: ['shopId', 'variantId', 'locationId'], where: `status = 'pending'` },
    { properties: ['shopId', 'workOrderId'] },
  ],
});
