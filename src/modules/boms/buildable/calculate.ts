import { floorDiv, ZERO, type Exact } from '../../../kernel/numbers/index.ts';
import { billKeyString, type BillKey, type RecipeForest } from '../engine/types.ts';
import type { StockedLineType } from '../recipe-vocabulary.ts';
import { excess, largestWithin, linearFn, minus, minusScaled, type Piecewise } from './piecewise.ts';
import { isCut, planConstraints, treePlan, unitsBelow, type CutMode, type PlanBills, type PlanConstraint, type TreePlan } from './tree-plan.ts';

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

/** What one cut mode needs, per rule signature: its constraints and the demand functions per set of shelves. */
interface ModePlan { constraints: PlanConstraint[]; byShelves: Map<string, Map<string, Piecewise>> }
/**
 * `sellable` is planned on first use: only a tree with an only-consume-pre-assembled bill asks for
 * it. `unitsFrom`: the per-unit needs below a bill whose subtree this signature's rules change,
 * by mode and plan index.
 */
interface SharedPlan { plan: TreePlan; modes: { max: ModePlan; sellable?: ModePlan }; unitsFrom: Map<string, Map<string, Exact>> }

/**
 * What depends only on the recipe as a location sees it: memoised per rule signature, so locations
 * without rules share one, and locations with the same shelves share their demand functions.
 */
export type PerUnitCache = Map<string, SharedPlan>;

/**
 * What a PerUnitCache's signatures share, beside it (keyed by the cache): a bill's needs per
 * effective lines (`planBills`), and the per-unit needs below a bill whose subtree no rule of the
 * location changes (`below`), so a location with rules recomputes only the part of the tree above
 * its rules.
 */
interface AcrossSignatures { planBills: PlanBills; below: Map<string, Map<string, Exact>> }
const acrossSignatures = new WeakMap<PerUnitCache, AcrossSignatures>();

function acrossOf(cache: PerUnitCache): AcrossSignatures {
  let across = acrossSignatures.get(cache);
  if (!across) acrossSignatures.set(cache, across = { planBills: new WeakMap(), below: new Map() });
  return across;
}

/**
 * Units of every node below the root (index −1) or `plan.assemblies[index]` per unit of it, for
 * `cut`: `max`'s when nothing below is cut differently for `sellable`, and the one of every
 * location whose rules leave that subtree as its base recipe.
 */
function units(across: AcrossSignatures, shared: SharedPlan, index: number, cut: CutMode): Map<string, Exact> {
  const { plan } = shared;
  const a = index < 0 ? undefined : plan.assemblies[index]!;
  const mode: CutMode = cut === 'sellable' && (a ? a.splitBelow : plan.rootSplit) ? 'sellable' : 'max';
  const changed = a ? a.changed : plan.rootChanged;
  const store = changed ? shared.unitsFrom : across.below;
  const key = changed ? `${mode}:${index}` : `${mode}:${a ? a.id : ''}`;
  let known = store.get(key);
  if (!known) store.set(key, known = unitsBelow(plan, index, mode));
  return known;
}

/**
 * The demand functions of N finished units that shelves change; every other node's demand is
 * N × its per-unit need. Demand is pushed down linearly except where a shelf is used, so with
 * t_a(N) the units taken from shelf a (the demand reaching a, capped at the shelf), a node's demand
 * is N·units(root→x) − Σ_a t_a(N)·units(a→x) over the shelved assemblies a above it. Only the
 * shelved assemblies and the nodes below them are computed, from scalars shared by every location.
 */
function shelfDemands(across: AcrossSignatures, shared: SharedPlan, cut: CutMode, shelved: readonly { index: number; shelf: Exact }[]): Map<string, Piecewise> {
  const { plan } = shared;
  const rootUnits = units(across, shared, -1, cut);
  const taken: { below: Map<string, Exact>; t: Piecewise }[] = [];
  for (const { index, shelf } of shelved) {
    const id = plan.assemblies[index]!.shelfId;
    let d = linearFn(rootUnits.get(id) ?? ZERO);
    for (const above of taken) {
      const k = above.below.get(id);
      if (k !== undefined) d = minusScaled(d, above.t, k);
    }
    taken.push({ below: units(across, shared, index, cut), t: minus(d, excess(d, shelf)) });
  }
  const demands = new Map<string, Piecewise>();
  for (const { below, t } of taken) {
    below.forEach((k, id) => demands.set(id, minusScaled(demands.get(id) ?? linearFn(rootUnits.get(id) ?? ZERO), t, k)));
  }
  return demands;
}

