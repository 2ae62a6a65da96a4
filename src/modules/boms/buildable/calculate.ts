import { floorDiv, ZERO, type Exact } from '../../../kernel/numbers/index.ts';
import { billKeyString, type BillKey, type RecipeForest } from '../engine/types.ts';
import type { StockedLineType } from '../recipe-vocabulary.ts';
import { excess, largestWithin, linearFn, minus, scale, type Piecewise } from './piecewise.ts';
import { isCut, planConstraints, shelfNodeId, treePlan, unitsBelow, type CutMode, type PlanConstraint, type TreePlan } from './tree-plan.ts';

/** What one location (or the shop as a whole) holds, as the calculation sees it. */
export interface StockView {
  /** Available units of a material (negative levels already counted as 0). */
  available(variantId: string): Exact;
  /** Pre-assembled units of an assembly bill on the shelf. */
  shelf(assemblyId: string): Exact;
}

export interface LimitingLeaf {
  /** Material variantId, or `subassembly:<assemblyId>` for a pre-assembled leaf. */
  nodeId: string;
  /** A raw line's material, or a sub-assembly's pre-assembled shelf. */
  kind: StockedLineType;
  /** Per finished unit, waste and nesting included, shelves not counted. */
  quantityPerUnit: Exact;
  /** Waste % of the first recipe line (depth-first, recipe order) that names the leaf; 0 for pre-assembled leaves. */
  wastePercentage: Exact;
  /** Largest N this leaf alone allows (shelves above it used first); null = unbounded. */
  maxUnits: Exact | null;
  available: Exact;
}

export interface BuildableFigures { maxBuildable: Exact; sellable: Exact; limits: LimitingLeaf[] }

/** What one cut mode needs, per rule signature: its constraints and the per-unit needs below each bill. */
interface ModePlan { constraints: PlanConstraint[]; unitsFrom: Map<number, Map<string, Exact>>; byShelves: Map<string, Map<string, Piecewise>> }
interface SharedPlan { plan: TreePlan; modes: Record<CutMode, ModePlan> }

/**
 * What depends only on the recipe as a location sees it (the tree plan, per-unit needs, and the
 * demand functions per set of shelves): memoised per rule signature, so locations without rules
 * share one, and locations with the same shelves share their demand functions.
 */
export type PerUnitCache = Map<string, SharedPlan>;

const units = (plan: TreePlan, mode: ModePlan, index: number, cut: CutMode): Map<string, Exact> => {
  let known = mode.unitsFrom.get(index);
  if (!known) mode.unitsFrom.set(index, known = unitsBelow(plan, index, cut));
  return known;
};

/**
 * The demand functions of N finished units that shelves change; every other node's demand is
 * N × its per-unit need. Demand is pushed down linearly except where a shelf is used, so with
 * t_a(N) the units taken from shelf a (the demand reaching a, capped at the shelf), a node's demand
 * is N·units(root→x) − Σ_a t_a(N)·units(a→x) over the shelved assemblies a above it. Only the
 * shelved assemblies and the nodes below them are computed, from scalars shared by every location.
 */
function shelfDemands(plan: TreePlan, mode: ModePlan, cut: CutMode, shelved: readonly { index: number; shelf: Exact }[]): Map<string, Piecewise> {
  const rootUnits = units(plan, mode, -1, cut);
  const taken: { below: Map<string, Exact>; t: Piecewise }[] = [];
  for (const { index, shelf } of shelved) {
    const id = shelfNodeId(plan.assemblies[index]!.id);
    let d = linearFn(rootUnits.get(id) ?? ZERO);
    for (const above of taken) {
      const k = above.below.get(id);
      if (k !== undefined) d = minus(d, scale(above.t, k));
    }
    taken.push({ below: units(plan, mode, index, cut), t: minus(d, excess(d, shelf)) });
  }
  const demands = new Map<string, Piecewise>();
  for (const { below, t } of taken) {
    for (const [id, k] of below) demands.set(id, minus(demands.get(id) ?? linearFn(rootUnits.get(id) ?? ZERO), scale(t, k)));
  }
  return demands;
}

/** The bound of a demand N × perUnit: floor(available / perUnit), what largestWithin gives for a line through 0. */
function linearBound(perUnit: Exact, available: Exact): Exact | null {
  if (perUnit.n <= 0n || available.n < 0n) return largestWithin(linearFn(perUnit), available);
  return floorDiv(available, perUnit);
}

