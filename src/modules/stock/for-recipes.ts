import { sql, type Expression } from 'kysely';
import type { CatalogReadScope } from '../../kernel/catalog-sources.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import { stockSql } from './tables.ts';

// The stock reads the recipes module needs (through the catalogue sources, src/kernel/catalog-sources.ts,
// assembled in src/modules/materials/for-recipes.ts): recipes sit below stock and never name its tables.

const anyOf = (ids: readonly string[]) => sql<string>`any(${textArrayLiteral(ids)}::text[])`;

/**
 * `ids` as a one-column select (i.id) to probe a table with, one index probe per id (a lateral
 * subquery fenced with `offset 0`): with a list of constants the planner may scan the whole table,
 * ~20× slower for a recipe's hundreds of materials in a shop of 20,000.
 */
const idsToProbe = (ids: readonly string[]) => sql<{ id: string }>`(select unnest(${textArrayLiteral(ids)}::text[]) as id)`.as('i');

/** The select of `shelvesOf`, to embed; empty lists select nothing. */
export function shelvesSql(shopId: string, itemIds: readonly string[], locationIds: readonly string[] | null) {
  return stockSql.selectFrom(idsToProbe(itemIds)).innerJoinLateral((eb) => {
    const rows = eb.selectFrom('preassembled_stock as p').select(['p.item_id', 'p.location_id', sql<string>`p.quantity::text`.as('quantity')])
      .where('p.shop_id', '=', shopId).whereRef('p.item_id', '=', sql.ref('i.id'));
    return (locationIds ? rows.where('p.location_id', '=', anyOf(locationIds)) : rows).modifyEnd(sql`offset 0`).as('p');
  }, (j) => j.onTrue()).select(['p.item_id', 'p.location_id', 'p.quantity']);
}

/** Pre-assembled shelf rows of the items (finished-good variant ids or assembly ids); locations null = all. One statement. */
export async function shelvesOf(scope: CatalogReadScope, itemIds: readonly string[], locationIds: readonly string[] | null): Promise<{ itemId: string; locationId: string; quantity: string }[]> {
  if (itemIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
  const rows = await runSql(scope.em, shelvesSql(scope.shopId, itemIds, locationIds));
  return rows.map((r) => ({ itemId: r.item_id, locationId: r.location_id, quantity: r.quantity }));
}

/** The service's own levels of virtual materials (locations null = all), as a select to embed; empty lists select nothing. */
export function virtualLevelsSql(shopId: string, variantIds: readonly string[], locationIds: readonly string[] | null) {
  return stockSql.selectFrom(idsToProbe(variantIds)).innerJoinLateral((eb) => {
    const rows = eb.selectFrom('material_levels as m').select(['m.variant_id', 'm.location_id', sql<string>`m.available::text`.as('available')])
      .where('m.shop_id', '=', shopId).whereRef('m.variant_id', '=', sql.ref('i.id'));
    return (locationIds ? rows.where('m.location_id', '=', anyOf(locationIds)) : rows).modifyEnd(sql`offset 0`).as('m');
  }, (j) => j.onTrue()).select(['m.variant_id', 'm.location_id', 'm.available']);
}

/** Pre-assembled units of an item over every location, trimmed text ('0' without shelves): a correlated subquery. */
export function shelfTotalSql(shopId: string | Expression<string>, itemId: Expression<string>): Expression<string> {
  return stockSql.selectFrom('preassembled_stock as ps')
    .select(sql<string>`trim_scale(coalesce(sum(ps.quantity), 0))::text`.as('total'))
    .where('ps.shop_id', '=', shopId).where('ps.item_id', '=', itemId)
    .$asScalar();
}
