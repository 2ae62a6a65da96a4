import { ZERO, type Exact } from '../../../kernel/numbers/index.ts';
import { lineNeed } from './explode.ts';
import { assembliesTopDown, effectiveLines, getBill } from './lines.ts';
import type { BillKey, RecipeForest } from './types.ts';

/** Units of a root bill to build at one location. */
export interface RootDemand { bill: BillKey; quantity: Exact }

export interface ConsumptionAtLocation {
  /** Assembly bill → units taken from its pre-assembled shelf at the location. */
  shelves: Map<string, Exact>;
  /** Material variantId → units consumed (every raw material, non-essential ones too). */
  materials: Map<string, Exact>;
  /** Assembly bills flagged onlyConsumePreassembled whose shelf could not cover the demand → units missing. */
  shelfShortfalls: Map<string, Exact>;
}

const sub = (id: string): BillKey => ({ ownerType: 'sub_assembly', ownerId: id });

/**
 * What building the roots at one location consumes, by the build-run rules: each root's recipe with
 * that location's rules, demand pushed down the tree in topological order (so an assembly needed in
 * several places shares one shelf); an assembly takes its pre-assembled shelf first and only the
 * rest comes from its components; a bill flagged onlyConsumePreassembled never comes from
 * components (the rest is a shortfall). The roots themselves are being built: their own shelves
 * are not used. Exact.
 */
export function planConsumption(forest: RecipeForest, roots: readonly RootDemand[], locationId: string, shelf: (assemblyId: string) => Exact): ConsumptionAtLocation {
  const demand = new Map<string, Exact>();
  const materials = new Map<string, Exact>();
  const shelves = new Map<string, Exact>();
  const shelfShortfalls = new Map<string, Exact>();
  const push = (bill: BillKey, quantity: Exact) => {
    if (quantity.isZero()) return;
    for (const line of effectiveLines(forest, bill, locationId)) {
      if (line.lineType === 'sub') demand.set(line.nodeId, (demand.get(line.nodeId) ?? ZERO).plus(quantity.times(line.quantity)));
      else if (line.lineType === 'raw') materials.set(line.nodeId, (materials.get(line.nodeId) ?? ZERO).plus(quantity.times(lineNeed(line.quantity, line.wastePercentage))));
    }
  };
  for (const root of roots) push(root.bill, root.quantity);
  for (const id of assembliesTopDown(forest, roots.map((r) => r.bill), locationId)) {
    const needed = demand.get(id) ?? ZERO;
    if (needed.isZero()) continue;
    const onShelf = shelf(id);
    const taken = onShelf.gt(0) ? (onShelf.lt(needed) ? onShelf : needed) : ZERO;
    if (!taken.isZero()) shelves.set(id, taken);
    const rest = needed.minus(taken);
    if (rest.isZero()) continue;
    if (getBill(forest, sub(id))?.onlyConsumePreassembled) shelfShortfalls.set(id, rest);
    else push(sub(id), rest);
  }
  return { shelves, materials, shelfShortfalls };
}
