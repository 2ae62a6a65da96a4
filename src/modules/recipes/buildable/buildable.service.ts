import { DomainError } from '../../../domain-error.ts';
import type { ShopContext } from '../../../shop-context.ts';
import { Exact, exact, ZERO } from '../../../numbers/index.ts';
import { getBill, loadRecipeForest, type BillKey } from '../engine/index.ts';
import { forestNodeIds, loadMaterials, loadShelves, loadVirtualLevels, type MaterialInfo } from '../recipe-data.ts';
import { computeBuildable, treeHasShelfOnlyBill, type LimitRow, type PerUnitCache, type StockView } from './calculate.ts';

export interface LimitingComponentView {
  nodeId: string; name: string; origin: 'platform' | 'virtual' | 'preassembled'; quantityPerUnit: string; wastePercentage: string;
  isNonEssential: boolean; maxUnitsByThisComponent: number; availableAtLocation: string;
}
export interface BuildableLocationView { locationId: string; locationName: string; maxBuildable: number; sellable: number; limitingComponents: LimitingComponentView[] }
export interface BuildableView {
  bomId: string; variantId: string | null; hasSellableSplit: boolean; globalFallback: boolean;
  perLocation: BuildableLocationView[]; totals: { maxBuildable: number; sellable: number };
}

/** Sums per (item, location) into a lookup; negative levels count as 0 (each level clamped before summing). */
class Levels {
  readonly #byLocation = new Map<string, Map<string, Exact>>();
  readonly #total = new Map<string, Exact>();
  add(itemId: string, locationId: string, value: string): void {
    const v = Exact.max(exact(value), ZERO);
    const at = this.#byLocation.get(locationId) ?? new Map<string, Exact>();
    this.#byLocation.set(locationId, at);
    at.set(itemId, (at.get(itemId) ?? ZERO).plus(v));
    this.#total.set(itemId, (this.#total.get(itemId) ?? ZERO).plus(v));
  }
  at(locationId: string | null, itemId: string): Exact {
    return (locationId === null ? this.#total : this.#byLocation.get(locationId))?.get(itemId) ?? ZERO;
  }
}

function limitingView(row: LimitRow, materials: Map<string, MaterialInfo>, assemblyName: (id: string) => string): LimitingComponentView {
  const material = row.kind === 'material' ? materials.get(row.nodeId) : undefined;
  return {
    nodeId: row.nodeId,
    name: material ? material.productName : assemblyName(row.nodeId.slice('subassembly:'.length)),
    origin: material ? material.origin : 'preassembled',
    quantityPerUnit: row.quantityPerUnit.toFixed(), wastePercentage: row.wastePercentage.toFixed(),
    isNonEssential: false, maxUnitsByThisComponent: row.maxUnits?.toNumber() ?? 0, availableAtLocation: row.available.toFixed(),
  };
}

/**
 * Buildable quantities of a BOM per location in scope (`locationIds` null = every location).
 * Round trips: forest 1, materials 1, locations 1, platform levels 2 (the live levels and the
 * outbox's pending pushes, sent at once; 4 when scoped: the finished good's own levels are read
 * shop-wide), virtual levels 1, shelves 1 — whatever the tree size or number of locations.
 */
export async function bomBuildable(ctx: ShopContext, bomId: string, locationIds: readonly string[] | null): Promise<BuildableView> {
  const root: BillKey = { ownerType: 'bom', ownerId: bomId };
  // The location list does not depend on the recipe: it is read while the recipe walk runs.
  const [forest, allLocations] = await Promise.all([loadRecipeForest(ctx, [root]), ctx.platform.listLocations()]);
  const bom = getBill(forest, root);
  if (!bom) throw DomainError.notFound('bom', bomId);
  const ids = forestNodeIds(forest);
  const materials = await loadMaterials(ctx, ids.materials);
  const nonEssential = new Set([...materials.values()].filter((m) => m.isNonEssential).map((m) => m.variantId));
  const essential = [...materials.values()].filter((m) => !m.isNonEssential);
  const platformIds = essential.filter((m) => m.origin === 'platform').map((m) => m.variantId);
  const isPlatformLeaf = new Set(platformIds);
  const virtualIds = essential.filter((m) => m.origin === 'virtual').map((m) => m.variantId);

  const wanted = locationIds === null ? null : new Set(locationIds);
  const scope = wanted === null ? allLocations : allLocations.filter((l) => wanted.has(l.locationId));
  const scopeIds = wanted === null ? null : scope.map((l) => l.locationId);

  const fg = bom.variantId;
  // The stock reads are independent of each other: sent at once (one round trip of latency, not four).
  const [finishedGoodRows, platformRows, virtualRows, shelfRows] = await Promise.all([
    fg !== null && scopeIds !== null ? ctx.platform.getLevels([fg], null) : Promise.resolve([]),
    ctx.platform.getLevels(scopeIds === null && fg !== null ? [...platformIds, fg] : platformIds, scopeIds),
    loadVirtualLevels(ctx, virtualIds, scopeIds),
    loadShelves(ctx, ids.assemblies, scopeIds),
  ]);
  const levels = new Levels();
  let finishedGoodHasLevels = finishedGoodRows.length > 0;
  for (const r of platformRows) {
    if (r.variantId === fg && scopeIds === null) finishedGoodHasLevels = true;
    if (isPlatformLeaf.has(r.variantId)) levels.add(r.variantId, r.locationId, r.available);
  }
  for (const r of virtualRows) levels.add(r.variantId, r.locationId, r.available);
  const shelves = new Levels();
  for (const r of shelfRows) shelves.add(r.itemId, r.locationId, r.quantity);

  const stockAt = (locationId: string | null): StockView => ({
    available: (id) => levels.at(locationId, id),
    shelf: (id) => shelves.at(locationId, id),
  });
  const assemblyName = (id: string) => getBill(forest, { ownerType: 'sub_assembly', ownerId: id })?.name ?? id;
  const globalFallback = !finishedGoodHasLevels;
  const view: BuildableView = {
    bomId, variantId: fg, hasSellableSplit: treeHasShelfOnlyBill(forest), globalFallback, perLocation: [], totals: { maxBuildable: 0, sellable: 0 },
  };
  if (globalFallback) {
    // One computation on the shop-wide (scope-wide) levels and shelves, base recipe; nothing in scope → 0.
    if (scope.length > 0) {
      const figures = computeBuildable(forest, root, null, nonEssential, stockAt(null));
      view.totals = { maxBuildable: figures.maxBuildable.toNumber(), sellable: figures.sellable.toNumber() };
    }
    return view;
  }
  const perUnit: PerUnitCache = new Map();
  for (const location of scope) {
    const figures = computeBuildable(forest, root, location.locationId, nonEssential, stockAt(location.locationId), perUnit);
    view.perLocation.push({
      locationId: location.locationId, locationName: location.name,
      maxBuildable: figures.maxBuildable.toNumber(), sellable: figures.sellable.toNumber(),
      limitingComponents: figures.limits.filter((row) => row.maxUnits !== null).slice(0, 3).map((row) => limitingView(row, materials, assemblyName)),
    });
    view.totals.maxBuildable += figures.maxBuildable.toNumber();
    view.totals.sellable += figures.sellable.toNumber();
  }
  return view;
}
