import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import type { BillOwnerType } from '../recipes/recipe-vocabulary.ts';
import type { StockKind } from '../stock/stock-vocabulary.ts';
import type {
  BuildRunStatus, BuildRunType, QcDecision, ReworkItemStatus, WorkOrderPriority, WorkOrderSourceType, WorkOrderStatus,
} from './work-order-vocabulary.ts';

// The one reader and writer of the work-order tables (work orders, items, manual materials,
// build runs with items and picks, reviews, rework, documents, messages, lifecycle events).
// Plain rows, a constant number of round trips per call.

export interface WorkOrderRow {
  work_order_id: string;
  short_id: string;
  name: string;
  description: string | null;
  notes: string | null;
  status: WorkOrderStatus;
  priority: WorkOrderPriority;
  due_date: string | null;
  assignee_id: string | null;
  assignee_name: string | null;
  assignee_active: boolean | null;
  production_location_id: string | null;
  default_consumption_location_id: string | null;
  source_type: WorkOrderSourceType;
  source_flow_id: string | null;
  source_todo_id: string | null;
  source_order_ids: string[];
  tags: string[];
  planned_labor_cost: string | null;
  actual_labor_cost: string | null;
  created_at: Date;
  updated_at: Date;
}

export const HEADER_COLUMNS = `w.work_order_id, w.short_id, w.name, w.description, w.notes, w.status, w.priority, to_char(w.due_date, 'YYYY-MM-DD') as due_date,
  w.assignee_id, a.display_name as assignee_name, a.active as assignee_active, w.production_location_id, w.default_consumption_location_id,
  w.source_type, w.source_flow_id, w.source_todo_id, w.source_order_ids, w.tags, w.planned_labor_cost, w.actual_labor_cost, w.created_at, w.updated_at`;

export const HEADER_FROM = `work_orders w left join assignees a on a.shop_id = w.shop_id and a.assignee_id = w.assignee_id`;

/** The header, or null. `forUpdate` locks the work-order row until the transaction ends. */
export async function findWorkOrder(em: Em, shopId: string, workOrderId: string, forUpdate = false): Promise<WorkOrderRow | null> {
  const [row] = await em.execute<WorkOrderRow[]>(
    `select ${HEADER_COLUMNS} from ${HEADER_FROM} where w.shop_id = ? and w.work_order_id = ?${forUpdate ? ' for update of w' : ''}`,
    [shopId, workOrderId],
  );
  return row ? normaliseRow(row) : null;
}

/** The headers of the work orders that exist among `workOrderIds` (any order). */
export async function findWorkOrders(em: Em, shopId: string, workOrderIds: readonly string[]): Promise<WorkOrderRow[]> {
  if (workOrderIds.length === 0) return [];
  const rows = await em.execute<WorkOrderRow[]>(
    `select ${HEADER_COLUMNS} from ${HEADER_FROM} where w.shop_id = ? and w.work_order_id = any(?::text[])`,
    [shopId, textArrayLiteral([...new Set(workOrderIds)])],
  );
  return rows.map(normaliseRow);
}

export function normaliseRow(row: WorkOrderRow): WorkOrderRow {
  return { ...row, created_at: new Date(row.created_at), updated_at: new Date(row.updated_at), source_order_ids: row.source_order_ids ?? [], tags: row.tags ?? [] };
}

export interface ItemRow { item_id: string; position: number; owner_type: BillOwnerType; owner_id: string; name: string | null; quantity: string; completed_quantity: string }
export interface ManualRow { position: number; variant_id: string; quantity: string; location_id: string | null; note: string | null }
export interface RunRow {
  build_run_id: string; short_id: string; status: BuildRunStatus; run_type: BuildRunType; note: string | null; actor_user_id: string | null;
  actor_display_name: string | null; rework_item_ids: string[]; warnings: unknown; started_at: Date; completed_at: Date | null; reversed_at: Date | null; updated_at: Date;
}
export interface RunItemRow { build_run_id: string; item_id: string; quantity: string }
export interface PickRow { build_run_id: string; position: number; stock: StockKind; variant_id: string; location_id: string; quantity: string; carried_whole: string | null; deducted: string | null }
/** What a review judged of one item of its run (exact decimals as text). */
export interface QcItemRow { item_id: string; approved_quantity: string; failed_quantity: string }
export interface QcRow {
  review_id: string; build_run_id: string | null; decision: QcDecision; note: string | null; reviewer_name: string | null; created_at: Date; items: QcItemRow[];
}
export interface ReworkRow { rework_item_id: string; description: string; quantity: string; status: ReworkItemStatus; build_run_id: string | null; created_at: Date; resolved_at: Date | null }
export interface DocumentRow { document_id: string; name: string; url: string; created_at: Date }
export interface MessageRow { message_id: string; author_name: string | null; body: string; created_at: Date }
export interface LifecycleRow { event_id: string; from_status: WorkOrderStatus | null; to_status: WorkOrderStatus; note: string | null; actor_user_id: string | null; actor_display_name: string | null; created_at: Date }

