import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { leafExpander, planConsumption, seededForestLoader, type BillKey, type RecipeForest, type RootDemand } from '../boms/engine/index.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { materialSummaries } from '../materials/material-view.ts';
import { levelsAtEach, shelvesAtEach } from '../stock/levels.ts';
import { itemBillsOf, type ItemPart, type ManualPart, type PickPart, type RunItemPart, type RunPart, type WorkOrderHeader } from './work-order.repository.ts';
import type { BillOwnerType } from '../boms/recipe-vocabulary.ts';
import type { StockKind } from '../stock/stock-vocabulary.ts';
import { LIVE_RUN_STATUSES, type ContributionSource } from './work-order-vocabulary.ts';
import { manualShare, remainingRecipeNeeds, startedUnits, unitItems, unitRunItems, unitRuns, unitsNotStarted, workOrderUnits } from './outstanding.ts';

export interface PlanMaterial {
  variantId: string; name: string | null; unit: string | null; locationId: string | null; locationName: string | null;
  required: string; picked: string; remaining: string; unitCost: string | null; isNonEssential: boolean;
}
export interface PlanContribution {
  variantId: string; locationId: string | null; source: ContributionSource; itemId: string | null; ownerType: BillOwnerType | null; ownerId: string | null;
  quantity: string; note: string | null;
}
export interface PlanConsumptionLine {
  stock: StockKind; itemId: string; name: string | null; locationId: string; locationName: string | null;
  quantity: string; available: string; short: string;
}
export interface PlanCost {
  materialCost: string; pickedMaterialCost: string; plannedLaborCost: string | null; actualLaborCost: string | null;
  plannedTotalCost: string; actualTotalCost: string;
}
export interface ItemConsumption { itemId: string; remainingQuantity: string; locationId: string | null; rows: PlanConsumptionLine[] }
export interface MaterialPlan {
  workOrderId: string;
  materials: PlanMaterial[];
  contributions: PlanContribution[];
  consumptionPlan: PlanConsumptionLine[];
  itemConsumption: ItemConsumption[];
  cost: PlanCost;
  /** Item and manual lines with no location (for the UNLOCATED_LINES warning). */
  unlocatedLines: number;
}

export interface PlanInput {
  header: WorkOrderHeader;
  items: ItemPart[];
  manual: ManualPart[];
  runs: RunPart[];
  runItems: RunItemPart[];
  picks: PickPart[];
  /** Location names, when the caller already read them (one platform read per request). */
  locationNames?: ReadonlyMap<string, string>;
}

/** Where a work order's item lines are consumed: default consumption location, else production location. */
export const itemLocation = (h: Pick<WorkOrderHeader, 'defaultConsumptionLocationId' | 'productionLocationId'>): string | null =>
  h.defaultConsumptionLocationId ?? h.productionLocationId ?? null;

const billOf = (item: ItemPart): BillKey => ({ ownerType: item.owner_type, ownerId: item.owner_id });
const key = (variantId: string, locationId: string | null) => `${variantId}|${locationId ?? ''}`;

/** Each item's units not yet started: quantity − units of production runs not reversed (outstanding.ts). */
export function remainingItemQuantities(items: readonly ItemPart[], runs: readonly RunPart[], runItems: readonly RunItemPart[]): Map<string, Exact> {
  return unitsNotStarted(unitItems(items), startedUnits(unitRuns(runs), unitRunItems(runItems)));
}


/**
 * The material plan of a work order, per material and location: picked = Σ material picks of runs
 * not reversed; remaining = what the units not yet started still need (shelves first) plus the
 * manual lines not yet consumed (outstanding.ts); required = picked + remaining — the same figures
 * as the work-order allocation read (`allocated` there). Contributions are the gross lines: every
 * item's recipe for its whole quantity and every manual line whole. The consumption
 * plan is what a run of the remaining item quantities would take now, by the build-run rules.
 * Round trips: the recipe forest, material rows, levels and shelves, location names — constant.
 */
/** What a plan needs from the database, and what it computed before reading it (no I/O). */
interface PlanNeeds {
  location: string | null;
  /** Keys of every (material, location) the plan reports. */
  rows: Map<string, { variantId: string; locationId: string | null }>;
  /** The manual lines not yet consumed, per key. */
  manualLeft: Map<string, Exact>;
  contributions: PlanContribution[];
  picked: Map<string, Exact>;
  roots: (RootDemand & { itemId: string })[];
  leafIds: Set<string>;
  assemblyIds: Set<string>;
  materialIds: string[];
}

