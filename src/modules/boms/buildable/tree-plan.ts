import { ONE, ZERO, type Exact } from '../../../kernel/numbers/index.ts';
import { assembliesTopDown, effectiveLinesOf } from '../engine/lines.ts';
import { lineNeed } from '../engine/explode.ts';
import { billKeyString, type BillKey, type EngineLine, type RecipeForest } from '../engine/types.ts';
import type { StockedLineType } from '../recipe-vocabulary.ts';

/**
 * A bill's lines as the push-down reads them: sub lines (with their shelf's constraint id), and
 * essential raw lines with their need per unit. `base`: the bill's base recipe (no location rule
 * changes it where the plan is built).
 */
export interface PlanBill {
  subs: { nodeId: string; shelfId: string; quantity: Exact }[];
  raws: { nodeId: string; need: Exact; waste: Exact }[];
  base: boolean;
}
export interface PlanAssembly extends PlanBill {
  id: string; shelfId: string; terminal: boolean; onlyConsume: boolean;
  /** Some assembly at or below it (this plan's lines) is not its base recipe: what is below it is this location's own. */
  changed: boolean;
  /** Some assembly strictly below it (this plan's lines) is only-consume-pre-assembled and not terminal: `sellable` cuts below it differ from `max`. */
  splitBelow: boolean;
}

/**
 * The tree as one location sees it, independent of stock: the root's lines, then every assembly
 * parents first with its lines, needs and flags. Built once per rule signature and shared by every
 * location with that recipe, so the walk, the effective lines and the line needs are not
 * recomputed per location. `rootChanged`/`rootSplit`: the root's `changed`/`splitBelow` (without a
 * split, `sellable` plans exactly as `max`).
 */
export interface TreePlan {
  root: PlanBill; assemblies: PlanAssembly[];
  rootChanged: boolean; rootSplit: boolean;
}

/** A constraint's id: a material variantId, or this for an assembly's pre-assembled shelf. */
export const shelfNodeId = (assemblyId: string): string => `subassembly:${assemblyId}`;

/**
 * Where demand stops: an assembly with no essential component comes only from its shelf; for
 * `sellable`, so does one flagged onlyConsumePreassembled. A stop is a constraint of its own.
 */
export type CutMode = 'max' | 'sellable';
export const isCut = (a: PlanAssembly, mode: CutMode): boolean => a.terminal || (mode === 'sellable' && a.onlyConsume);

/**
 * PlanBills by the effective lines they were read from: a bill no rule changes at a location has
 * the same lines array everywhere (effectiveLines), so locations with different rule signatures
 * share its needs. Valid for one forest and one set of non-essential materials.
 */
export type PlanBills = WeakMap<readonly EngineLine[], PlanBill>;

function planBill(forest: RecipeForest, id: string, locationId: string | null, nonEssential: ReadonlySet<string>, memo: PlanBills): PlanBill {
  const lines = effectiveLinesOf(forest, id, locationId);
  let plan = memo.get(lines);
  if (plan) return plan;
  const record = forest.bills.get(id);
  plan = { subs: [], raws: [], base: record === undefined || lines === record.lines };
  for (const line of lines) {
    if (line.lineType === 'sub') plan.subs.push({ nodeId: line.nodeId, shelfId: shelfNodeId(line.nodeId), quantity: line.quantity });
    else if (line.lineType === 'raw' && !nonEssential.has(line.nodeId)) {
      plan.raws.push({ nodeId: line.nodeId, need: lineNeed(line.quantity, line.wastePercentage), waste: line.wastePercentage });
    }
  }
  memo.set(lines, plan);
  return plan;
}