export interface WorkOrderParts {
  items: ItemRow[];
  manual: ManualRow[];
  runs: RunRow[];
  runItems: RunItemRow[];
  picks: PickRow[];
  qcReviews: QcRow[];
  reworkItems: ReworkRow[];
  documents: DocumentRow[];
  messages: MessageRow[];
  lifecycle: LifecycleRow[];
}

type PartName = keyof WorkOrderParts;

const PART_SQL: Record<PartName, string> = {
  items: `select i.work_order_id, i.item_id, i.position, i.owner_type, i.owner_id, coalesce(b.name, x.name) as name, i.quantity, i.completed_quantity
            from work_order_items i
            left join boms b on i.owner_type = 'bom' and b.shop_id = i.shop_id and b.bom_id = i.owner_id
            left join assembly_bills x on i.owner_type = 'sub_assembly' and x.shop_id = i.shop_id and x.assembly_id = i.owner_id
           where i.shop_id = ? and i.work_order_id = any(?::text[]) order by i.position`,
  manual: `select work_order_id, position, variant_id, quantity, location_id, note from work_order_manual_materials where shop_id = ? and work_order_id = any(?::text[]) order by position`,
  runs: `select work_order_id, build_run_id, short_id, status, run_type, note, actor_user_id, actor_display_name, rework_item_ids, warnings, started_at, completed_at, reversed_at, updated_at
           from build_runs where shop_id = ? and work_order_id = any(?::text[]) order by started_at, build_run_id`,
  runItems: `select work_order_id, build_run_id, item_id, quantity from build_run_items where shop_id = ? and work_order_id = any(?::text[]) order by build_run_id, item_id`,
  picks: `select work_order_id, build_run_id, position, stock, variant_id, location_id, quantity, carried_whole, deducted from build_run_picks
           where shop_id = ? and work_order_id = any(?::text[]) order by build_run_id, position`,
  // A review's items ride along as a JSON array (quantities as text, so never through a float).
  qcReviews: `select q.work_order_id, q.review_id, q.build_run_id, q.decision, q.note, q.reviewer_name, q.created_at,
                     coalesce((select json_agg(json_build_object('item_id', i.item_id, 'approved_quantity', i.approved_quantity::text,
                                                                'failed_quantity', i.failed_quantity::text) order by i.item_id)
                                 from qc_review_items i
                                where i.shop_id = q.shop_id and i.work_order_id = q.work_order_id and i.review_id = q.review_id), '[]'::json) as items
                from qc_reviews q where q.shop_id = ? and q.work_order_id = any(?::text[]) order by q.created_at, q.review_id`,
  reworkItems: `select work_order_id, rework_item_id, description, quantity, status, build_run_id, created_at, resolved_at from rework_items
                 where shop_id = ? and work_order_id = any(?::text[]) order by created_at, rework_item_id`,
  documents: `select work_order_id, document_id, name, url, created_at from work_order_documents where shop_id = ? and work_order_id = any(?::text[]) order by created_at, document_id`,
  messages: `select work_order_id, message_id, author_name, body, created_at from work_order_messages where shop_id = ? and work_order_id = any(?::text[]) order by created_at, message_id`,
  lifecycle: `select work_order_id, event_id, from_status, to_status, note, actor_user_id, actor_display_name, created_at from lifecycle_events
               where shop_id = ? and work_order_id = any(?::text[]) order by created_at, event_id`,
};

