import { DomainError } from '../../../kernel/domain-error.ts';
import type { ShopContext } from '../../../kernel/shop-context.ts';
import { Exact, exact, ZERO } from '../../../kernel/numbers/index.ts';
import { billKeyString, getBill, loadRecipeForest, type BillKey, type RecipeForest } from '../engine/index.ts';
import { sql } from 'kysely';
import { textArrayLiteral } from '../../../db/sql-arrays.ts';
import { runSql } from '../../../db/typed-sql.ts';
import { forestNodeIds, type MaterialInfo } from '../recipe-data.ts';
import { recipesSql } from '../tables.ts';
import type { LimitingComponentOrigin } from '../recipe-vocabulary.ts';
import { computeBuildable, type LimitingLeaf, type PerUnitCache, type StockView } from './calculate.ts';

export interface LimitingComponentView {
  nodeId: string; name: string; origin: LimitingComponentOrigin; quantityPerUnit: string; wastePercentage: string;
  isNonEssential: boolean; maxUnitsByThisComponent: number; availableAtLocation: string;
}
export interface BuildableLocationView { locationId: string; locationName: string; maxBuildable: number; sellable: number; limitingComponents: LimitingComponentView[] }
export interface BuildableView {
  bomId: string; variantId: string | null; hasSellableSplit: boolean; globalFallback: boolean;
  perLocation: BuildableLocationView[]; totals: { maxBuildable: number; sellable: number };
  /** Materials of the recipe (any depth, location rules included) the platform does not track: not stock, so never limiting. */
  untrackedComponents: string[];
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
  /** The sums of one location (null = all of them): look-ups per item without finding the location again. */
  of(locationId: string | null): ReadonlyMap<string, Exact> {
    return (locationId === null ? this.#total : this.#byLocation.get(locationId)) ?? NONE;
  }
}
const NONE: ReadonlyMap<string, Exact> = new Map();

/** Limiting components shown per location; unbounded rows sort last, so the first three bounded ones are among the first three. */
const LIMITING_SHOWN = 3;

function limitingView(row: LimitingLeaf, materials: Map<string, MaterialInfo>, assemblyName: (id: string) => string): LimitingComponentView {
  const material = row.kind === 'raw' ? materials.get(row.nodeId) : undefined;
  return {
    nodeId: row.nodeId,
    name: material ? material.productName : assemblyName(row.nodeId.slice('subassembly:'.length)),
    origin: material ? material.origin : 'preassembled',
    quantityPerUnit: row.quantityPerUnit.toFixed(), wastePercentage: row.wastePercentage.toFixed(),
    isNonEssential: false, maxUnitsByThisComponent: row.maxUnits?.toNumber() ?? 0, availableAtLocation: row.available.toFixed(),
  };
}

/**
 * Whether the tree of `root` holds an only-consume-pre-assembled bill: the bills it reaches through
 * sub-assembly lines and the assemblies its location rules add or swap in (the reach of
 * loadRecipeForest for that root alone).
 */
function reachesShelfOnlyBill(forest: RecipeForest, root: BillKey): boolean {
  const seen = new Set<string>();
  const visit = (key: BillKey): boolean => {
    const id = billKeyString(key);
    if (seen.has(id)) return false;
    seen.add(id);
    const bill = getBill(forest, key);
    if (!bill) return false;
    if (bill.onlyConsumePreassembled) return true;
    const children = bill.lines.filter((l) => l.lineType === 'sub').map((l) => l.nodeId);
    for (const overrides of bill.rules.values()) {
      for (const o of overrides) if ((o.action === 'add' || o.action === 'replace') && o.introducesAssembly) children.push(o.replacementNodeId ?? o.nodeId);
    }
    return children.some((child) => visit({ ownerType: 'sub_assembly', ownerId: child }));
  };
  return visit(root);
}

/**
 * The raw materials of `root`'s tree at any depth: its bills' raw lines and the raw materials their
 * location rules add or swap in.
 */
function materialsReached(forest: RecipeForest, root: BillKey): Set<string> {
  const seen = new Set<string>();
  const materials = new Set<string>();
  const visit = (key: BillKey): void => {
    const id = billKeyString(key);
    if (seen.has(id)) return;
    seen.add(id);
    const bill = getBill(forest, key);
    if (!bill) return;
    const children: string[] = [];
    for (const line of bill.lines) {
      if (line.lineType === 'raw') materials.add(line.nodeId);
      else if (line.lineType === 'sub') children.push(line.nodeId);
    }
    for (const overrides of bill.rules.values()) {
      for (const o of overrides) {
        if (o.action !== 'add' && o.action !== 'replace') continue;
        const introduced = o.action === 'replace' ? (o.replacementNodeId ?? o.nodeId) : o.nodeId;
        if (o.introducesAssembly) children.push(introduced);
        else materials.add(introduced);
      }
    }
    for (const child of children) visit({ ownerType: 'sub_assembly', ownerId: child });
  };
  visit(root);
  return materials;
}

type LevelRow = { variantId: string; locationId: string; available: string };

/**
 * What buildable reads once the forest is known, in ONE statement: the forest's materials, the
 * platform's live levels of its materials (and, scoped, of the finished goods everywhere), the
 * virtual levels and the assemblies' shelves — each part its owner's select (the catalogue sources,
 * the platform port's levelsSql). A platform whose levels are not in this database is asked
 * beside it (getLevels).
 */
async function stockReads(ctx: ShopContext, ids: { materials: string[]; assemblies: string[] }, finishedGoods: string[], scopeIds: string[] | null) {
  type Row = { k: 'm' | 'f' | 'p' | 'v' | 's'; id: string; location_id: string | null; value: string };
  const platformIds = scopeIds === null ? [...new Set([...ids.materials, ...finishedGoods])] : ids.materials;
  const platformAsked: [Row['k'], string[], string[] | null][] = [];
  if (finishedGoods.length > 0 && scopeIds !== null) platformAsked.push(['f', finishedGoods, null]);
  if (platformIds.length > 0 && (scopeIds === null || scopeIds.length > 0)) platformAsked.push(['p', platformIds, scopeIds]);
  const parts = [];
  const asked: Promise<Row[]>[] = [];
  for (const [k, variantIds, locationIds] of platformAsked) {
    const levels = ctx.platform.levelsSql?.(variantIds, locationIds) ?? null;
    if (levels) parts.push(sql`select ${k}::text as k, l.variant_id as id, l.location_id, l.available::text as value from ${levels} as l`);
    else asked.push(ctx.platform.getLevels(variantIds, locationIds).then((rows) => rows.map((r) => ({ k, id: r.variantId, location_id: r.locationId, value: r.available }))));
  }
  if (ids.materials.length > 0) {
    const shop = sql<string>`${ctx.shopId}`;
    parts.push(sql`select 'm' as k, i.id, null as location_id, (${ctx.catalog.materialJson(shop, sql.ref('i.id'))})::text as value
      from unnest(${textArrayLiteral(ids.materials)}::text[]) as i(id)`);
    parts.push(sql`select 'v' as k, v.variant_id as id, v.location_id, v.available as value from ${ctx.catalog.virtualLevelsSql(ctx.shopId, ids.materials, scopeIds)} as v`);
  }
  if (ids.assemblies.length > 0) {
    parts.push(sql`select 's' as k, s.item_id as id, s.location_id, s.quantity as value from ${ctx.catalog.shelvesSql(ctx.shopId, ids.assemblies, scopeIds)} as s`);
  }
  const [rows, ...platform] = await Promise.all([
    parts.length === 0 ? [] : runSql(ctx.em, recipesSql.selectFrom(sql<Row>`(${sql.join(parts, sql` union all `)})`.as('x')).selectAll()),
    ...asked,
  ]);
  const materials = new Map<string, MaterialInfo>();
  const finishedGoodRows: LevelRow[] = [];
  const platformRows: LevelRow[] = [];
  const virtualRows: LevelRow[] = [];
  const shelfRows: { itemId: string; locationId: string; quantity: string }[] = [];
  for (const r of [...rows, ...platform.flat()]) {
    if (r.k === 'm') {
      if (r.value !== null) materials.set(r.id, JSON.parse(r.value) as MaterialInfo);
    } else if (r.k === 's') shelfRows.push({ itemId: r.id, locationId: r.location_id!, quantity: r.value });
    else (r.k === 'f' ? finishedGoodRows : r.k === 'p' ? platformRows : virtualRows).push({ variantId: r.id, locationId: r.location_id!, available: r.value });
  }
  return { materials, finishedGoodRows, platformRows, virtualRows, shelfRows };
}

/**
 * Buildable quantities of each of `bomIds` (unknown ids are absent from the map) per location in
 * scope (`locationIds` null = every location). Two round trips of latency whatever the number of BOMs:
 * the forest with the locations (two statements), then the materials with the stock reads (one).
 */
export async function bomsBuildable(ctx: ShopContext, bomIds: readonly string[], locationIds: readonly string[] | null): Promise<Map<string, BuildableView>> {
  const roots: BillKey[] = [...new Set(bomIds)].map((ownerId) => ({ ownerType: 'bom', ownerId }));
  // The location list does not depend on the recipes: it is read while the recipe walk runs.
  const [forest, allLocations] = await Promise.all([loadRecipeForest(ctx, roots), ctx.platform.listLocations()]);
  const boms = roots.map((root) => ({ root, bill: getBill(forest, root) })).filter((b) => b.bill !== undefined);
  const ids = forestNodeIds(forest);
  const wanted = locationIds === null ? null : new Set(locationIds);
  const scope = wanted === null ? allLocations : allLocations.filter((l) => wanted.has(l.locationId));
  const scopeIds = wanted === null ? null : scope.map((l) => l.locationId);

  // Finished goods with any level anywhere: per-location figures; the others fall back to one global figure.
  const finishedGoods = [...new Set(boms.map((b) => b.bill!.variantId).filter((v): v is string => v !== null))];
  // The materials and the stock reads depend only on the forest: one statement (stockReads). Levels
  // are asked for every material of the forest, whatever its origin or essentiality (known only
  // from the materials read), and kept below for the essential ones: a virtual material has no
  // platform level, a platform-linked one no level of its own.
  const { materials, finishedGoodRows, platformRows, virtualRows, shelfRows } = await stockReads(ctx, ids, finishedGoods, scopeIds);
  // A non-essential material never limits; nor does one the platform does not track (not stock: labels, string).
  const untracked = new Set([...materials.values()].filter((m) => !m.tracked).map((m) => m.variantId));
  const nonEssential = new Set([...materials.values()].filter((m) => m.isNonEssential || !m.tracked).map((m) => m.variantId));
  const essential = [...materials.values()].filter((m) => !nonEssential.has(m.variantId));
  const isPlatformLeaf = new Set(essential.filter((m) => m.origin === 'platform').map((m) => m.variantId));
  const isVirtualLeaf = new Set(essential.filter((m) => m.origin === 'virtual').map((m) => m.variantId));
  const withLevels = new Set(finishedGoodRows.map((r) => r.variantId));
  const levels = new Levels();
  const goods = new Set(finishedGoods);
  for (const r of platformRows) {
    if (scopeIds === null && goods.has(r.variantId)) withLevels.add(r.variantId);
    if (isPlatformLeaf.has(r.variantId)) levels.add(r.variantId, r.locationId, r.available);
  }
  for (const r of virtualRows) if (isVirtualLeaf.has(r.variantId)) levels.add(r.variantId, r.locationId, r.available);
  const shelves = new Levels();
  for (const r of shelfRows) shelves.add(r.itemId, r.locationId, r.quantity);

  const stockAt = (locationId: string | null): StockView => {
    const available = levels.of(locationId);
    const shelf = shelves.of(locationId);
    return { available: (id) => available.get(id) ?? ZERO, shelf: (id) => shelf.get(id) ?? ZERO };
  };
  const assemblyName = (id: string) => getBill(forest, { ownerType: 'sub_assembly', ownerId: id })?.name ?? id;

  const views = new Map<string, BuildableView>();
  for (const { root, bill } of boms) {
    const fg = bill!.variantId;
    const globalFallback = fg === null || !withLevels.has(fg);
    const view: BuildableView = {
      bomId: root.ownerId, variantId: fg, hasSellableSplit: reachesShelfOnlyBill(forest, root), globalFallback, perLocation: [], totals: { maxBuildable: 0, sellable: 0 },
      untrackedComponents: untracked.size === 0 ? [] : [...materialsReached(forest, root)].filter((id) => untracked.has(id)).sort(),
    };
    views.set(root.ownerId, view);
    if (globalFallback) {
      // One computation on the shop-wide (scope-wide) levels and shelves, base recipe; nothing in scope → 0.
      if (scope.length > 0) {
        const figures = computeBuildable(forest, root, null, nonEssential, stockAt(null));
        view.totals = { maxBuildable: figures.maxBuildable.toNumber(), sellable: figures.sellable.toNumber() };
      }
      continue;
    }
    const perUnit: PerUnitCache = new Map();
    for (const location of scope) {
      const figures = computeBuildable(forest, root, location.locationId, nonEssential, stockAt(location.locationId), perUnit, LIMITING_SHOWN);
      view.perLocation.push({
        locationId: location.locationId, locationName: location.name,
        maxBuildable: figures.maxBuildable.toNumber(), sellable: figures.sellable.toNumber(),
        limitingComponents: figures.limits.filter((row) => row.maxUnits !== null).slice(0, LIMITING_SHOWN).map((row) => limitingView(row, materials, assemblyName)),
      });
      view.totals.maxBuildable += figures.maxBuildable.toNumber();
      view.totals.sellable += figures.sellable.toNumber();
    }
  }
  return views;
}

/**
 * Buildable quantities of one BOM per location in scope (`locationIds` null = every location): the
 * batch of one, so both answer with the same code. NOT_FOUND for an unknown BOM.
 */
export async function bomBuildable(ctx: ShopContext, bomId: string, locationIds: readonly string[] | null): Promise<BuildableView> {
  const view = (await bomsBuildable(ctx, [bomId], locationIds)).get(bomId);
  if (!view) throw DomainError.notFound('bom', bomId);
  return view;
}
