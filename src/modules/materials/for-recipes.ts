import { sql } from 'kysely';
import type { CatalogSources, MaterialInfo } from '../../kernel/catalog-sources.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import { shelfTotalSql, shelvesOf, shelvesSql, virtualLevelsSql } from '../stock/for-recipes.ts';
import { materialsSql } from './tables.ts';

// The catalogue sources (src/kernel/catalog-sources.ts) the recipes module reads through its shop context:
// materials owns the `materials` table, stock its levels and shelves (src/modules/stock/for-recipes.ts).
// The composition root (src/app/composition.ts) and the dataset load hand this object to the recipes module.

/** Builds queries over the materials module's own table. */

export const recipeCatalogSources: CatalogSources = {
  async materials(scope, variantIds) {
    if (variantIds.length === 0) return [];
    const rows = await runSql(scope.em, materialsSql.selectFrom('materials')
      .select(['variant_id', 'origin', 'product_name', 'variant_name', 'sku', 'unit', sql<string | null>`unit_cost::text`.as('unit_cost'), 'is_non_essential_material', 'tracked'])
      .where('shop_id', '=', scope.shopId).where('variant_id', '=', sql<string>`any(${textArrayLiteral(variantIds)}::text[])`));
    return rows.map((r) => ({
      variantId: r.variant_id, origin: r.origin, productName: r.product_name, variantName: r.variant_name, sku: r.sku, unit: r.unit,
      unitCost: r.unit_cost, isNonEssential: r.is_non_essential_material, tracked: r.tracked,
    }));
  },

  materialStates: (shopId, variantIds) => materialsSql.selectFrom('materials')
    .select([sql<'raw'>`'raw'`.as('kind'), 'variant_id as id', sql<boolean>`archived_at is not null`.as('archived')])
    .where('shop_id', '=', shopId).where('variant_id', '=', sql<string>`any(${textArrayLiteral(variantIds)}::text[])`),

  materialUnitCost: (shopId, variantId) => materialsSql.selectFrom('materials as m').select('m.unit_cost')
    .where('m.shop_id', '=', shopId).where('m.variant_id', '=', variantId).$asScalar(),

  materialJson: (shopId, variantId) => materialsSql.selectFrom('materials as m')
    .select(sql<MaterialInfo>`json_build_object('variantId', m.variant_id, 'origin', m.origin, 'productName', m.product_name,
      'variantName', m.variant_name, 'sku', m.sku, 'unit', m.unit, 'unitCost', m.unit_cost::text,
      'isNonEssential', m.is_non_essential_material, 'tracked', m.tracked)`.as('material'))
    .where('m.shop_id', '=', shopId).where('m.variant_id', '=', variantId).$asScalar(),

  shelfTotal: shelfTotalSql,
  shelves: shelvesOf,
  shelvesSql,
  virtualLevelsSql,
};