function planNeeds(forest: RecipeForest, input: PlanInput): PlanNeeds {
  const { header, items, manual, runs, runItems, picks } = input;
  const location = itemLocation(header);
  const rows = new Map<string, { variantId: string; locationId: string | null }>();
  const addRow = (variantId: string, locationId: string | null) => rows.set(key(variantId, locationId), { variantId, locationId });
  const contributions: PlanContribution[] = [];
  // Every item is consumed at one location: one expander, so shared assemblies are expanded once.
  const leavesOf = leafExpander(forest, location);
  for (const item of items) {
    for (const [variantId, perUnit] of leavesOf(billOf(item))) {
      const quantity = perUnit.times(item.quantity);
      contributions.push({ variantId, locationId: location, source: 'recipe', itemId: item.item_id, ownerType: item.owner_type, ownerId: item.owner_id, quantity: quantity.toFixed(), note: null });
    }
  }
  const started = startedUnits(unitRuns(runs), unitRunItems(runItems));
  const units = workOrderUnits(unitItems(items), started);
  const manualLeft = new Map<string, Exact>();
  for (const m of manual) {
    const at = m.location_id ?? location;
    const k = key(m.variant_id, at);
    addRow(m.variant_id, at);
    manualLeft.set(k, (manualLeft.get(k) ?? ZERO).plus(manualShare(m.quantity, units)));
    contributions.push({ variantId: m.variant_id, locationId: at, source: 'manual', itemId: null, ownerType: null, ownerId: null, quantity: exact(m.quantity).toFixed(), note: m.note });
  }
  const live = new Set(runs.filter((r) => LIVE_RUN_STATUSES.includes(r.status)).map((r) => r.build_run_id));
  const picked = new Map<string, Exact>();
  for (const p of picks) {
    if (p.stock !== 'material' || !live.has(p.build_run_id)) continue;
    const k = key(p.variant_id, p.location_id);
    picked.set(k, (picked.get(k) ?? ZERO).plus(p.quantity));
    addRow(p.variant_id, p.location_id);
  }

  // The units not yet started: their consumption plan, and (shelves first) what they still need.
  const remaining = unitsNotStarted(unitItems(items), started);
  const roots: (RootDemand & { itemId: string })[] = items.map((i) => ({ itemId: i.item_id, bill: billOf(i), quantity: remaining.get(i.item_id) ?? ZERO }))
    .filter((r) => !r.quantity.isZero());
  const leafIds = new Set<string>();
  const assemblyIds = new Set<string>();
  for (const root of roots) for (const leaf of leavesOf(root.bill).keys()) leafIds.add(leaf);
  if (location) for (const bill of forest.bills.values()) if (bill.key.ownerType === 'sub_assembly') assemblyIds.add(bill.key.ownerId);
  const materialIds = [...new Set([...rows.values()].map((r) => r.variantId).concat([...leafIds]))];
  return { location, rows, manualLeft, contributions, picked, roots, leafIds, assemblyIds, materialIds };
}

interface PlanSources {
  info: Awaited<ReturnType<typeof materialSummaries>>;
  levels: ReadonlyMap<string, Exact>;
  shelves: ReadonlyMap<string, Exact>;
  names: ReadonlyMap<string, string>;
}

