import { ONE, ZERO, type Exact } from '../../../kernel/numbers/index.ts';
import { assembliesTopDown, effectiveLines, getBill } from '../engine/lines.ts';
import { lineNeed } from '../engine/explode.ts';
import type { BillKey, RecipeForest } from '../engine/types.ts';
import type { StockedLineType } from '../recipe-vocabulary.ts';

/** A bill's lines as the push-down reads them: sub lines, and essential raw lines with their need per unit. */
export interface PlanBill {
  subs: { nodeId: string; quantity: Exact }[];
  raws: { nodeId: string; need: Exact; waste: Exact }[];
}
export interface PlanAssembly extends PlanBill { id: string; terminal: boolean; onlyConsume: boolean }

/**
 * The tree as one location sees it, independent of stock: the root's lines, then every assembly
 * parents first with its lines, needs and flags. Built once per rule signature and shared by every
 * location with that recipe, so the walk, the effective lines and the line needs are not
 * recomputed per location.
 */
export interface TreePlan { root: PlanBill; assemblies: PlanAssembly[]; assemblyIds: string[]; hasShelfOnlyBill: boolean }

/** A constraint's id: a material variantId, or this for an assembly's pre-assembled shelf. */
export const shelfNodeId = (assemblyId: string): string => `subassembly:${assemblyId}`;

/**
 * Where demand stops: an assembly with no essential component comes only from its shelf; for
 * `sellable`, so does one flagged onlyConsumePreassembled. A stop is a constraint of its own.
 */
export type CutMode = 'max' | 'sellable';
export const isCut = (a: PlanAssembly, mode: CutMode): boolean => a.terminal || (mode === 'sellable' && a.onlyConsume);

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

export function treePlan(forest: RecipeForest, root: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>): TreePlan {
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
 * Units of every node below one bill (the root for index −1, else `plan.assemblies[index]`) per
 * unit of that bill, shelves ignored, not going below the cuts of `mode`: materials by variantId,
 * assemblies by shelfNodeId. Scalars pushed in topological order, one pass over the subtree.
 */
export function unitsBelow(plan: TreePlan, index: number, mode: CutMode): Map<string, Exact> {
  const units = new Map<string, Exact>();
  const push = (from: PlanBill, k: Exact) => {
    for (const line of from.subs) {
      const id = shelfNodeId(line.nodeId);
      units.set(id, (units.get(id) ?? ZERO).plus(k.times(line.quantity)));
    }
    for (const line of from.raws) units.set(line.nodeId, (units.get(line.nodeId) ?? ZERO).plus(k.times(line.need)));
  };
  push(index < 0 ? plan.root : plan.assemblies[index]!, ONE);
  // Parents come before children, so an assembly has all its units before it pushes them on.
  for (let i = index + 1; i < plan.assemblies.length; i++) {
    const a = plan.assemblies[i]!;
    const k = units.get(shelfNodeId(a.id));
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
    const nodeId = shelfNodeId(a.id);
    if (!rootUnits.has(nodeId)) continue;
    if (isCut(a, mode)) shelves.push({ nodeId, kind: 'sub', assemblyId: a.id, perUnit: rootUnits.get(nodeId)!, waste: ZERO });
    else note(a);
  }
  return [...materials.values(), ...shelves];
}
