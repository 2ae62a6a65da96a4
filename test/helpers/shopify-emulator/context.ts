import { GraphQLError } from 'graphql';
import type { EmulatedShop } from './shop.ts';

/** What every emulator request shares, whatever the shop. */
export interface EmulatorCore {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly apiVersion: string;
  readonly apiSecret: string;
  /** How long a bulk operation reads RUNNING at least. */
  readonly bulkRunningMs: number;
  /** Where bulk JSONL files are written. */
  readonly bulkDir: string;
}

export interface EmulatorContext {
  shop: EmulatedShop;
  emulator: EmulatorCore;
  /** Set while a bulk operation runs its query: connections are unbounded, the root one sliced. */
  bulk: { offset: number; limit: number; rootTotal: number } | null;
  /** A mutation changed the store during this request (timeoutAfterApply drops the answer then). */
  applied: boolean;
}

/**
 * Shopify's access check: a field whose scope the app was not granted answers ACCESS_DENIED (and
 * null), the rest of the query still runs. A `write_` scope implies its `read_`.
 */
/**
 * The scopes that let an app see fulfilment orders at the store's own locations. "API access scopes
 * govern which fulfillment orders are returned to clients. An API client will only receive a subset
 * of the fulfillment orders ... if they don't have the necessary access scopes": without one of
 * these, an order's fulfilment orders are not returned at all
 * (https://shopify.dev/docs/api/admin-graphql/2026-10/objects/FulfillmentOrder). The emulator's
 * locations are all merchant-managed.
 */
export function seesFulfillmentOrders(ctx: EmulatorContext): boolean {
  const granted = ctx.shop.scopes;
  return ['read_merchant_managed_fulfillment_orders', 'write_merchant_managed_fulfillment_orders'].some((s) => granted.has(s));
}

export function requireScope(ctx: EmulatorContext, scope: string, field: string): void {
  const granted = ctx.shop.scopes;
  if (granted.has(scope) || (scope.startsWith('read_') && granted.has(`write_${scope.slice(5)}`))) return;
  throw new GraphQLError(`Access denied for ${field} field. Required access: \`${scope}\` access scope.`, {
    extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-requirements', requiredAccess: `\`${scope}\` access scope.` },
  });
}