function finishPlan(forest: RecipeForest, input: PlanInput, needs: PlanNeeds, sources: PlanSources): MaterialPlan {
  const { header, items, manual } = input;
  const { location, rows, manualLeft, contributions, picked, roots } = needs;
  const { info, levels, shelves, names } = sources;
  const shelf = (id: string) => shelves.get(id) ?? ZERO;

  const planRows = (demands: readonly RootDemand[]): PlanConsumptionLine[] => {
    if (!location || demands.length === 0) return [];
    const plan = planConsumption(forest, demands, location, shelf);
    const row = (stock: StockKind, itemId: string, quantity: Exact, available: Exact, name: string | null): PlanConsumptionLine => {
      const usable = available.isNegative() ? ZERO : available;
      const short = quantity.minus(usable);
      return { stock, itemId, name, locationId: location, locationName: names.get(location) ?? null, quantity: quantity.toFixed(), available: available.toFixed(), short: short.isNegative() ? '0' : short.toFixed() };
    };
    return [
      ...[...plan.shelves.entries()].map(([id, q]) => row('preassembled', id, q, shelf(id), forest.bills.get(`sub_assembly:${id}`)?.name ?? null)),
      ...[...plan.shelfShortfalls.entries()].map(([id, q]) => ({ ...row('preassembled', id, q, ZERO, forest.bills.get(`sub_assembly:${id}`)?.name ?? null), available: '0' })),
      ...[...plan.materials.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, q]) => row('material', id, q, levels.get(id) ?? ZERO, info.get(id)?.name ?? null)),
    ];
  };

  // remaining = the recipe needs of the units not yet started (shelves first) + manual lines not yet consumed.
  const remainingOf = new Map(manualLeft);
  for (const [variantId, q] of remainingRecipeNeeds(forest, roots, location, shelf)) {
    const k = key(variantId, location);
    rows.set(k, { variantId, locationId: location });
    remainingOf.set(k, (remainingOf.get(k) ?? ZERO).plus(q));
  }
  const materials = [...rows.values()]
    .sort((a, b) => (a.variantId === b.variantId ? (a.locationId ?? '').localeCompare(b.locationId ?? '') : a.variantId < b.variantId ? -1 : 1))
    .map((r): PlanMaterial => {
      const k = key(r.variantId, r.locationId);
      const got = picked.get(k) ?? ZERO;
      const rest = remainingOf.get(k) ?? ZERO;
      const m = info.get(r.variantId);
      return {
        variantId: r.variantId, name: m?.name ?? null, unit: m?.unit ?? null, locationId: r.locationId, locationName: r.locationId ? names.get(r.locationId) ?? null : null,
        required: got.plus(rest).toFixed(), picked: got.toFixed(), remaining: rest.toFixed(), unitCost: m?.unitCost ?? null, isNonEssential: m?.nonEssential ?? false,
      };
    });
  const costOf = (field: 'required' | 'picked') => materials.reduce((acc, m) => (m.unitCost ? acc.plus(exact(m[field]).times(m.unitCost)) : acc), ZERO);
  const materialCost = costOf('required');
  const pickedMaterialCost = costOf('picked');
  return {
    workOrderId: header.workOrderId,
    materials,
    contributions,
    consumptionPlan: planRows(roots),
    itemConsumption: roots.map((r) => ({ itemId: r.itemId, remainingQuantity: r.quantity.toFixed(), locationId: location, rows: planRows([r]) })),
    cost: {
      materialCost: materialCost.toFixed(), pickedMaterialCost: pickedMaterialCost.toFixed(),
      plannedLaborCost: header.plannedLaborCost, actualLaborCost: header.actualLaborCost,
      plannedTotalCost: materialCost.plus(header.plannedLaborCost ?? 0).toFixed(),
      actualTotalCost: pickedMaterialCost.plus(header.actualLaborCost ?? 0).toFixed(),
    },
    unlocatedLines: (location ? 0 : items.length) + manual.filter((m) => (m.location_id ?? location) === null).length,
  };
}

const forestOfItems = seededForestLoader('work-order-items', itemBillsOf);

/**
 * The recipe forest of every item of the work orders: one statement that needs no earlier read (its
 * roots are read from the items in the same statement), so a read sends it with the work orders' parts.
 */
export function workOrdersForest(ctx: ShopContext, workOrderIds: readonly string[]): Promise<RecipeForest> {
  return forestOfItems(ctx, textArrayLiteral([...new Set(workOrderIds)]));
}

/**
 * The material plans of many work orders in the round trips of one: their recipe forest (read by
 * the caller with the parts, workOrdersForest), one material read, and the levels and shelves of
 * every location concerned read once each (levelsAtEach, shelvesAtEach).
 */
export async function materialPlansOf(ctx: ShopContext, inputs: readonly PlanInput[], forest: RecipeForest): Promise<MaterialPlan[]> {
  if (inputs.length === 0) return [];
  const needs = inputs.map((input) => planNeeds(forest, input));
  const union = (ids: Iterable<string>) => [...new Set(ids)];
  const located = needs.filter((n) => n.location !== null);
  const locations = union(located.map((n) => n.location!));
  const [info, levels, shelves, names] = await Promise.all([
    materialSummaries(ctx, union(needs.flatMap((n) => n.materialIds))),
    levelsAtEach(ctx, union(located.flatMap((n) => [...n.leafIds])), locations),
    shelvesAtEach(ctx, union(located.flatMap((n) => [...n.assemblyIds])), locations),
    inputs[0]!.locationNames ?? ctx.platform.listLocations().then((l) => new Map(l.map((x) => [x.locationId, x.name]))),
  ]);
  const none = new Map<string, Exact>();
  return needs.map((n, i) => finishPlan(forest, inputs[i]!, n, {
    info, names, levels: n.location ? levels.get(n.location) ?? none : none, shelves: n.location ? shelves.get(n.location) ?? none : none,
  }));
}

/** The material plan of one work order (materialPlansOf for one). */
export async function materialPlanOf(ctx: ShopContext, input: PlanInput, forest: RecipeForest): Promise<MaterialPlan> {
  return (await materialPlansOf(ctx, [input], forest))[0]!;
}
