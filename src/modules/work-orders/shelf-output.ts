import type { ShopContext } from '../../kernel/shop-context.ts';
import { exact, Exact, ZERO } from '../../kernel/numbers/index.ts';
import { finishedGoodVariants } from '../boms/bom-views.ts';
import { runShelfMoves, type RunShelfMove } from '../stock/adjustment-history.ts';
import type { ShelfChange } from '../stock/ledger.ts';
import { itemLocation } from './material-plan.service.ts';
import type { ItemPart, QcReviewPart, RunItemPart, RunPart, WorkOrderHeader } from './work-order.repository.ts';

// What a work order's runs may keep on the pre-assembled shelves: units built and passed, counted
// once (docs/work-orders.md, "Shelves count what passed QC").
// - A completed production run puts on the shelf what it built less what QC already failed.
// - A QC review that fails units of a completed run takes them off the shelf (source `qc_review`):
//   they are held for rework, off the shelf.
// - A completed rework run puts back only units held for rework: per item, at most the units that
//   failed on the work order's live runs and that no other completed rework run has put back.
// - A reversal takes back what the run still has on the shelf (what its completion put there less
//   what QC took off).
// The ledger's history says what each run moved (`runShelfMoves`), so nothing new is stored.

interface Target { shelfId: string; locationId: string }

/** Where each item's output goes: the finished good's variant (BOM items) or the assembly bill, at the production location. */
export async function shelfTargets(tx: ShopContext, row: WorkOrderHeader, items: readonly ItemPart[]): Promise<Map<string, Target>> {
  const location = row.productionLocationId ?? itemLocation(row);
  const targets = new Map<string, Target>();
  if (!location) return targets;
  const variantOf = await finishedGoodVariants(tx, items.filter((i) => i.owner_type === 'bom').map((i) => i.owner_id));
  for (const item of items) {
    // A BOM whose finished good is not a platform variant has no shelf to receive it.
    const shelfId = item.owner_type === 'sub_assembly' ? item.owner_id : variantOf.get(item.owner_id) ?? null;
    if (shelfId) targets.set(item.item_id, { shelfId, locationId: location });
  }
  return targets;
}

/** Units failed by QC, per run and item. */
function failedUnits(reviews: readonly QcReviewPart[]): Map<string, Map<string, Exact>> {
  const failed = new Map<string, Map<string, Exact>>();
  for (const review of reviews) {
    if (!review.build_run_id) continue;
    const byItem = failed.get(review.build_run_id) ?? new Map<string, Exact>();
    for (const i of review.items) byItem.set(i.item_id, (byItem.get(i.item_id) ?? ZERO).plus(i.failed_quantity));
    failed.set(review.build_run_id, byItem);
  }
  return failed;
}

const key = (runId: string, t: Target) => `${runId}|${t.shelfId}|${t.locationId}`;

/** Net units each run has on each shelf, and what each run's completion put there, from the history. */
function movesByRun(moves: readonly RunShelfMove[]): { net: Map<string, Exact>; putBack: Map<string, Exact> } {
  const net = new Map<string, Exact>();
  const putBack = new Map<string, Exact>();
  for (const m of moves) {
    const k = `${m.buildRunId}|${m.itemId}|${m.locationId}`;
    net.set(k, (net.get(k) ?? ZERO).plus(m.delta));
    if (m.source === 'build_run_completion') putBack.set(k, (putBack.get(k) ?? ZERO).plus(m.delta));
  }
  return { net, putBack };
}

export interface RunRecords { items: readonly ItemPart[]; runs: readonly RunPart[]; runItems: readonly RunItemPart[]; qcReviews: readonly QcReviewPart[] }

