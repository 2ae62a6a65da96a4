import { ONE, ZERO, type Exact } from '../../../numbers/index.ts';
import { assembliesTopDown, effectiveLines, getBill } from '../engine/lines.ts';
import { lineNeed } from '../engine/explode.ts';
import { billKeyString, type BillKey, type RecipeForest } from '../engine/types.ts';
import type { StockedLineType } from '../recipe-vocabulary.ts';
import { add, excess, largestWithin, linearFn, scale, zeroFn, type Piecewise } from './piecewise.ts';

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

type Mode = 'max' | 'sellable' | 'plain';

interface Constraint { nodeId: string; kind: StockedLineType; demand: Piecewise; available: Exact; waste: Exact }

/** A bill's lines as the push-down reads them: sub lines, and essential raw lines with their need per unit. */
interface PlanBill {
  subs: { nodeId: string; quantity: Exact }[];
  raws: { nodeId: string; need: Exact; waste: Exact }[];
}
interface PlanAssembly extends PlanBill { id: string; terminal: boolean; onlyConsume: boolean }

/**
 * The tree as one location sees it, independent of stock: the root's lines, then every assembly
 * parents first with its lines, needs and flags. Built once per rule signature and shared by every
 * mode and every location with that recipe, so the walk, the effective lines and the line needs
 * are not recomputed per location.
 */
interface TreePlan { root: PlanBill; assemblies: PlanAssembly[]; assemblyIds: string[]; hasShelfOnlyBill: boolean }

const sub = (id: string): BillKey => ({ ownerType: 'sub_assembly', ownerId: id });

function planBill(forest: RecipeForest, bill: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>): PlanBill {
  const plan: PlanBill = { subs: [], raws: [] };
  for (const line of effectiveLines(forest, bill, locationId)) {
    if (line.lineType === 'sub') plan.subs.push({ nodeId: line.nodeId, quantity: line.quantity });
    else if (line.lineType === 'raw' && !nonEssential.has(line.nodeId)) {
      plan.raws.push({ nodeId: line.nodeId, need: lineNeed(line.quantity, line.wastePercentage), waste: line.wastePercentage });
    }
  }
  return plan;
}

function treePlan(forest: RecipeForest, root: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>): TreePlan {
  const assemblies = assembliesTopDown(forest, [root], locationId).map((id): PlanAssembly => {
    const plan = planBill(forest, sub(id), locationId, nonEssential);
    // No essential component: it comes only from its shelf.
    const terminal = plan.subs.length === 0 && plan.raws.length === 0;
    return { id, ...plan, terminal, onlyConsume: getBill(forest, sub(id))?.onlyConsumePreassembled === true };
  });
  const bills = [...forest.bills.values()];
  return {
    root: planBill(forest, root, locationId, nonEssential), assemblies,
    assemblyIds: bills.filter((b) => b.key.ownerType === 'sub_assembly').map((b) => b.key.ownerId),
    hasShelfOnlyBill: bills.some((b) => b.onlyConsumePreassembled),
  };
}

/**
 * Pushes the demand of N finished units down the tree at one location. An assembly's shelf is used
 * before its components; an assembly with no essential component (and, for `sellable`, one flagged
 * onlyConsumePreassembled) comes only from its shelf, so it is a constraint of its own and pushes
 * nothing down. `plain` ignores shelves (per-unit needs).
 */
