import { sql } from 'kysely';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../shop-context.ts';
import type { RecipeForest } from './engine/index.ts';
import type { CostFactorKind, MaterialOrigin } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

// Batched reads the BOM services need beside the forest: one round trip each, whatever the count.

export interface MaterialInfo {
  variantId: string; origin: MaterialOrigin; productName: string; variantName: string | null; sku: string | null;
  unit: string | null; unitCost: string | null; isNonEssential: boolean;
}

export interface CostFactorInfo { costFactorId: string; name: string; kind: CostFactorKind; unit: string | null; unitCost: string }

/** Every material and cost-factor id the forest names: base lines and location-rule overrides. */
export function forestNodeIds(forest: RecipeForest): { materials: string[]; costFactors: string[]; assemblies: string[] } {
  const materials = new Set<string>();
  const costFactors = new Set<string>();
  const assemblies = new Set<string>();
  for (const bill of forest.bills.values()) {
    if (bill.key.ownerType === 'sub_assembly') assemblies.add(bill.key.ownerId);
    for (const line of bill.lines) {
      if (line.lineType === 'raw') materials.add(line.nodeId);
      else if (line.lineType === 'cost') costFactors.add(line.nodeId);
    }
    for (const overrides of bill.rules.values()) {
      for (const o of overrides) {
        if (o.introducesAssembly) continue;
        if (o.action === 'add') materials.add(o.nodeId);
        if (o.action === 'replace' && o.replacementNodeId) materials.add(o.replacementNodeId);
      }
    }
  }
  return { materials: [...materials], costFactors: [...costFactors], assemblies: [...assemblies] };
}

export async function loadMaterials(ctx: ShopContext, ids: readonly string[]): Promise<Map<string, MaterialInfo>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.em.execute<{ variant_id: string; origin: MaterialOrigin; product_name: string; variant_name: string | null; sku: string | null; unit: string | null; unit_cost: string | null; is_non_essential_material: boolean }[]>(
    `select variant_id, origin, product_name, variant_name, sku, unit, unit_cost::text as unit_cost, is_non_essential_material
       from materials where shop_id = ? and variant_id = any(?::text[])`,
    [ctx.shopId, textArrayLiteral(ids)],
  );
  return new Map(rows.map((r) => [r.variant_id, {
    variantId: r.variant_id, origin: r.origin, productName: r.product_name, variantName: r.variant_name, sku: r.sku, unit: r.unit,
    unitCost: r.unit_cost, isNonEssential: r.is_non_essential_material,
  }]));
}

export async function loadCostFactors(ctx: ShopContext, ids: readonly string[] | null): Promise<Map<string, CostFactorInfo>> {
  if (ids !== null && ids.length === 0) return new Map();
  const query = recipesSql.selectFrom('cost_factors')
    .select(['cost_factor_id', 'name', 'kind', 'unit', sql<string>`unit_cost::text`.as('unit_cost')])
    .where('shop_id', '=', ctx.shopId).orderBy('cost_factor_id');
  const rows = await runSql(ctx.em, ids === null
    ? query.where('archived_at', 'is', null)
    : query.where('cost_factor_id', '=', sql<string>`any(${textArrayLiteral(ids)}::text[])`));
  return new Map(rows.map((r) => [r.cost_factor_id, { costFactorId: r.cost_factor_id, name: r.name, kind: r.kind, unit: r.unit, unitCost: r.unit_cost }]));
}

/** Pre-assembled shelf rows of the items (finished-good variant ids or assembly ids); locations null = all. */
export async function loadShelves(ctx: ShopContext, itemIds: readonly string[], locationIds: readonly string[] | null): Promise<{ itemId: string; locationId: string; quantity: string }[]> {
  if (itemIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
  const rows = await ctx.em.execute<{ item_id: string; location_id: string; quantity: string }[]>(
    `select item_id, location_id, quantity::text as quantity from preassembled_stock
      where shop_id = ? and item_id = any(?::text[]) ${locationIds ? 'and location_id = any(?::text[])' : ''}`,
    [ctx.shopId, textArrayLiteral(itemIds), ...(locationIds ? [textArrayLiteral(locationIds)] : [])],
  );
  return rows.map((r) => ({ itemId: r.item_id, locationId: r.location_id, quantity: r.quantity }));
}

/** Levels of virtual materials (the service's own stock); locations null = all. */
export async function loadVirtualLevels(ctx: ShopContext, variantIds: readonly string[], locationIds: readonly string[] | null): Promise<{ variantId: string; locationId: string; available: string }[]> {
  if (variantIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
  const rows = await ctx.em.execute<{ variant_id: string; location_id: string; available: string }[]>(
    `select variant_id, location_id, available::text as available from material_levels
      where shop_id = ? and variant_id = any(?::text[]) ${locationIds ? 'and location_id = any(?::text[])' : ''}`,
    [ctx.shopId, textArrayLiteral(variantIds), ...(locationIds ? [textArrayLiteral(locationIds)] : [])],
  );
  return rows.map((r) => ({ variantId: r.variant_id, locationId: r.location_id, available: r.available }));
}