/**
 * The named parts of many work orders, each part one statement for all of them, all sent at once.
 * Every id asked for is in the map (a missing part is []); rows keep each part's order.
 */
export async function loadPartsOf<K extends PartName>(em: Em, shopId: string, workOrderIds: readonly string[], parts: readonly K[]): Promise<Map<string, Pick<WorkOrderParts, K>>> {
  const out = new Map(workOrderIds.map((id) => [id, Object.fromEntries(parts.map((part) => [part, []])) as unknown as Pick<WorkOrderParts, K>]));
  if (workOrderIds.length === 0) return out;
  const ids = textArrayLiteral([...new Set(workOrderIds)]);
  const rows = await Promise.all(parts.map((part) => em.execute<{ work_order_id: string }[]>(PART_SQL[part], [shopId, ids])));
  parts.forEach((part, i) => {
    for (const { work_order_id: id, ...row } of rows[i]!) (out.get(id)?.[part] as unknown[] | undefined)?.push(row);
  });
  return out;
}

/** The named parts of one work order (loadPartsOf for one). */
export async function loadParts<K extends PartName>(em: Em, shopId: string, workOrderId: string, parts: readonly K[]): Promise<Pick<WorkOrderParts, K>> {
  return (await loadPartsOf(em, shopId, [workOrderId], parts)).get(workOrderId)!;
}

/** The next change token: now, or 1 ms after the current one, so it is strictly increasing. */
export function nextUpdatedAt(current: Date): Date {
  const now = Date.now();
  return new Date(Math.max(now, current.getTime() + 1));
}

export async function touchWorkOrder(em: Em, shopId: string, workOrderId: string, updatedAt: Date, set: Record<string, unknown> = {}): Promise<void> {
  const columns = Object.keys(set);
  await em.execute(
    `update work_orders set ${[...columns.map((c) => `${c} = ?`), 'updated_at = ?'].join(', ')} where shop_id = ? and work_order_id = ?`,
    [...columns.map((c) => set[c]), updatedAt, shopId, workOrderId], 'run',
  );
}

