import { p } from '@mikro-orm/core';

/** Exact decimal column: numeric(20, 6). MikroORM maps it to a string, never a float. */
export const decimal = () => p.decimal().precision(20).scale(6);
/** Timestamp with milliseconds, as the API exposes it. */
export const timestamp = () => p.datetime(3);

/**
 * Every tenant-owned entity carries this filter. It is on by default and MikroORM throws
 * "No arguments provided for filter 'tenant'" when an EntityManager has not been bound to a shop,
 * so an entity query cannot silently read across shops.
 */
export const tenantFilter = {
  tenant: { name: 'tenant', cond: (args: { shopId: string }) => ({ shopId: args.shopId }), default: true },
};
