import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter, timestamp } from '../../db/columns.ts';

/**
 * One `Idempotency-Key` of a shop: the hash of the request it was first used with, and, once that
 * request's outcome is known, its response (status, headers that matter, body), replayed for a
 * retry with the same key and body until `expiresAt` (24 h after first use).
 *
 * `state` is `in_flight` while a request holds the claim (`claimToken`), until `claimedUntil` (its
 * deadline): after that a retry takes the key over. It becomes `done` in the same transaction as
 * the write, so a `done` key is one whose write committed. Written only by idempotency.store.ts.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    key: p.text().primary(),
    requestHash: p.text(),
    state: p.text(),
    /** Random; tells the request that claimed the key from one that took it over after its deadline. */
    claimToken: p.text(),
    responseStatus: p.integer().nullable(),
    responseHeaders: p.json().nullable(),
    responseBody: p.text().nullable(),
    createdAt: timestamp(),
    expiresAt: timestamp(),
    /** An `in_flight` claim is held until then (the claiming request's deadline). */
    claimedUntil: timestamp(),
  },
  indexes: [{ properties: ['shopId', 'expiresAt'] }],
});