export async function insertLifecycleEvent(em: Em, shopId: string, workOrderId: string, event: Omit<LifecycleRow, 'created_at'> & { created_at: Date }): Promise<void> {
  await em.execute(
    `insert into lifecycle_events (shop_id, work_order_id, event_id, from_status, to_status, note, actor_user_id, actor_display_name, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [shopId, workOrderId, event.event_id, event.from_status, event.to_status, event.note, event.actor_user_id, event.actor_display_name, event.created_at], 'run',
  );
}

export interface NewRun {
  buildRunId: string; shortId: string; runType: BuildRunType; note: string | null; actorUserId: string | null; actorDisplayName: string | null;
  reworkItemIds: string[]; warnings: unknown[]; startedAt: Date;
  items: { itemId: string; quantity: string }[];
  picks: { stock: StockKind; itemId: string; locationId: string; quantity: string; carriedWhole: string; deducted: string }[];
}

/** Writes a started run with its items and picks (three statements). */
export async function insertRun(em: Em, shopId: string, workOrderId: string, run: NewRun): Promise<void> {
  await em.execute(
    `insert into build_runs (shop_id, work_order_id, build_run_id, short_id, status, run_type, note, actor_user_id, actor_display_name, rework_item_ids, warnings, started_at, updated_at)
     values (?, ?, ?, ?, 'started', ?, ?, ?, ?, ?::text[], ?::jsonb, ?, ?)`,
    [shopId, workOrderId, run.buildRunId, run.shortId, run.runType, run.note, run.actorUserId, run.actorDisplayName, textArrayLiteral(run.reworkItemIds),
      JSON.stringify(run.warnings), run.startedAt, run.startedAt], 'run',
  );
  await Promise.all([
    run.items.length === 0 ? null : em.execute(
      `insert into build_run_items (shop_id, work_order_id, build_run_id, item_id, quantity) values ${run.items.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      run.items.flatMap((i) => [shopId, workOrderId, run.buildRunId, i.itemId, i.quantity]), 'run',
    ),
    run.picks.length === 0 ? null : em.execute(
      `insert into build_run_picks (shop_id, work_order_id, build_run_id, position, stock, variant_id, location_id, quantity, carried_whole, deducted)
       values ${run.picks.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      run.picks.flatMap((p, i) => [shopId, workOrderId, run.buildRunId, i, p.stock, p.itemId, p.locationId, p.quantity, p.carriedWhole, p.deducted]), 'run',
    ),
  ]);
}

export async function setRunStatus(em: Em, shopId: string, workOrderId: string, buildRunId: string, status: BuildRunStatus, at: Date): Promise<void> {
  const column = status === 'completed' ? 'completed_at' : status === 'reversed' ? 'reversed_at' : 'started_at';
  await em.execute(
    `update build_runs set status = ?, ${column} = ?, updated_at = ? where shop_id = ? and work_order_id = ? and build_run_id = ?`,
    [status, at, at, shopId, workOrderId, buildRunId], 'run',
  );
}

/** Adds (or, negative, takes back) completed quantities of items. */
export async function addCompletedQuantities(em: Em, shopId: string, workOrderId: string, items: readonly { itemId: string; quantity: string }[]): Promise<void> {
  if (items.length === 0) return;
  await em.execute(
    `update work_order_items i set completed_quantity = i.completed_quantity + v.quantity
       from unnest(?::text[], ?::numeric[]) as v(item_id, quantity)
      where i.shop_id = ? and i.work_order_id = ? and i.item_id = v.item_id`,
    [textArrayLiteral(items.map((i) => i.itemId)), textArrayLiteral(items.map((i) => i.quantity)), shopId, workOrderId], 'run',
  );
}

/** Facts the transition blockers are judged on, one statement. */
export async function transitionFacts(em: Em, shopId: string, workOrderId: string): Promise<{ items: number; liveRuns: number; startedRuns: number; openRework: number }> {
  const [row] = await em.execute<{ items: string; live_runs: string; started_runs: string; open_rework: string }[]>(
    `select (select count(*) from work_order_items where shop_id = ? and work_order_id = ?) as items,
            (select count(*) from build_runs where shop_id = ? and work_order_id = ? and status <> 'reversed') as live_runs,
            (select count(*) from build_runs where shop_id = ? and work_order_id = ? and status = 'started') as started_runs,
            (select count(*) from rework_items where shop_id = ? and work_order_id = ? and status = 'open') as open_rework`,
    [shopId, workOrderId, shopId, workOrderId, shopId, workOrderId, shopId, workOrderId],
  );
  return { items: Number(row!.items), liveRuns: Number(row!.live_runs), startedRuns: Number(row!.started_runs), openRework: Number(row!.open_rework) };
}

// ---- Creating work orders and their records -------------------------------------------------

/**
 * The next short-id number of the shop, under a transaction-scoped advisory lock per shop: two
 * creates in parallel wait for each other here, so neither takes a number the other took.
 * Two statements (the lock must be held before the snapshot that reads the maximum is taken).
 */
export async function nextShortIdNumber(em: Em, shopId: string): Promise<number> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`bomcore:work-order-short-id:${shopId}`]);
  const [row] = await em.execute<{ n: string | null }[]>(
    `select max(substring(short_id from 4)::bigint) as n from work_orders where shop_id = ? and short_id ~ '^WO-[0-9]+$'`, [shopId]);
  return Number(row?.n ?? 0) + 1;
}

export interface NewWorkOrder {
  workOrderId: string; shortId: string; name: string; description: string | null; notes: string | null; status: WorkOrderStatus;
  priority: WorkOrderPriority; dueDate: string | null; assigneeId: string | null; productionLocationId: string | null;
  defaultConsumptionLocationId: string | null; sourceType: WorkOrderSourceType; sourceFlowId: string | null; sourceTodoId: string | null;
  sourceOrderIds: string[]; tags: string[]; plannedLaborCost: string | null; actualLaborCost: string | null; createdAt: Date;
  items: { itemId: string; ownerType: BillOwnerType; ownerId: string; quantity: string }[];
  manualMaterials: { variantId: string; quantity: string; locationId: string | null; note: string | null }[];
}

/** Writes a new work order with its items and manual materials: three statements whatever their number. */
export async function insertWorkOrder(em: Em, shopId: string, wo: NewWorkOrder): Promise<void> {
  await em.execute(
    `insert into work_orders (shop_id, work_order_id, short_id, name, description, notes, status, priority, due_date, assignee_id,
       production_location_id, default_consumption_location_id, source_type, source_flow_id, source_todo_id, source_order_ids, tags,
       planned_labor_cost, actual_labor_cost, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?::text[], ?, ?, ?, ?)`,
    [shopId, wo.workOrderId, wo.shortId, wo.name, wo.description, wo.notes, wo.status, wo.priority, wo.dueDate, wo.assigneeId,
      wo.productionLocationId, wo.defaultConsumptionLocationId, wo.sourceType, wo.sourceFlowId, wo.sourceTodoId, textArrayLiteral(wo.sourceOrderIds),
      textArrayLiteral(wo.tags), wo.plannedLaborCost, wo.actualLaborCost, wo.createdAt, wo.createdAt], 'run',
  );
  await Promise.all([
    wo.items.length === 0 ? null : em.execute(
      `insert into work_order_items (shop_id, work_order_id, item_id, position, owner_type, owner_id, quantity, completed_quantity)
       values ${wo.items.map(() => "(?, ?, ?, ?, ?, ?, ?, '0')").join(', ')}`,
      wo.items.flatMap((i, k) => [shopId, wo.workOrderId, i.itemId, k, i.ownerType, i.ownerId, i.quantity]), 'run',
    ),
    wo.manualMaterials.length === 0 ? null : em.execute(
      `insert into work_order_manual_materials (shop_id, work_order_id, position, variant_id, quantity, location_id, note)
       values ${wo.manualMaterials.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      wo.manualMaterials.flatMap((m, k) => [shopId, wo.workOrderId, k, m.variantId, m.quantity, m.locationId, m.note]), 'run',
    ),
  ]);
}

