import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { BillCost, BomListEntry, BomListStats } from './cost-rollup.entity.ts';
import { StorefrontRecompute } from './storefront-recompute.entity.ts';
import { AssemblyBill, BillVersion, Bom, CostFactor, LocationRule, LocationRuleOverride, RecipeLine } from './recipe.entity.ts';

/** The recipes module's tables, typed from their entity definitions: its queries can name no other module's table. */
export type RecipesTables = InferKyselyDB<
  typeof CostFactor | typeof AssemblyBill | typeof Bom | typeof RecipeLine | typeof LocationRule | typeof LocationRuleOverride
  | typeof BillVersion | typeof BillCost | typeof BomListEntry | typeof BomListStats | typeof StorefrontRecompute
>;

/** Builds the recipes module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const recipesSql = sqlBuilder<RecipesTables>();
