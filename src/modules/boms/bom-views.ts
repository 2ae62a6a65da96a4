import type { ShopContext } from '../../kernel/shop-context.ts';
import type { PlatformVariantInfo } from '../../kernel/platform-port/gateway.ts';
import { runSql } from '../../db/typed-sql.ts';
import { CostCalculator } from './costs.ts';
import { getBill, type BillKey, type EngineBill, type RecipeForest } from './engine/index.ts';
import type { CostFactorInfo, MaterialInfo } from './recipe-data.ts';
import type { BomHeader } from './bom-rows.ts';
import { recipesSql } from './tables.ts';

// Plain read models of BOMs and assembly bills (decimals as exact, unrounded strings; the GraphQL
// Decimal scalar rounds half-up to 6 places on the way out).

export interface RawLineView { nodeId: string; quantity: string; wastePercentage: string; position: number; node: MaterialInfo | null }
export interface SubLineView { nodeId: string; quantity: string; position: number }
export interface CostLineView { costFactorId: string; quantity: string; position: number; node: CostFactorInfo | null }

export interface RecipeView { rawMaterialLines: RawLineView[]; subAssemblyLines: SubLineView[]; costFactorLines: CostLineView[] }

export interface AssemblyBillView extends RecipeView {
  assemblyId: string; name: string; onlyConsumePreassembled: boolean; leadTimeDays: number; unitCost: string;
  totalRawMaterialCost: string; totalSubAssemblyCost: string; directCostFactorCost: string;
}

/**
 * A BOM: its header as the list's query types it (bom-rows.ts), its recipe, and every assembly
 * bill the base recipe reaches, each once (the REST facade nests them by id).
 */
export type BomView = BomHeader & RecipeView & { assemblyBills: AssemblyBillView[] };

export interface ViewSources {
  forest: RecipeForest;
  materials: Map<string, MaterialInfo>;
  costFactors: Map<string, CostFactorInfo>;
  variants: Map<string, PlatformVariantInfo>;
  /** Finished-good variant id → pre-assembled units summed over locations. */
  preassembled: Map<string, string>;
  costs: CostCalculator;
}

function recipeView(bill: EngineBill, s: ViewSources): RecipeView {
  const view: RecipeView = { rawMaterialLines: [], subAssemblyLines: [], costFactorLines: [] };
  for (const l of bill.lines) {
    if (l.lineType === 'raw') {
      view.rawMaterialLines.push({ nodeId: l.nodeId, quantity: l.quantity.toFixed(), wastePercentage: l.wastePercentage.toFixed(), position: l.position, node: s.materials.get(l.nodeId) ?? null });
    } else if (l.lineType === 'sub') view.subAssemblyLines.push({ nodeId: l.nodeId, quantity: l.quantity.toFixed(), position: l.position });
    else view.costFactorLines.push({ costFactorId: l.nodeId, quantity: l.quantity.toFixed(), position: l.position, node: s.costFactors.get(l.nodeId) ?? null });
  }
  return view;
}

export function assemblyBillView(bill: EngineBill, s: ViewSources): AssemblyBillView {
  const c = s.costs.costs(bill.key);
  return {
    assemblyId: bill.key.ownerId, name: bill.name, onlyConsumePreassembled: bill.onlyConsumePreassembled, leadTimeDays: bill.leadTimeDays ?? 0, unitCost: c.total.toFixed(),
    totalRawMaterialCost: c.rawMaterialCost.toFixed(), totalSubAssemblyCost: c.subAssemblyCost.toFixed(), directCostFactorCost: c.costFactorCost.toFixed(),
    ...recipeView(bill, s),
  };
}

/** Assembly bills reached by base sub lines from `root`, each once, in depth-first recipe order. */
export function reachableAssemblies(forest: RecipeForest, root: BillKey): EngineBill[] {
  const seen = new Set<string>();
  const out: EngineBill[] = [];
  const walk = (key: BillKey) => {
    for (const line of getBill(forest, key)?.lines ?? []) {
      if (line.lineType !== 'sub' || seen.has(line.nodeId)) continue;
      seen.add(line.nodeId);
      const child = getBill(forest, { ownerType: 'sub_assembly', ownerId: line.nodeId });
      if (child) {
        out.push(child);
        walk(child.key);
      }
    }
  };
  walk(root);
  return out;
}

export function bomView(bill: EngineBill, s: ViewSources, withAssemblies: boolean): BomView {
  const c = s.costs.costs(bill.key);
  const variant = bill.variantId === null ? undefined : s.variants.get(bill.variantId);
  return {
    bomId: bill.key.ownerId, name: bill.name, status: bill.status ?? 'active', variantId: bill.variantId, storefrontStock: bill.storefrontStock ?? 'manual', leadTimeDays: bill.leadTimeDays ?? 0,
    productId: variant?.productId ?? null, sku: variant?.sku ?? null, price: variant?.price ?? null,
    totalRawMaterialCost: c.rawMaterialCost.toFixed(), totalSubAssemblyCost: c.subAssemblyCost.toFixed(),
    directCostFactorCost: c.costFactorCost.toFixed(), totalCost: c.total.toFixed(),
    preAssembledQuantity: (bill.variantId === null ? undefined : s.preassembled.get(bill.variantId)) ?? '0',
    ...recipeView(bill, s),
    assemblyBills: withAssemblies ? reachableAssemblies(s.forest, bill.key).map((a) => assemblyBillView(a, s)) : [],
  };
}

/** The finished good's platform variant of each BOM (null: not platform-linked), in one query. */
export async function finishedGoodVariants(ctx: ShopContext, bomIds: readonly string[]): Promise<Map<string, string | null>> {
  if (bomIds.length === 0) return new Map();
  const rows = await runSql(ctx.em, recipesSql.selectFrom('boms').select(['bom_id', 'variant_id'])
    .where('shop_id', '=', ctx.shopId).where('bom_id', 'in', bomIds));
  return new Map(rows.map((r) => [r.bom_id, r.variant_id]));
}