export function treePlan(forest: RecipeForest, root: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>, memo: PlanBills = new WeakMap()): TreePlan {
  const assemblies = assembliesTopDown(forest, [root], locationId).map((id): PlanAssembly => {
    const key = `sub_assembly:${id}`;
    const plan = planBill(forest, key, locationId, nonEssential, memo);
    // No essential component: it comes only from its shelf.
    const terminal = plan.subs.length === 0 && plan.raws.length === 0;
    return { id, shelfId: shelfNodeId(id), ...plan, terminal, onlyConsume: forest.bills.get(key)?.onlyConsumePreassembled === true, changed: false, splitBelow: false };
  });
  // Children before parents: each assembly's flags from its own lines and its sub lines' assemblies.
  const byId = new Map(assemblies.map((a) => [a.id, a]));
  const flags = (bill: PlanBill): { changed: boolean; splitBelow: boolean } => {
    let changed = !bill.base;
    let splitBelow = false;
    for (const line of bill.subs) {
      const child = byId.get(line.nodeId)!;
      changed ||= child.changed;
      splitBelow ||= child.splitBelow || (child.onlyConsume && !child.terminal);
    }
    return { changed, splitBelow };
  };
  for (let i = assemblies.length - 1; i >= 0; i--) Object.assign(assemblies[i]!, flags(assemblies[i]!));
  const rootPlan = planBill(forest, billKeyString(root), locationId, nonEssential, memo);
  const rootFlags = flags(rootPlan);
  return {
    root: rootPlan, assemblies,
    rootChanged: rootFlags.changed, rootSplit: rootFlags.splitBelow,
  };
}

/**
 * Units of every node below one bill (the root for index −1, else `plan.assemblies[index]`) per
 * unit of that bill, shelves ignored, not going below the cuts of `mode`: materials by variantId,
 * assemblies by shelfNodeId. Scalars pushed in topological order, one pass over the subtree.
 */
export function unitsBelow(plan: TreePlan, index: number, mode: CutMode): Map<string, Exact> {
  const units = new Map<string, Exact>();
  const push = (from: PlanBill, k: Exact) => {
    for (const line of from.subs) units.set(line.shelfId, (units.get(line.shelfId) ?? ZERO).plus(k.times(line.quantity)));
    for (const line of from.raws) units.set(line.nodeId, (units.get(line.nodeId) ?? ZERO).plus(k.times(line.need)));
  };
  push(index < 0 ? plan.root : plan.assemblies[index]!, ONE);
  // Parents come before children, so an assembly has all its units before it pushes them on.
  for (let i = index + 1; i < plan.assemblies.length; i++) {
    const a = plan.assemblies[i]!;
    const k = units.get(a.shelfId);
    if (k !== undefined && !isCut(a, mode)) push(a, k);
  }
  return units;
}

/** One constraint of the tree: a material, or the shelf of an assembly where demand stops. */
export interface PlanConstraint {
  nodeId: string; kind: StockedLineType; assemblyId: string | null;
  /** Per finished unit, shelves not counted (for `max` cuts). */
  perUnit: Exact;
  /** The waste % of the first line naming it (root first, then assemblies parents first; 0 for shelves). */
  waste: Exact;
}

/**
 * The constraints of `mode`: every essential material pushed to (first naming line's waste), then
 * every cut assembly reached, parents first; per-unit needs from the root's unitsBelow.
 */
export function planConstraints(plan: TreePlan, mode: CutMode, rootUnits: ReadonlyMap<string, Exact>): PlanConstraint[] {
  const materials = new Map<string, PlanConstraint>();
  const shelves: PlanConstraint[] = [];
  const note = (from: PlanBill) => {
    for (const line of from.raws) {
      if (!materials.has(line.nodeId)) materials.set(line.nodeId, { nodeId: line.nodeId, kind: 'raw', assemblyId: null, perUnit: rootUnits.get(line.nodeId) ?? ZERO, waste: line.waste });
    }
  };
  note(plan.root);
  for (const a of plan.assemblies) {
    const nodeId = a.shelfId;
    if (!rootUnits.has(nodeId)) continue;
    if (isCut(a, mode)) shelves.push({ nodeId, kind: 'sub', assemblyId: a.id, perUnit: rootUnits.get(nodeId)!, waste: ZERO });
    else note(a);
  }
  return [...materials.values(), ...shelves];
}
