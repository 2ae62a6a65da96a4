import { expressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { MaterialsTables } from './tables.ts';

// What the stock module (below materials) needs of materials, handed to it by its callers: stock
// names no materials table itself.

/** "The shop has raw material `variantId`", as an SQL condition for a statement of the caller's. */
export function materialExistsSql(shopId: string, variantId: string): Expression<SqlBool> {
  const eb = expressionBuilder<MaterialsTables, never>();
  return eb.exists(eb.selectFrom('materials').select(eb.lit(1).as('one')).where('shop_id', '=', shopId).where('variant_id', '=', variantId));
}
