import type { StockKind } from '../stock/stock-vocabulary.ts';
import type { PickPart, RunItemPart, RunPart } from './work-order.repository.ts';
import type { WorkOrderWarningCode } from './work-order-vocabulary.ts';

export interface BuildRunPickView { stock: StockKind; itemId: string; locationId: string; quantity: string; deducted: string | null }
export interface BuildRunWarning { code: WorkOrderWarningCode; message: string; remedy: string; variantId?: string | null; itemId?: string | null; locationId?: string | null; quantity?: string | null }

/** A build run as the API gives it (history, whole read and the start's response). */
export interface BuildRunView {
  buildRunId: string;
  shortId: string;
  status: RunPart['status'];
  runType: RunPart['run_type'];
  note: string | null;
  actorUserId: string | null;
  actorDisplayName: string | null;
  reworkItemIds: string[];
  startedAt: Date;
  completedAt: Date | null;
  reversedAt: Date | null;
  updatedAt: Date;
  /** The work order's change token after the write (or now, on reads). */
  workOrderUpdatedAt: Date;
  items: { itemId: string; quantity: string }[];
  picks: BuildRunPickView[];
  warnings: BuildRunWarning[];
}

export function buildRunViews(runs: readonly RunPart[], items: readonly RunItemPart[], picks: readonly PickPart[], workOrderUpdatedAt: Date): BuildRunView[] {
  const itemsOf = Map.groupBy(items, (i) => i.build_run_id);
  const picksOf = Map.groupBy(picks, (p) => p.build_run_id);
  return runs.map((r) => ({
    buildRunId: r.build_run_id, shortId: r.short_id, status: r.status, runType: r.run_type, note: r.note, actorUserId: r.actor_user_id,
    actorDisplayName: r.actor_display_name, reworkItemIds: r.rework_item_ids ?? [], startedAt: new Date(r.started_at),
    completedAt: r.completed_at ? new Date(r.completed_at) : null, reversedAt: r.reversed_at ? new Date(r.reversed_at) : null,
    updatedAt: new Date(r.updated_at), workOrderUpdatedAt,
    items: (itemsOf.get(r.build_run_id) ?? []).map((i) => ({ itemId: i.item_id, quantity: i.quantity })),
    picks: (picksOf.get(r.build_run_id) ?? []).map((p) => ({ stock: p.stock, itemId: p.variant_id, locationId: p.location_id, quantity: p.quantity, deducted: p.deducted })),
    // jsonb arrives parsed from PostgreSQL and as text from PGlite.
    warnings: (typeof r.warnings === 'string' ? JSON.parse(r.warnings) : r.warnings ?? []) as BuildRunWarning[],
  }));
}
