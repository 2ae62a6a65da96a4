import type { ShopContext } from '../src/kernel/shop-context.ts';

/** GraphQL context: the shop context of the caller. Built fresh for every operation. */
export type GraphQLContext = ShopContext;
