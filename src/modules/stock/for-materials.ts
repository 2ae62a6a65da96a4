import { sql, type Expression } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { stockSql } from './tables.ts';

// What the materials module (a higher tier) reads of the virtual levels: fragments it puts into its
// own statements (so a material row and its level figures stay one statement) and one read.

/** The sum of a virtual material's levels (null when it has none), as a scalar subquery correlated to the caller's row. */
export function virtualLevelTotal(shopId: Expression<string>, variantId: Expression<string>) {
  return stockSql.selectFrom('material_levels as l')
    .select((eb) => eb.fn.sum<string | null>('l.available').as('total'))
    .where('l.shop_id', '=', shopId).where('l.variant_id', '=', variantId).$asScalar();
}

/** The locations a virtual material has a level at, as a JSON array (a scalar subquery correlated to the caller's row). */
export function virtualLevelLocations(shopId: Expression<string>, variantId: Expression<string>) {
  return stockSql.selectFrom('material_levels as l')
    .select(sql<string[] | string>`coalesce(json_agg(l.location_id), '[]'::json)`.as('locations'))
    .where('l.shop_id', '=', shopId).where('l.variant_id', '=', variantId).$asScalar();
}

/** The levels of virtual materials within a scope (null = every location), in one read. */
export async function virtualLevelsIn(ctx: ShopContext, variantIds: readonly string[], scope: readonly string[] | null) {
  if (variantIds.length === 0 || scope?.length === 0) return [];
  let query = stockSql.selectFrom('material_levels')
    .select(['variant_id', 'location_id', sql<string>`available::text`.as('available')])
    .where('shop_id', '=', ctx.shopId).where('variant_id', 'in', variantIds);
  if (scope) query = query.where('location_id', 'in', scope);
  return runSql(ctx.em, query);
}