function constraints(plan: TreePlan, stock: StockView, mode: Mode): Constraint[] {
  const demand = new Map<string, Piecewise>();
  const leaves = new Map<string, Constraint>();
  const result: Constraint[] = [];
  const push = (from: PlanBill, rest: Piecewise) => {
    for (const line of from.subs) demand.set(line.nodeId, add(demand.get(line.nodeId) ?? zeroFn(), scale(rest, line.quantity)));
    for (const line of from.raws) {
      // The first line naming a leaf gives its waste (depth-first, recipe order).
      const leaf = leaves.get(line.nodeId) ?? { nodeId: line.nodeId, kind: 'raw', demand: zeroFn(), available: stock.available(line.nodeId), waste: line.waste };
      leaf.demand = add(leaf.demand, scale(rest, line.need));
      leaves.set(line.nodeId, leaf);
    }
  };
  push(plan.root, linearFn(ONE));
  for (const a of plan.assemblies) {
    const d = demand.get(a.id) ?? zeroFn();
    if (a.terminal || (mode === 'sellable' && a.onlyConsume)) {
      result.push({ nodeId: `subassembly:${a.id}`, kind: 'sub', demand: d, available: mode === 'plain' ? ZERO : stock.shelf(a.id), waste: ZERO });
      continue;
    }
    push(a, mode === 'plain' ? d : excess(d, stock.shelf(a.id)));
  }
  return [...leaves.values(), ...result];
}

function minimum(values: (Exact | null)[]): Exact {
  const bounded = values.filter((v): v is Exact => v !== null);
  // Nothing countable in the tree: the service does not claim unbounded buildability.
  if (bounded.length === 0) return ZERO;
  return bounded.reduce((a, b) => (b.lt(a) ? b : a));
}

/** The slope of a per-unit (shelf-free) demand: the need per finished unit. */
const slope = (f: Piecewise): Exact => f[f.length - 1]!.m;

/**
 * What depends only on the recipe as a location sees it (the tree plan and the per-unit needs, no
 * shelves): memoised per rule signature, so locations without rules share one.
 */
export type PerUnitCache = Map<string, { plan: TreePlan; plain: Constraint[] }>;

function ruleSignature(forest: RecipeForest, locationId: string | null): string {
  if (locationId === null) return '';
  for (const bill of forest.bills.values()) if (bill.rules.get(locationId)?.length) return locationId;
  return '';
}

/**
 * maxBuildable, sellable and every limiting row of one BOM at one location (null = base recipe, used
 * for the shop-wide fallback). Exact: each leaf's bound solves its piecewise-affine demand for N.
 * Shortcuts that do not change the result: the tree plan and per-unit needs are shared by locations
 * without rules; sellable equals maxBuildable when the tree holds no only-consume-pre-assembled bill.
 */
export function computeBuildable(
  forest: RecipeForest, bom: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>, stock: StockView, perUnitCache: PerUnitCache = new Map(),
): BuildableFigures {
  const signature = ruleSignature(forest, locationId);
  let shared = perUnitCache.get(signature);
  if (!shared) {
    const plan = treePlan(forest, bom, locationId, nonEssential);
    shared = { plan, plain: constraints(plan, stock, 'plain') };
    perUnitCache.set(signature, shared);
  }
  const { plan, plain } = shared;
  const perUnit = new Map(plain.map((c) => [c.nodeId, slope(c.demand)]));
  // Without any shelf in the tree here, demand is the per-unit need times N: no push-down needed.
  const shelved = plan.assemblyIds.some((id) => stock.shelf(id).gt(0));
  const maxRows = shelved
    ? constraints(plan, stock, 'max')
    : plain.map((c) => ({ ...c, available: c.kind === 'raw' ? stock.available(c.nodeId) : ZERO }));
  const limits: LimitingLeaf[] = maxRows.map((c) => ({
    nodeId: c.nodeId, kind: c.kind, quantityPerUnit: perUnit.get(c.nodeId) ?? ZERO, wastePercentage: c.waste,
    maxUnits: largestWithin(c.demand, c.available), available: c.available,
  }));
  limits.sort((a, b) => {
    if (a.maxUnits === null || b.maxUnits === null) return a.maxUnits === b.maxUnits ? 0 : a.maxUnits === null ? 1 : -1;
    return a.maxUnits.comparedTo(b.maxUnits) || b.quantityPerUnit.comparedTo(a.quantityPerUnit) || (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0);
  });
  const maxBuildable = minimum(limits.map((l) => l.maxUnits));
  const sellable = plan.hasShelfOnlyBill
    ? minimum(constraints(plan, stock, 'sellable').map((c) => largestWithin(c.demand, c.available)))
    : maxBuildable;
  return { maxBuildable, sellable, limits };
}


export { billKeyString };
