import { divideToPlaces, exact, ZERO, type Exact, type ExactInput } from '../../kernel/numbers/index.ts';
import { leafExpander, planConsumption, type BillKey, type RecipeForest } from '../boms/engine/index.ts';
import type { ItemPart, RunItemPart, RunKeyPart } from './work-order.repository.ts';
import { LIVE_RUN_STATUSES, type BuildRunStatus, type BuildRunType } from './work-order-vocabulary.ts';

// What a work order still holds of a material, in one place (the work-order allocation read, the
// material plan and, when it exists, planning use it):
//   picked    = what runs not reversed took (their material picks);
//   remaining = what the units not yet started still need — per item, quantity − units of
//               production runs not reversed, the recipe at the consumption location with that
//               location's rules, pre-assembled shelves first as a run would take them, waste
//               included — plus the manual lines not yet consumed: line × (Q − started) / Q, as a
//               run of q of the work order's Q units consumes q/Q of every manual line;
//   allocated = picked + remaining.

/** Places of the manual share before it joins exact sums (the reads round to 6). */
const SHARE_PLACES = 18;

export interface UnitItem { itemId: string; quantity: ExactInput }
export interface UnitRun { buildRunId: string; status: BuildRunStatus; runType: BuildRunType }
export interface UnitRunItem { buildRunId: string; itemId: string; quantity: ExactInput }

/** A work order's items, runs and run items (the repository's rows) as this file reads them. */
export const unitItems = (items: readonly ItemPart[]): UnitItem[] => items.map((i) => ({ itemId: i.item_id, quantity: i.quantity }));
export const unitRuns = (runs: readonly RunKeyPart[]): UnitRun[] => runs.map((r) => ({ buildRunId: r.build_run_id, status: r.status, runType: r.run_type }));
export const unitRunItems = (runItems: readonly RunItemPart[]): UnitRunItem[] =>
  runItems.map((r) => ({ buildRunId: r.build_run_id, itemId: r.item_id, quantity: r.quantity }));

/** Units of each item started by production runs not reversed (rework runs rebuild units already counted). */
export function startedUnits(runs: readonly UnitRun[], runItems: readonly UnitRunItem[]): Map<string, Exact> {
  const counted = new Set(runs.filter((r) => r.runType === 'production' && LIVE_RUN_STATUSES.includes(r.status)).map((r) => r.buildRunId));
  const started = new Map<string, Exact>();
  for (const r of runItems) if (counted.has(r.buildRunId)) started.set(r.itemId, (started.get(r.itemId) ?? ZERO).plus(r.quantity));
  return started;
}

/** Each item's units not yet started: quantity − started, never below 0. */
export function unitsNotStarted(items: readonly UnitItem[], started: ReadonlyMap<string, Exact>): Map<string, Exact> {
  return new Map(items.map((i) => {
    const rest = exact(i.quantity).minus(started.get(i.itemId) ?? ZERO);
    return [i.itemId, rest.isNegative() ? ZERO : rest];
  }));
}

/** Q (Σ item quantities) and Q − started (Σ units not yet started) of a work order. */
export function workOrderUnits(items: readonly UnitItem[], started: ReadonlyMap<string, Exact>): { total: Exact; left: Exact } {
  const left = unitsNotStarted(items, started);
  return {
    total: items.reduce((acc, i) => acc.plus(i.quantity), ZERO),
    left: [...left.values()].reduce((acc, q) => acc.plus(q), ZERO),
  };
}

/**
 * The part of a manual line of `line` that `unitsLeft` of `total` units still need: line × left / Q
 * (a work order without units keeps its whole lines).
 */
export function manualShare(line: ExactInput, units: { total: ExactInput; left: ExactInput }): Exact {
  return shareTo(line, units.total, units.left, SHARE_PLACES);
}

/** line × left / total to `places` (a work order without units keeps its whole line). */
function shareTo(line: ExactInput, total: ExactInput, left: ExactInput, places: number): Exact {
  const t = exact(total);
  return t.gt(0) ? divideToPlaces(exact(line).times(left), t, places) : exact(line);
}

/**
 * What a run of `q` more units consumes of a manual line: its share before the run less its share
 * after it, each rounded to 6 places — so a work order's runs consume each line exactly once,
 * whatever the number of runs (three runs of 1 of 3 units take 0.333333, 0.333334, 0.333333 of 1).
 */
export function manualConsumedByRun(line: ExactInput, total: ExactInput, leftBefore: Exact, leftAfter: Exact): Exact {
  // Rounded to the 6 places picks are kept to.
  return shareTo(line, total, leftBefore, 6).minus(shareTo(line, total, leftAfter, 6));
}

/**
 * The materials the units not yet started still need at `location`: one push-down of every item's
 * units not yet started, shelves first (`shelf`), as a single run of them would take them.
 */
export function remainingRecipeNeeds(
  forest: RecipeForest, roots: readonly { bill: BillKey; quantity: Exact }[], location: string | null, shelf: (assemblyId: string) => Exact,
): Map<string, Exact> {
  const demands = roots.filter((r) => r.quantity.gt(0));
  if (demands.length === 0) return new Map();
  if (location !== null) return planConsumption(forest, demands, location, shelf).materials;
  // Unlocated lines have no shelves and no location rules: the plain leaf expansion.
  const leavesOf = leafExpander(forest, null);
  const needs = new Map<string, Exact>();
  for (const root of demands) for (const [id, perUnit] of leavesOf(root.bill)) needs.set(id, (needs.get(id) ?? ZERO).plus(perUnit.times(root.quantity)));
  return needs;
}
