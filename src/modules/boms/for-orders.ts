import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { recipesSql } from './tables.ts';

// What the orders module (a higher tier) reads of the recipes.

/** The BOMs whose finished good is one of `variantIds` (an order line's variant), in one read. */
export async function bomsOfVariants(ctx: ShopContext, variantIds: readonly string[]) {
  if (variantIds.length === 0) return [];
  return runSql(ctx.em, recipesSql.selectFrom('boms').select(['bom_id', 'name', 'variant_id'])
    .where('shop_id', '=', ctx.shopId).where('variant_id', 'in', variantIds)
    .$narrowType<{ variant_id: string }>());
}
