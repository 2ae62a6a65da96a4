import { DomainError } from '../../kernel/domain-error.ts';
import { exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { assemblyBillView, bomView, type AssemblyBillView, type BomView, type ViewSources } from './bom-views.ts';
import { CostCalculator } from './costs.ts';
import { getBill, loadRecipeForest, loadShopRecipeForest, type BillKey, type RecipeForest } from './engine/index.ts';
import { forestNodeIds, loadCostFactors, loadMaterials, loadShelves } from './recipe-data.ts';

/** Materials, cost factors, finished-good variants and shelves of a forest: four round trips. */
/**
 * What a BOM or assembly-bill view needs beside the forest: materials, cost factors, finished-good
 * variants and their pre-assembled shelves — four independent reads, sent at once.
 */
export async function viewSources(ctx: ShopContext, forest: RecipeForest): Promise<ViewSources> {
  const ids = forestNodeIds(forest);
  const boms = [...forest.bills.values()].filter((b) => b.key.ownerType === 'bom');
  const variantIds = [...new Set(boms.map((b) => b.variantId).filter((v): v is string => v !== null))];
  const [materials, costFactors, variantRows, shelves] = await Promise.all([
    loadMaterials(ctx, ids.materials),
    loadCostFactors(ctx, ids.costFactors),
    variantIds.length ? ctx.platform.getVariants(variantIds) : Promise.resolve([]),
    loadShelves(ctx, variantIds, null),
  ]);
  const variants = new Map(variantRows.map((v) => [v.variantId, v]));
  const preassembled = new Map<string, string>();
  for (const row of shelves) {
    preassembled.set(row.itemId, exact(preassembled.get(row.itemId) ?? 0).plus(row.quantity).toFixed());
  }
  return { forest, materials, costFactors, variants, preassembled, costs: new CostCalculator(forest, materials, costFactors) };
}

/** One BOM with costs and its whole recipe (every reachable assembly bill): 5 round trips at any depth or width. */
export async function getBom(ctx: ShopContext, bomId: string): Promise<BomView> {
  const root: BillKey = { ownerType: 'bom', ownerId: bomId };
  const forest = await loadRecipeForest(ctx, [root]);
  const bill = getBill(forest, root);
  if (!bill) throw DomainError.notFound('bom', bomId);
  return bomView(bill, await viewSources(ctx, forest), true);
}

export async function getAssemblyBill(ctx: ShopContext, assemblyId: string): Promise<AssemblyBillView> {
  const root: BillKey = { ownerType: 'sub_assembly', ownerId: assemblyId };
  const forest = await loadRecipeForest(ctx, [root]);
  const bill = getBill(forest, root);
  if (!bill) throw DomainError.notFound('assembly bill', assemblyId);
  return assemblyBillView(bill, await viewSources(ctx, forest));
}

/** Every BOM of the shop with costs (no nested assemblies): 5 round trips whatever the count. */
export async function allBomViews(ctx: ShopContext): Promise<BomView[]> {
  const forest = await loadShopRecipeForest(ctx);
  const sources = await viewSources(ctx, forest);
  return [...forest.bills.values()].filter((b) => b.key.ownerType === 'bom').map((b) => bomView(b, sources, false));
}
