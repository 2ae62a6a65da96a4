import { sql } from 'kysely';
import type { MaterialInfo } from '../../kernel/catalog-sources.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { RecipeForest } from './engine/index.ts';
import type { CostFactorKind } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

// Batched reads the BOM services need beside the forest: one round trip each, whatever the count.

/** A material as a recipe line shows it: read through the shop context's catalogue sources (materials owns the table). */
export type { MaterialInfo };

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
  return new Map((await ctx.catalog.materials(ctx, ids)).map((m) => [m.variantId, m]));
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

/** Pre-assembled shelf rows of the items (finished-good variant ids or assembly ids); locations null = all. Stock's read. */
export function loadShelves(ctx: ShopContext, itemIds: readonly string[], locationIds: readonly string[] | null): Promise<{ itemId: string; locationId: string; quantity: string }[]> {
  return ctx.catalog.shelves(ctx, itemIds, locationIds);
}