/** What completing `run` puts on the shelves. */
export async function completionOutput(tx: ShopContext, row: WorkOrderHeader, parts: RunRecords, run: RunPart): Promise<ShelfChange[]> {
  const targets = await shelfTargets(tx, row, parts.items);
  const failed = failedUnits(parts.qcReviews);
  const own = parts.runItems.filter((i) => i.build_run_id === run.build_run_id);
  const passed = (runId: string, itemId: string, quantity: string) => {
    const left = exact(quantity).minus(failed.get(runId)?.get(itemId) ?? ZERO);
    return left.isNegative() ? ZERO : left;
  };
  if (run.run_type !== 'rework') {
    return own.flatMap((i) => {
      const t = targets.get(i.item_id);
      return t ? [{ itemId: t.shelfId, locationId: t.locationId, delta: passed(run.build_run_id, i.item_id, i.quantity) }] : [];
    });
  }
  const live = new Set(parts.runs.filter((r) => r.status !== 'reversed').map((r) => r.build_run_id));
  const otherRework = parts.runs.filter((r) => r.run_type === 'rework' && r.status === 'completed' && r.build_run_id !== run.build_run_id);
  const { putBack } = movesByRun(otherRework.length === 0 ? [] : await runShelfMoves(tx, row.workOrderId));
  return own.flatMap((i) => {
    const t = targets.get(i.item_id);
    if (!t) return [];
    // Held for rework: units of this item failed on live runs (this one excluded), less what other rework runs put back.
    const failedElsewhere = [...failed.entries()].filter(([runId]) => live.has(runId) && runId !== run.build_run_id)
      .reduce((sum, [, byItem]) => sum.plus(byItem.get(i.item_id) ?? ZERO), ZERO);
    const returned = otherRework.reduce((sum, r) => sum.plus(putBack.get(key(r.build_run_id, t)) ?? ZERO), ZERO);
    const held = Exact.max(failedElsewhere.minus(returned), ZERO);
    return [{ itemId: t.shelfId, locationId: t.locationId, delta: Exact.min(passed(run.build_run_id, i.item_id, i.quantity), held) }];
  });
}

/** What QC failing `failed` units (per item) of a completed `run` takes off the shelves: never more than the run has there. */
export async function qcFailureOutput(tx: ShopContext, row: WorkOrderHeader, items: readonly ItemPart[], run: RunPart, failed: ReadonlyMap<string, Exact>): Promise<ShelfChange[]> {
  if (run.status !== 'completed' || [...failed.values()].every((q) => q.isZero())) return [];
  const [targets, moves] = await Promise.all([shelfTargets(tx, row, items), runShelfMoves(tx, row.workOrderId)]);
  const { net } = movesByRun(moves);
  const completedThroughLedger = moves.some((m) => m.buildRunId === run.build_run_id && m.source === 'build_run_completion');
  return [...failed.entries()].flatMap(([itemId, units]) => {
    const t = targets.get(itemId);
    if (!t || units.isZero()) return [];
    // A run completed before the ledger knew it (loaded from a dataset) has its whole output on the shelf.
    const onShelf = completedThroughLedger ? net.get(key(run.build_run_id, t)) ?? ZERO : units;
    const off = Exact.min(units, Exact.max(onShelf, ZERO));
    return off.isZero() ? [] : [{ itemId: t.shelfId, locationId: t.locationId, delta: off.negated() }];
  });
}

/** What reversing a completed `run` takes back: what it still has on the shelves. */
export async function reversalOutput(tx: ShopContext, row: WorkOrderHeader, parts: RunRecords, run: RunPart): Promise<ShelfChange[]> {
  const [targets, moves] = await Promise.all([shelfTargets(tx, row, parts.items), runShelfMoves(tx, row.workOrderId)]);
  const { net } = movesByRun(moves);
  const completedThroughLedger = moves.some((m) => m.buildRunId === run.build_run_id && m.source === 'build_run_completion');
  const failed = failedUnits(parts.qcReviews).get(run.build_run_id);
  const seen = new Set<string>();
  return parts.runItems.filter((i) => i.build_run_id === run.build_run_id).flatMap((i) => {
    const t = targets.get(i.item_id);
    if (!t) return [];
    if (completedThroughLedger) {
      // The history's net per shelf covers every item of the run on that shelf: taken back once.
      if (seen.has(key(run.build_run_id, t))) return [];
      seen.add(key(run.build_run_id, t));
      const onShelf = net.get(key(run.build_run_id, t)) ?? ZERO;
      return onShelf.isZero() ? [] : [{ itemId: t.shelfId, locationId: t.locationId, delta: onShelf.negated() }];
    }
    // Completed in a loaded dataset: its output less what QC failed.
    const left = exact(i.quantity).minus(failed?.get(i.item_id) ?? ZERO);
    return left.gt(0) ? [{ itemId: t.shelfId, locationId: t.locationId, delta: left.negated() }] : [];
  });
}
