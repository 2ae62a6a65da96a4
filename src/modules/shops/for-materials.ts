import type { Expression } from 'kysely';
import { shopsSql } from './tables.ts';

// What the materials module (a higher tier) reads of its shop's settings, as fragments of its own
// statements (a material row and the shop's flag stay one statement).


/** Whether the shop allows negative inventory, as a scalar subquery correlated to the caller's row. */
export function shopAllowsNegativeInventory(shopId: Expression<string>) {
  return shopsSql.selectFrom('shops as s').select('s.allow_negative_inventory').where('s.id', '=', shopId).$asScalar();
}
