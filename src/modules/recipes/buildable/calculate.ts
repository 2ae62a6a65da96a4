import type { Decimal } from 'decimal.js';
import { ZERO } from '../engine/exact.ts';
import { assembliesTopDown, effectiveLines, getBill } from '../engine/lines.ts';
import { lineNeed } from '../engine/explode.ts';
import { billKeyString, type BillKey, type RecipeForest } from '../engine/types.ts';
import { add, excess, largestWithin, linearFn, scale, zeroFn, type Piecewise } from './piecewise.ts';

/** What one location (or the shop as a whole) holds, as the calculation sees it. */
export interface StockView {
  /** Available units of a material (negative levels already counted as 0). */
  available(variantId: string): Decimal;
  /** Pre-assembled units of an assembly bill on the shelf. */
  shelf(assemblyId: string): Decimal;
}

export interface LimitRow {
  /** Material variantId, or `subassembly:<assemblyId>` for a pre-assembled leaf. */
  nodeId: string;
  kind: 'material' | 'preassembled';
  /** Per finished unit, waste and nesting included, shelves not counted. */
  quantityPerUnit: Decimal;
  /** Waste % of the first recipe line (depth-first, recipe order) that names the leaf; 0 for pre-assembled leaves. */
  wastePercentage: Decimal;
  /** Largest N this leaf alone allows (shelves above it used first); null = unbounded. */
  maxUnits: Decimal | null;
  available: Decimal;
}

export interface BuildableFigures { maxBuildable: Decimal; sellable: Decimal; limits: LimitRow[] }

type Mode = 'max' | 'sellable' | 'plain';

interface Constraint { nodeId: string; kind: 'material' | 'preassembled'; demand: Piecewise; available: Decimal; waste: Decimal }

const sub = (id: string): BillKey => ({ ownerType: 'sub_assembly', ownerId: id });

/**
 * Pushes the demand of N finished units down the tree at one location. An assembly's shelf is used
 * before its components; an assembly with no essential component (and, for `sellable`, one flagged
 * onlyConsumePreassembled) comes only from its shelf, so it is a constraint of its own and pushes
 * nothing down. `plain` ignores shelves (per-unit needs).
 */
function constraints(forest: RecipeForest, root: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>, stock: StockView, mode: Mode): Constraint[] {
  const demand = new Map<string, Piecewise>();
  const leaves = new Map<string, Constraint>();
  const result: Constraint[] = [];
  const push = (from: BillKey, rest: Piecewise) => {
    for (const line of effectiveLines(forest, from, locationId)) {
      if (line.lineType === 'sub') {
        demand.set(line.nodeId, add(demand.get(line.nodeId) ?? zeroFn(), scale(rest, line.quantity)));
      } else if (line.lineType === 'raw' && !nonEssential.has(line.nodeId)) {
        const leaf = leaves.get(line.nodeId) ?? { nodeId: line.nodeId, kind: 'material', demand: zeroFn(), available: stock.available(line.nodeId), waste: line.wastePercentage };
        leaf.demand = add(leaf.demand, scale(rest, lineNeed(line.quantity, line.wastePercentage)));
        leaves.set(line.nodeId, leaf);
      }
    }
  };
  push(root, linearFn(ZERO.plus(1)));
  for (const id of assembliesTopDown(forest, [root], locationId)) {
    const d = demand.get(id) ?? zeroFn();
    const lines = effectiveLines(forest, sub(id), locationId);
    const terminal = !lines.some((l) => l.lineType === 'sub' || (l.lineType === 'raw' && !nonEssential.has(l.nodeId)));
    const shelfOnly = terminal || (mode === 'sellable' && getBill(forest, sub(id))?.onlyConsumePreassembled === true);
    if (shelfOnly) {
      result.push({ nodeId: `subassembly:${id}`, kind: 'preassembled', demand: d, available: mode === 'plain' ? ZERO : stock.shelf(id), waste: ZERO });
      continue;
    }
    push(sub(id), mode === 'plain' ? d : excess(d, stock.shelf(id)));
  }
  return [...leaves.values(), ...result];
}

function minimum(values: (Decimal | null)[]): Decimal {
  const bounded = values.filter((v): v is Decimal => v !== null);
  // Nothing countable in the tree: the service does not claim unbounded buildability.
  if (bounded.length === 0) return ZERO;
  return bounded.reduce((a, b) => (b.lt(a) ? b : a));
}

/** The slope of a per-unit (shelf-free) demand: the need per finished unit. */
const slope = (f: Piecewise): Decimal => f[f.length - 1]!.m;

/** Per-unit needs (no shelves) depend only on the recipe as a location sees it: memoised per rule signature. */
export type PerUnitCache = Map<string, Constraint[]>;

function ruleSignature(forest: RecipeForest, locationId: string | null): string {
  if (locationId === null) return '';
  for (const bill of forest.bills.values()) if (bill.rules.get(locationId)?.length) return locationId;
  return '';
}

/**
 * maxBuildable, sellable and every limiting row of one BOM at one location (null = base recipe, used
 * for the shop-wide fallback). Exact: each leaf's bound solves its piecewise-affine demand for N.
 * Shortcuts that do not change the result: per-unit needs are shared by locations without rules;
 * sellable equals maxBuildable when the tree holds no only-consume-pre-assembled bill.
 */
export function computeBuildable(
  forest: RecipeForest, bom: BillKey, locationId: string | null, nonEssential: ReadonlySet<string>, stock: StockView, perUnitCache: PerUnitCache = new Map(),
): BuildableFigures {
  const signature = ruleSignature(forest, locationId);
  let plain = perUnitCache.get(signature);
  if (!plain) {
    plain = constraints(forest, bom, locationId, nonEssential, stock, 'plain');
    perUnitCache.set(signature, plain);
  }
  const perUnit = new Map(plain.map((c) => [c.nodeId, slope(c.demand)]));
  // Without any shelf in the tree here, demand is the per-unit need times N: no push-down needed.
  const shelved = [...forest.bills.values()].some((b) => b.key.ownerType === 'sub_assembly' && stock.shelf(b.key.ownerId).gt(0));
  const maxRows = shelved
    ? constraints(forest, bom, locationId, nonEssential, stock, 'max')
    : plain.map((c) => ({ ...c, available: c.kind === 'material' ? stock.available(c.nodeId) : ZERO }));
  const limits: LimitRow[] = maxRows.map((c) => ({
    nodeId: c.nodeId, kind: c.kind, quantityPerUnit: perUnit.get(c.nodeId) ?? ZERO, wastePercentage: c.waste,
    maxUnits: largestWithin(c.demand, c.available), available: c.available,
  }));
  limits.sort((a, b) => {
    if (a.maxUnits === null || b.maxUnits === null) return a.maxUnits === b.maxUnits ? 0 : a.maxUnits === null ? 1 : -1;
    return a.maxUnits.comparedTo(b.maxUnits) || b.quantityPerUnit.comparedTo(a.quantityPerUnit) || (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0);
  });
  const maxBuildable = minimum(limits.map((l) => l.maxUnits));
  const sellable = treeHasShelfOnlyBill(forest)
    ? minimum(constraints(forest, bom, locationId, nonEssential, stock, 'sellable').map((c) => largestWithin(c.demand, c.available)))
    : maxBuildable;
  return { maxBuildable, sellable, limits };
}

export function treeHasShelfOnlyBill(forest: RecipeForest): boolean {
  return [...forest.bills.values()].some((b) => b.onlyConsumePreassembled);
}

export { billKeyString };
