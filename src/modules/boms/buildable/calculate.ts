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
/** `sellable` is planned on first use: only a tree with an only-consume-pre-assembled bill asks for it. */
interface SharedPlan { plan: TreePlan; modes: { max: ModePlan; sellable?: ModePlan } }

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

function modeOf(shared: SharedPlan, cut: CutMode): ModePlan {
  if (cut === 'max') return shared.modes.max;
  return shared.modes.sellable ??= modePlan(shared.plan, 'sellable');
}

/**
 * The demand functions of `cut` at these shelves (`shelves`: plan.assemblies' shelves), shared by
 * the locations with the same shelves; a constraint without one has the linear demand N × perUnit.
 */
function demandsAt(shared: SharedPlan, cut: CutMode, shelves: readonly Exact[]): Map<string, Piecewise> {
  const { plan } = shared;
  const mode = modeOf(shared, cut);
  const reached = units(plan, mode, -1, cut);
  const shelved: { index: number; shelf: Exact }[] = [];
  plan.assemblies.forEach((a, index) => {
    // Demand never reaches an assembly only found below a cut: its shelf changes nothing.
    if (shelves[index]!.n > 0n && !isCut(a, cut) && reached.has(shelfNodeId(a.id))) shelved.push({ index, shelf: shelves[index]! });
  });
  const signature = shelved.length === 0 ? '' : shelved.map((s) => `${s.index}=${s.shelf.toFixed()}`).join(',');
  let demands = mode.byShelves.get(signature);
  if (!demands) mode.byShelves.set(signature, demands = shelfDemands(plan, mode, cut, shelved));
  return demands;
}

const availableOf = (c: PlanConstraint, stock: StockView): Exact => (c.assemblyId === null ? stock.available(c.nodeId) : stock.shelf(c.assemblyId));

/** A constraint's bound at this stock: the largest N its demand allows, null = unbounded. */
function boundOf(c: PlanConstraint, available: Exact, demands: ReadonlyMap<string, Piecewise>): Exact | null {
  const demand = demands.get(c.nodeId);
  return demand ? largestWithin(demand, available) : linearBound(c.perUnit, available);
}


function ruleSignature(forest: RecipeForest, locationId: string | null): string {
  if (locationId === null) return '';
  for (const bill of forest.bills.values()) if (bill.rules.get(locationId)?.length) return locationId;
  return '';
}

function modePlan(plan: TreePlan, cut: CutMode): ModePlan {
  const mode: ModePlan = { constraints: [], unitsFrom: new Map(), byShelves: new Map() };
  mode.constraints = planConstraints(plan, cut, units(plan, mode, -1, cut));
  return mode;
}

function sharedPlan(forest: RecipeForest, bom: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>): SharedPlan {
  const plan = treePlan(forest, bom, locationId, nonEssential);
  return { plan, modes: { max: modePlan(plan, 'max') } };
}

/** Limiting rows' order: tightest bound first (unbounded last), then the larger need per unit, then nodeId. */
function byLimit(aMax: Exact | null, aPerUnit: Exact, aId: string, b: LimitingLeaf): number {
  if (aMax === null || b.maxUnits === null) return aMax === b.maxUnits ? 0 : aMax === null ? 1 : -1;
  return aMax.comparedTo(b.maxUnits) || b.quantityPerUnit.comparedTo(aPerUnit) || (aId < b.nodeId ? -1 : aId > b.nodeId ? 1 : 0);
}

const leafOf = (c: PlanConstraint, available: Exact, maxUnits: Exact | null): LimitingLeaf =>
  ({ nodeId: c.nodeId, kind: c.kind, quantityPerUnit: c.perUnit, wastePercentage: c.waste, maxUnits, available });

/** The smallest bound of `cut`'s constraints at this stock; nothing countable in the tree: 0 (never unbounded). */
function minimumBound(shared: SharedPlan, cut: CutMode, stock: StockView, shelves: readonly Exact[]): Exact {
  const demands = demandsAt(shared, cut, shelves);
  let min: Exact | null = null;
  for (const c of modeOf(shared, cut).constraints) {
    const bound = boundOf(c, availableOf(c, stock), demands);
    if (bound !== null && (min === null || bound.lt(min))) min = bound;
  }
  return min ?? ZERO;
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
  const demands = demandsAt(shared, 'max', shelves);
  const { constraints } = shared.modes.max;
  // One pass over the constraints: the minimum, and the rows kept (all of them, or the first
  // `limitRows` in byLimit order as a stable sort would give them); a row is built only when kept.
  const all = limitRows >= constraints.length;
  const limits: LimitingLeaf[] = [];
  let min: Exact | null = null;
  for (const c of constraints) {
    const available = availableOf(c, stock);
    const maxUnits = boundOf(c, available, demands);
    if (maxUnits !== null && (min === null || maxUnits.lt(min))) min = maxUnits;
    if (all) {
      limits.push(leafOf(c, available, maxUnits));
      continue;
    }
    if (limits.length === limitRows && byLimit(maxUnits, c.perUnit, c.nodeId, limits[limitRows - 1]!) >= 0) continue;
    let i = limits.length;
    while (i > 0 && byLimit(maxUnits, c.perUnit, c.nodeId, limits[i - 1]!) < 0) i--;
    limits.splice(i, 0, leafOf(c, available, maxUnits));
    if (limits.length > limitRows) limits.pop();
  }
  if (all) limits.sort((a, b) => byLimit(a.maxUnits, a.quantityPerUnit, a.nodeId, b));
  // Nothing countable in the tree: the service does not claim unbounded buildability.
  const maxBuildable = min ?? ZERO;
  const sellable = shared.plan.hasShelfOnlyBill ? minimumBound(shared, 'sellable', stock, shelves) : maxBuildable;
  return { maxBuildable, sellable, limits };
}


export { billKeyString };
