import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter, timestamp } from '../../db/columns.ts';

/**
 * "The storefront level of finished good `variantId` may have changed": one row per finished good,
 * upserted in the transaction of whatever it depends on (a stock move, a shelf, a recipe, a rule,
 * an order reservation). Each upsert bumps `generation`; the outbox drainer claims rows whose
 * `generation` is past `doneGeneration`, recomputes the levels at every location and sets those
 * that differ, then records the generation it computed from. A burst of changes between two passes
 * is one recompute. Only `storefront-recomputes.repository.ts` reads and writes this table.
 */
export const StorefrontRecompute = defineEntity({
  name: 'StorefrontRecompute',
  tableName: 'storefront_recomputes',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    /** The finished good's platform variant. */
    variantId: p.text().primary(),
    generation: p.integer().default(1),
    doneGeneration: p.integer().default(0),
    /** When a pending recompute is next due; a claim moves it forward by a lease, a failure by a backoff. */
    nextAttemptAt: timestamp(),
    attempts: p.integer().default(0),
    /** The last failure's message (bounded), null once done. */
    lastError: p.text().nullable(),
  },
  indexes: [{ properties: ['nextAttemptAt'] }],
});
