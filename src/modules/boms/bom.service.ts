import { DomainError } from '../../kernel/domain-error.ts';
import { exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { assemblyBillView, bomView, type AssemblyBillView, type BomView, type ViewSources } from './bom-views.ts';
import { CostCalculator } from './costs.ts';
import { sql } from 'kysely';
import type { PlatformVariantInfo } from '../../kernel/platform-port/gateway.ts';
import { getBill, loadRecipeForestAttached, loadShopRecipeForest, type BillKey, type ForestAttachments, type RecipeForest } from './engine/index.ts';
import { forestNodeIds, loadCostFactors, loadMaterials, loadShelves, type CostFactorInfo, type MaterialInfo } from './recipe-data.ts';

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

/** JSON of a node as the driver hands it over: parsed (PostgreSQL) or text (PGlite may answer json as text). */
const parsed = <T>(json: unknown): T => (typeof json === 'string' ? JSON.parse(json) : json) as T;

/**
 * The view statement's attachments: a raw line's material and a cost line's cost factor (other
 * modules' and this module's correlated subqueries), a BOM's shelf total and, when the platform
 * holds its variants in this database, its finished good's variant.
 */
const viewAttachments = (ctx: ShopContext): ForestAttachments => ({
  bom: (shopId, variantId) => {
    const variant = ctx.platform.variantJson?.(shopId, variantId) ?? null;
    return sql`json_build_object('shelf', ${ctx.catalog.shelfTotal(shopId, variantId)}, 'variant', ${variant ?? sql`null::json`})`;
  },
  line: (shopId, lineType, nodeId) => sql`case ${lineType} when 'raw' then ${ctx.catalog.materialJson(shopId, nodeId)}
    when 'cost' then (select json_build_object('costFactorId', f.cost_factor_id, 'name', f.name, 'kind', f.kind, 'unit', f.unit, 'unitCost', f.unit_cost::text)
      from cost_factors f where f.shop_id = ${shopId} and f.cost_factor_id = ${nodeId}) end`,
});

/**
 * The forest of `roots` with its view sources (viewSources) in ONE statement: materials, cost
 * factors, shelves and variants are attached to the recipe walk's rows; only a platform whose
 * variants are not in this database costs a second round trip (getVariants).
 */
export async function forestView(ctx: ShopContext, roots: readonly BillKey[]): Promise<ViewSources> {
  const embedsVariants = ctx.platform.variantJson?.(sql`''`, sql`''`) != null;
  const { forest, attached } = await loadRecipeForestAttached(ctx, roots, embedsVariants ? 'bom-view' : 'bom-view-no-variants', () => viewAttachments(ctx));
  const materials = new Map<string, MaterialInfo>();
  const costFactors = new Map<string, CostFactorInfo>();
  const variants = new Map<string, PlatformVariantInfo>();
  const preassembled = new Map<string, string>();
  for (const row of attached) {
    if (row.kind === 'line') {
      if (row.line_type === 'raw') materials.set(row.node_id!, parsed<MaterialInfo>(row.attached));
      else if (row.line_type === 'cost') costFactors.set(row.node_id!, parsed<CostFactorInfo>(row.attached));
    } else if (row.kind === 'bill') {
      const { shelf, variant } = parsed<{ shelf: string; variant: PlatformVariantInfo | null }>(row.attached);
      preassembled.set(row.variant_id!, shelf);
      if (variant) variants.set(variant.variantId, variant);
    }
  }
  if (!embedsVariants && preassembled.size > 0) {
    for (const v of await ctx.platform.getVariants([...preassembled.keys()])) variants.set(v.variantId, v);
  }
  return { forest, materials, costFactors, variants, preassembled, costs: new CostCalculator(forest, materials, costFactors) };
}

/** One BOM with costs and its whole recipe (every reachable assembly bill): one round trip at any depth or width. */
export async function getBom(ctx: ShopContext, bomId: string): Promise<BomView> {
  const root: BillKey = { ownerType: 'bom', ownerId: bomId };
  const sources = await forestView(ctx, [root]);
  const bill = getBill(sources.forest, root);
  if (!bill) throw DomainError.notFound('bom', bomId);
  return bomView(bill, sources, true);
}

export async function getAssemblyBill(ctx: ShopContext, assemblyId: string): Promise<AssemblyBillView> {
  const root: BillKey = { ownerType: 'sub_assembly', ownerId: assemblyId };
  const sources = await forestView(ctx, [root]);
  const bill = getBill(sources.forest, root);
  if (!bill) throw DomainError.notFound('assembly bill', assemblyId);
  return assemblyBillView(bill, sources);
}

/** Every BOM of the shop with costs (no nested assemblies): 5 round trips whatever the count. */
export async function allBomViews(ctx: ShopContext): Promise<BomView[]> {
  const forest = await loadShopRecipeForest(ctx);
  const sources = await viewSources(ctx, forest);
  return [...forest.bills.values()].filter((b) => b.key.ownerType === 'bom').map((b) => bomView(b, sources, false));
}
