import { expressionBuilder, sql, type AliasableExpression } from 'kysely';
import type { ShopsTables } from './tables.ts';

// What the auth module (a higher tier) reads of its shop: the data version, folded into the key
// lookup every request already makes, so a conditional read costs no statement of its own.

/**
 * The data version of the shop whose id is the caller's column `shopIdColumn` ("table.column"), as
 * a scalar subquery of the caller's statement: a bigint as text, null for a shop never changed
 * since the version table exists (read it as 0).
 */
export function shopDataVersionSql(shopIdColumn: string): AliasableExpression<string | null> {
  const eb = expressionBuilder<ShopsTables, never>();
  return eb.selectFrom('shop_data_versions').select(sql<string>`version::text`.as('version'))
    .where('shop_id', '=', sql.ref<string>(shopIdColumn)) as unknown as AliasableExpression<string | null>;
}