/** Each constraint of `cut` at this stock (`shelves`: plan.assemblies' shelves): its available units and bound. */
function bounds(shared: SharedPlan, cut: CutMode, stock: StockView, shelves: readonly Exact[]) {
  const { plan } = shared;
  const mode = shared.modes[cut];
  const reached = units(plan, mode, -1, cut);
  const shelved: { index: number; shelf: Exact }[] = [];
  plan.assemblies.forEach((a, index) => {
    // Demand never reaches an assembly only found below a cut: its shelf changes nothing.
    if (shelves[index]!.n > 0n && !isCut(a, cut) && reached.has(shelfNodeId(a.id))) shelved.push({ index, shelf: shelves[index]! });
  });
  const signature = shelved.map((s) => `${s.index}=${s.shelf.toFixed()}`).join(',');
  let demands = mode.byShelves.get(signature);
  if (!demands) mode.byShelves.set(signature, demands = shelfDemands(plan, mode, cut, shelved));
  return mode.constraints.map((c) => {
    const available = c.assemblyId === null ? stock.available(c.nodeId) : stock.shelf(c.assemblyId);
    const demand = demands.get(c.nodeId);
    return { c, available, maxUnits: demand ? largestWithin(demand, available) : linearBound(c.perUnit, available) };
  });
}

function minimum(values: (Exact | null)[]): Exact {
  const bounded = values.filter((v): v is Exact => v !== null);
  // Nothing countable in the tree: the service does not claim unbounded buildability.
  if (bounded.length === 0) return ZERO;
  return bounded.reduce((a, b) => (b.lt(a) ? b : a));
}

function ruleSignature(forest: RecipeForest, locationId: string | null): string {
  if (locationId === null) return '';
  for (const bill of forest.bills.values()) if (bill.rules.get(locationId)?.length) return locationId;
  return '';
}

function sharedPlan(forest: RecipeForest, bom: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>): SharedPlan {
  const plan = treePlan(forest, bom, locationId, nonEssential);
  const modePlan = (cut: CutMode): ModePlan => {
    const mode: ModePlan = { constraints: [], unitsFrom: new Map(), byShelves: new Map() };
    mode.constraints = planConstraints(plan, cut, units(plan, mode, -1, cut));
    return mode;
  };
  return { plan, modes: { max: modePlan('max'), sellable: modePlan('sellable') } };
}

/** Limiting rows' order: tightest bound first (unbounded last), then the larger need per unit, then nodeId. */
function byLimit(a: LimitingLeaf, b: LimitingLeaf): number {
  if (a.maxUnits === null || b.maxUnits === null) return a.maxUnits === b.maxUnits ? 0 : a.maxUnits === null ? 1 : -1;
  return a.maxUnits.comparedTo(b.maxUnits) || b.quantityPerUnit.comparedTo(a.quantityPerUnit) || (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0);
}

/** The first `k` of `rows` in byLimit order, as a stable sort would give them (one pass, k small). */
function firstByLimit(rows: readonly LimitingLeaf[], k: number): LimitingLeaf[] {
  const top: LimitingLeaf[] = [];
  for (const row of rows) {
    if (top.length === k && byLimit(row, top[k - 1]!) >= 0) continue;
    let i = top.length;
    while (i > 0 && byLimit(row, top[i - 1]!) < 0) i--;
    top.splice(i, 0, row);
    if (top.length > k) top.pop();
  }
  return top;
}

/**
 * maxBuildable, sellable and the limiting rows of one BOM at one location (null = base recipe, used
 * for the shop-wide fallback): every row, or the first `limitRows` of them. Exact: each leaf's bound
 * solves its piecewise-affine demand for N. Shortcuts that do not change the result: the tree plan
 * and per-unit needs are shared by locations without rules, demand functions by locations with the
 * same shelves; sellable equals maxBuildable when the tree holds no only-consume-pre-assembled bill.
 */
export function computeBuildable(
  forest: RecipeForest, bom: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>, stock: StockView,
  perUnitCache: PerUnitCache = new Map(), limitRows = Infinity,
): BuildableFigures {
  const signature = ruleSignature(forest, locationId);
  let shared = perUnitCache.get(signature);
  if (!shared) perUnitCache.set(signature, shared = sharedPlan(forest, bom, locationId, nonEssential));
  const shelves = shared.plan.assemblies.map((a) => stock.shelf(a.id));
  const rows: LimitingLeaf[] = bounds(shared, 'max', stock, shelves).map(({ c, available, maxUnits }) => ({
    nodeId: c.nodeId, kind: c.kind, quantityPerUnit: c.perUnit, wastePercentage: c.waste, maxUnits, available,
  }));
  const maxBuildable = minimum(rows.map((l) => l.maxUnits));
  const limits = limitRows >= rows.length ? rows.sort(byLimit) : firstByLimit(rows, limitRows);
  const sellable = shared.plan.hasShelfOnlyBill ? minimum(bounds(shared, 'sellable', stock, shelves).map((b) => b.maxUnits)) : maxBuildable;
  return { maxBuildable, sellable, limits };
}


export { billKeyString };