/**
 * The bound of a demand N × perUnit: floor(available / perUnit), what largestWithin gives for a line
 * through 0. Nothing available: 0 without dividing (most materials at most locations of a shop).
 */
function linearBound(perUnit: Exact, available: Exact): Exact | null {
  if (perUnit.n <= 0n || available.n < 0n) return largestWithin(linearFn(perUnit), available);
  return available.n === 0n ? ZERO : floorDiv(available, perUnit);
}

function modeOf(across: AcrossSignatures, shared: SharedPlan, cut: CutMode): ModePlan {
  if (cut === 'max') return shared.modes.max;
  return shared.modes.sellable ??= modePlan(across, shared, 'sellable');
}

/**
 * The demand functions of `cut` at these shelves (`shelves`: plan.assemblies' shelves), shared by
 * the locations with the same shelves; a constraint without one has the linear demand N × perUnit.
 */
function demandsAt(across: AcrossSignatures, shared: SharedPlan, cut: CutMode, shelves: readonly Exact[]): Map<string, Piecewise> {
  const { plan } = shared;
  const mode = modeOf(across, shared, cut);
  const reached = units(across, shared, -1, cut);
  const shelved: { index: number; shelf: Exact }[] = [];
  plan.assemblies.forEach((a, index) => {
    // Demand never reaches an assembly only found below a cut: its shelf changes nothing.
    if (shelves[index]!.n > 0n && !isCut(a, cut) && reached.has(a.shelfId)) shelved.push({ index, shelf: shelves[index]! });
  });
  const signature = shelved.length === 0 ? '' : shelved.map((s) => `${s.index}=${s.shelf.toFixed()}`).join(',');
  let demands = mode.byShelves.get(signature);
  if (!demands) mode.byShelves.set(signature, demands = shelfDemands(across, shared, cut, shelved));
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

function modePlan(across: AcrossSignatures, shared: SharedPlan, cut: CutMode): ModePlan {
  return { constraints: planConstraints(shared.plan, cut, units(across, shared, -1, cut)), byShelves: new Map() };
}

function sharedPlan(across: AcrossSignatures, forest: RecipeForest, bom: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>): SharedPlan {
  const shared: SharedPlan = { plan: treePlan(forest, bom, locationId, nonEssential, across.planBills), modes: { max: { constraints: [], byShelves: new Map() } }, unitsFrom: new Map() };
  shared.modes.max = modePlan(across, shared, 'max');
  return shared;
}

/** Limiting rows' order: tightest bound first (unbounded last), then the larger need per unit, then nodeId. */
function byLimit(aMax: Exact | null, aPerUnit: Exact, aId: string, b: LimitingLeaf): number {
  if (aMax === null || b.maxUnits === null) return aMax === b.maxUnits ? 0 : aMax === null ? 1 : -1;
  return aMax.comparedTo(b.maxUnits) || b.quantityPerUnit.comparedTo(aPerUnit) || (aId < b.nodeId ? -1 : aId > b.nodeId ? 1 : 0);
}

const leafOf = (c: PlanConstraint, available: Exact, maxUnits: Exact | null): LimitingLeaf =>
  ({ nodeId: c.nodeId, kind: c.kind, quantityPerUnit: c.perUnit, wastePercentage: c.waste, maxUnits, available });

/** The smallest bound of `cut`'s constraints at this stock; nothing countable in the tree: 0 (never unbounded). */
function minimumBound(across: AcrossSignatures, shared: SharedPlan, cut: CutMode, stock: StockView, shelves: readonly Exact[]): Exact {
  const demands = demandsAt(across, shared, cut, shelves);
  let min: Exact | null = null;
  for (const c of modeOf(across, shared, cut).constraints) {
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
  const across = acrossOf(perUnitCache);
  const signature = ruleSignature(forest, locationId);
  let shared = perUnitCache.get(signature);
  if (!shared) perUnitCache.set(signature, shared = sharedPlan(across, forest, bom, locationId, nonEssential));
  const shelves = shared.plan.assemblies.map((a) => stock.shelf(a.id));
  const demands = demandsAt(across, shared, 'max', shelves);
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
  // No only-consume-pre-assembled bill reached (and not terminal): sellable plans exactly as max.
  const sellable = shared.plan.rootSplit ? minimumBound(across, shared, 'sellable', stock, shelves) : maxBuildable;
  return { maxBuildable, sellable, limits };
}


export { billKeyString };
