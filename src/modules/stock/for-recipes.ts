import { sql, type Expression } from 'kysely';
import type { CatalogReadScope } from '../../kernel/catalog-sources.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import { stockSql } from './tables.ts';

// The stock reads the recipes module needs (through the catalogue sources, src/kernel/catalog-sources.ts,
// assembled in src/modules/materials/for-recipes.ts): recipes sit below stock and never name its tables.

const anyOf = (ids: readonly string[]) => sql<string>`any(${textArrayLiteral(ids)}::text[])`;

/** The select of `shelvesOf`, to embed; empty lists select nothing. */
export function shelvesSql(shopId: string, itemIds: readonly string[], locationIds: readonly string[] | null) {
  const query = stockSql.selectFrom('preassembled_stock').select(['item_id', 'location_id', sql<string>`quantity::text`.as('quantity')])
    .where('shop_id', '=', shopId).where('item_id', '=', anyOf(itemIds));
  return locationIds ? query.where('location_id', '=', anyOf(locationIds)) : query;
}

/** Pre-assembled shelf rows of the items (finished-good variant ids or assembly ids); locations null = all. One statement. */
export async function shelvesOf(scope: CatalogReadScope, itemIds: readonly string[], locationIds: readonly string[] | null): Promise<{ itemId: string; locationId: string; quantity: string }[]> {
  if (itemIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
  const rows = await runSql(scope.em, shelvesSql(scope.shopId, itemIds, locationIds));
  return rows.map((r) => ({ itemId: r.item_id, locationId: r.location_id, quantity: r.quantity }));
}

/** The service's own levels of virtual materials (locations null = all), as a select to embed; empty lists select nothing. */
export function virtualLevelsSql(shopId: string, variantIds: readonly string[], locationIds: readonly string[] | null) {
  const query = stockSql.selectFrom('material_levels').select(['variant_id', 'location_id', sql<string>`available::text`.as('available')])
    .where('shop_id', '=', shopId).where('variant_id', '=', anyOf(variantIds));
  return locationIds ? query.where('location_id', '=', anyOf(locationIds)) : query;
}

/** Pre-assembled units of an item over every location, trimmed text ('0' without shelves): a correlated subquery. */
export function shelfTotalSql(shopId: string | Expression<string>, itemId: Expression<string>): Expression<string> {
  return stockSql.selectFrom('preassembled_stock as ps')
    .select(sql<string>`trim_scale(coalesce(sum(ps.quantity), 0))::text`.as('total'))
    .where('ps.shop_id', '=', shopId).where('ps.item_id', '=', itemId)
    .$asScalar();
}