export async function insertQcReview(em: Em, shopId: string, workOrderId: string, review: QcRow): Promise<void> {
  await em.execute(
    `insert into qc_reviews (shop_id, work_order_id, review_id, build_run_id, decision, note, reviewer_name, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [shopId, workOrderId, review.review_id, review.build_run_id, review.decision, review.note, review.reviewer_name, review.created_at], 'run',
  );
  if (review.items.length === 0) return;
  await em.execute(
    `insert into qc_review_items (shop_id, work_order_id, review_id, item_id, approved_quantity, failed_quantity)
     values ${review.items.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
    review.items.flatMap((i) => [shopId, workOrderId, review.review_id, i.item_id, i.approved_quantity, i.failed_quantity]), 'run',
  );
}

export async function insertReworkItem(em: Em, shopId: string, workOrderId: string, item: ReworkRow): Promise<void> {
  await em.execute(
    `insert into rework_items (shop_id, work_order_id, rework_item_id, description, quantity, status, build_run_id, created_at, resolved_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [shopId, workOrderId, item.rework_item_id, item.description, item.quantity, item.status, item.build_run_id, item.created_at, item.resolved_at], 'run',
  );
}

/** Marks an open rework item resolved; false when it was not open (already resolved or unknown). */
export async function resolveReworkItemRow(em: Em, shopId: string, workOrderId: string, reworkItemId: string, at: Date): Promise<boolean> {
  const rows = await em.execute<{ rework_item_id: string }[]>(
    `update rework_items set status = 'resolved', resolved_at = ? where shop_id = ? and work_order_id = ? and rework_item_id = ? and status = 'open'
     returning rework_item_id`,
    [at, shopId, workOrderId, reworkItemId],
  );
  return rows.length > 0;
}

export async function insertDocument(em: Em, shopId: string, workOrderId: string, doc: DocumentRow): Promise<void> {
  await em.execute(
    'insert into work_order_documents (shop_id, work_order_id, document_id, name, url, created_at) values (?, ?, ?, ?, ?, ?)',
    [shopId, workOrderId, doc.document_id, doc.name, doc.url, doc.created_at], 'run',
  );
}

export async function insertMessage(em: Em, shopId: string, workOrderId: string, message: MessageRow): Promise<void> {
  await em.execute(
    'insert into work_order_messages (shop_id, work_order_id, message_id, author_name, body, created_at) values (?, ?, ?, ?, ?, ?)',
    [shopId, workOrderId, message.message_id, message.author_name, message.body, message.created_at], 'run',
  );
}
