import { sql, type InferResult, type RawBuilder, type Insertable as Inserted, type QueryCreator, type Selectable, type SqlBool } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { preparedSql, runSql } from '../../db/typed-sql.ts';
import { assigneesAs } from '../people/for-work-orders.ts';
import { assemblyBillsAs, bomsAs } from '../boms/for-work-orders.ts';
import type { BillOwnerType } from '../boms/recipe-vocabulary.ts';
import type { StockKind } from '../stock/stock-vocabulary.ts';
import { workOrdersSql, type WorkOrdersTables } from './tables.ts';
import type { BuildRunStatus, BuildRunType, WorkOrderPriority, WorkOrderSourceType, WorkOrderStatus } from './work-order-vocabulary.ts';

// The one reader and writer of the work-order tables (work orders, items, manual materials,
// build runs with items and picks, reviews, rework, documents, messages, lifecycle events).
// Typed queries (tables.ts), rows typed by them; a constant number of round trips per call.

/** Work orders `w` with their assignee `a` (the people module's table, by its reference). */
export const headerFrom = (db: QueryCreator<WorkOrdersTables> = workOrdersSql) => db.selectFrom('work_orders as w')
  .leftJoin(assigneesAs('a'), (j) => j.onRef('a.shop_id', '=', 'w.shop_id').onRef('a.assignee_id', '=', 'w.assignee_id'));

/** The header columns over `headerFrom`, named as the API names the fields. */
export const selectHeader = (query: ReturnType<typeof headerFrom>) => query.select([
  'w.work_order_id as workOrderId', 'w.short_id as shortId', 'w.name', 'w.description', 'w.notes', 'w.status', 'w.priority',
  sql<string | null>`to_char(w.due_date, 'YYYY-MM-DD')`.as('dueDate'), 'w.assignee_id as assigneeId', 'a.display_name as assigneeName',
  'a.active as assigneeActive', 'w.production_location_id as productionLocationId', 'w.default_consumption_location_id as defaultConsumptionLocationId',
  'w.source_type as sourceType', 'w.source_flow_id as sourceFlowId', 'w.source_todo_id as sourceTodoId', 'w.source_order_ids as sourceOrderIds', 'w.tags',
  'w.planned_labor_cost as plannedLaborCost', 'w.actual_labor_cost as actualLaborCost', 'w.created_at as createdAt', 'w.updated_at as updatedAt',
]);

/** A work order's header as its queries read it. */
export type WorkOrderHeader = InferResult<ReturnType<typeof selectHeader>>[number];

/** The header, or null. `forUpdate` locks the work-order row until the transaction ends. */
export async function findWorkOrder(em: Em, shopId: string, workOrderId: string, forUpdate = false): Promise<WorkOrderHeader | null> {
  const query = selectHeader(headerFrom()).where('w.shop_id', '=', shopId).where('w.work_order_id', '=', workOrderId);
  const [row] = await runSql(em, forUpdate ? query.forUpdate('w') : query);
  return row ? normaliseHeader(row) : null;
}

/** The headers of the work orders that exist among `workOrderIds` (any order). */
export async function findWorkOrders(em: Em, shopId: string, workOrderIds: readonly string[]): Promise<WorkOrderHeader[]> {
  if (workOrderIds.length === 0) return [];
  const rows = await runSql(em, selectHeader(headerFrom()).where('w.shop_id', '=', shopId).where(anyWorkOrder('w.work_order_id', workOrderIds)));
  return rows.map(normaliseHeader);
}

/** Timestamps as Dates and arrays never null, whichever driver read the row. */
export function normaliseHeader<R extends Pick<WorkOrderHeader, 'createdAt' | 'updatedAt' | 'sourceOrderIds' | 'tags'>>(row: R): R {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt), sourceOrderIds: row.sourceOrderIds ?? [], tags: row.tags ?? [] };
}

/** `column = any(<ids>::text[])`: one parameter whatever the number of ids (given as ids, or as their text[] literal). */
const anyWorkOrder = (column: string, workOrderIds: readonly string[] | string) =>
  sql<SqlBool>`${sql.ref(column)} = any(${typeof workOrderIds === 'string' ? workOrderIds : textArrayLiteral([...new Set(workOrderIds)])}::text[])`;

type Insertable<T extends keyof WorkOrdersTables> = Inserted<WorkOrdersTables[T]>;

/** One statement per part, for all the work orders asked for (`= any(ids)`), each in its part's order. */
const PART_QUERIES = {
  items: (shopId: string, ids: string) => workOrdersSql.selectFrom('work_order_items as i')
    .leftJoin(bomsAs('b'), (j) => j.on(sql<SqlBool>`i.owner_type = 'bom'`).onRef('b.shop_id', '=', 'i.shop_id').onRef('b.bom_id', '=', 'i.owner_id'))
    .leftJoin(assemblyBillsAs('x'), (j) => j.on(sql<SqlBool>`i.owner_type = 'sub_assembly'`).onRef('x.shop_id', '=', 'i.shop_id').onRef('x.assembly_id', '=', 'i.owner_id'))
    .select((eb) => ['i.work_order_id', 'i.item_id', 'i.position', 'i.owner_type', 'i.owner_id', eb.fn.coalesce('b.name', 'x.name').as('name'), 'i.quantity', 'i.completed_quantity'])
    .where('i.shop_id', '=', shopId).where(anyWorkOrder('i.work_order_id', ids)).orderBy('i.position'),
  manual: (shopId: string, ids: string) => workOrdersSql.selectFrom('work_order_manual_materials')
    .select(['work_order_id', 'position', 'variant_id', 'quantity', 'location_id', 'note'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('position'),
  runs: (shopId: string, ids: string) => workOrdersSql.selectFrom('build_runs')
    .select(['work_order_id', 'build_run_id', 'short_id', 'status', 'run_type', 'note', 'actor_user_id', 'actor_display_name', 'rework_item_ids', 'warnings',
      'started_at', 'completed_at', 'reversed_at', 'updated_at'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('started_at').orderBy('build_run_id'),
  // The runs as a start needs them (which ids exist, how many, which count as started units):
  // not their notes and warnings, which grow with every run and only a replay returns.
  runKeys: (shopId: string, ids: string) => workOrdersSql.selectFrom('build_runs')
    .select(['work_order_id', 'build_run_id', 'status', 'run_type'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('started_at').orderBy('build_run_id'),
  runItems: (shopId: string, ids: string) => workOrdersSql.selectFrom('build_run_items')
    .select(['work_order_id', 'build_run_id', 'item_id', 'quantity'])
    // Item ids in byte order (collate "C"), on every database and as a run's start lists them.
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('build_run_id').orderBy(sql`item_id collate "C"`),
  picks: (shopId: string, ids: string) => workOrdersSql.selectFrom('build_run_picks')
    .select(['work_order_id', 'build_run_id', 'position', 'stock', 'variant_id', 'location_id', 'quantity', 'carried_whole', 'deducted'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('build_run_id').orderBy('position'),
  // A review's items ride along as a JSON array (quantities as text, so never through a float).
  qcReviews: (shopId: string, ids: string) => workOrdersSql.selectFrom('qc_reviews as q')
    .select((eb) => ['q.work_order_id', 'q.review_id', 'q.build_run_id', 'q.decision', 'q.note', 'q.reviewer_name', 'q.created_at',
      sql<QcReviewItemPart[]>`coalesce((${eb.selectFrom('qc_review_items as i')
        .select(sql`json_agg(json_build_object('item_id', i.item_id, 'approved_quantity', i.approved_quantity::text,
                                               'failed_quantity', i.failed_quantity::text) order by i.item_id)`.as('items'))
        .whereRef('i.shop_id', '=', 'q.shop_id').whereRef('i.work_order_id', '=', 'q.work_order_id').whereRef('i.review_id', '=', 'q.review_id')}), '[]'::json)`.as('items')])
    .where('q.shop_id', '=', shopId).where(anyWorkOrder('q.work_order_id', ids)).orderBy('q.created_at').orderBy('q.review_id'),
  reworkItems: (shopId: string, ids: string) => workOrdersSql.selectFrom('rework_items')
    .select(['work_order_id', 'rework_item_id', 'description', 'quantity', 'status', 'build_run_id', 'created_at', 'resolved_at'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('created_at').orderBy('rework_item_id'),
  documents: (shopId: string, ids: string) => workOrdersSql.selectFrom('work_order_documents')
    .select(['work_order_id', 'document_id', 'name', 'url', 'created_at'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('created_at').orderBy('document_id'),
  messages: (shopId: string, ids: string) => workOrdersSql.selectFrom('work_order_messages')
    .select(['work_order_id', 'message_id', 'author_name', 'body', 'created_at'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('created_at').orderBy('message_id'),
  lifecycle: (shopId: string, ids: string) => workOrdersSql.selectFrom('lifecycle_events')
    .select(['work_order_id', 'event_id', 'from_status', 'to_status', 'note', 'actor_user_id', 'actor_display_name', 'created_at'])
    .where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids)).orderBy('created_at').orderBy('event_id'),
};

type PartName = keyof typeof PART_QUERIES;

/**
 * The bills the items of some work orders name (the text[] literal `ids`): the seed of their recipe
 * walk (boms' seededForestLoader), so it is read beside the work orders' own parts.
 */
export const itemBillsOf = (shopId: string, ids: string) => workOrdersSql.selectFrom('work_order_items')
  .select(['owner_type', 'owner_id']).where('shop_id', '=', shopId).where(anyWorkOrder('work_order_id', ids));

/**
 * The parts named (comma-separated) of the work orders whose ids are the text[] literal `ids`, each
 * part a JSON array as text; built once per list of parts (preparedSql). A sorted subquery feeds
 * json_agg in its order (no join or grouping above it reorders it).
 */
const partsStatement = preparedSql((parts: string, shopId: string, ids: string) => workOrdersSql.selectNoFrom((parts.split(',') as PartName[]).map((part) =>
  sql<string>`(select coalesce(json_agg(p), '[]'::json)::text from (${PART_QUERIES[part](shopId, ids)}) as p)`.as(part))));
/** A row of a part, as its query reads it (without the work order it belongs to). */
type PartRow<K extends PartName> = Omit<InferResult<ReturnType<(typeof PART_QUERIES)[K]>>[number], 'work_order_id'>;

/** What a QC review judged of one item of its run (exact decimals as text, from the JSON the review query builds). */
export type QcReviewItemPart = Pick<Selectable<WorkOrdersTables['qc_review_items']>, 'item_id' | 'approved_quantity' | 'failed_quantity'>;

export type WorkOrderParts = { [K in PartName]: PartRow<K>[] };
export type ItemPart = PartRow<'items'>;
export type ManualPart = PartRow<'manual'>;
export type RunPart = PartRow<'runs'>;
export type RunKeyPart = PartRow<'runKeys'>;
export type RunItemPart = PartRow<'runItems'>;
export type PickPart = PartRow<'picks'>;
export type QcReviewPart = PartRow<'qcReviews'>;
export type ReworkPart = PartRow<'reworkItems'>;
export type DocumentPart = PartRow<'documents'>;
export type MessagePart = PartRow<'messages'>;
export type LifecyclePart = PartRow<'lifecycle'>;

/**
 * The named parts of many work orders in one statement: each part's query (its own order) becomes
 * a JSON array, sent as text and read by `readPartRows`. Every id asked for is in the map (a missing
 * part is []); rows keep each part's order.
 */
export async function loadPartsOf<K extends PartName>(em: Em, shopId: string, workOrderIds: readonly string[], parts: readonly K[]): Promise<Map<string, Pick<WorkOrderParts, K>>> {
  const out = new Map(workOrderIds.map((id) => [id, Object.fromEntries(parts.map((part) => [part, []])) as unknown as Pick<WorkOrderParts, K>]));
  if (workOrderIds.length === 0 || parts.length === 0) return out;
  const [row] = await runSql(em, partsStatement(parts.join(','), shopId, textArrayLiteral([...new Set(workOrderIds)])));
  for (const part of parts) {
    for (const { work_order_id: id, ...rest } of readPartRows((row as Record<string, string>)[part]!)) (out.get(id)?.[part] as unknown[] | undefined)?.push(rest);
  }
  return out;
}

/**
 * Rows of a part from its JSON text, as the driver would give them: a number with a fraction (every
 * stored quantity and amount: numeric(20,6) is always written with its six places) stays its exact
 * text, a whole number (a position) is a number, a timestamp column (`…_at`) is a Date.
 */
function readPartRows(text: string): ({ work_order_id: string } & Record<string, unknown>)[] {
  const reviver = (key: string, value: unknown, context?: { source?: string }) => {
    if (typeof value === 'number' && context?.source !== undefined && /[.eE]/.test(context.source)) return context.source;
    if (typeof value === 'string' && key.endsWith('_at')) return new Date(value);
    return value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown) as ({ work_order_id: string } & Record<string, unknown>)[];
}

/**
 * Locks a work order's row and reads its header with one more value the caller's statement needs
 * (e.g. the shop's settings), in one statement; null when the shop has no such work order. Parts
 * are read after it (`loadParts`): a statement that waited for the lock sees the row as the other
 * writer left it, but its subqueries would still see the data from before.
 */
export async function lockWorkOrderWith(em: Em, shopId: string, workOrderId: string, extra: RawBuilder<unknown>): Promise<{ header: WorkOrderHeader; extra: unknown } | null> {
  const query = selectHeader(headerFrom()).select(extra.as('extra')).where('w.shop_id', '=', shopId).where('w.work_order_id', '=', workOrderId).forUpdate('w');
  const [row] = await runSql(em, query);
  if (!row) return null;
  const { extra: value, ...header } = row;
  return { header: normaliseHeader(header), extra: value };
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

/** Header columns a write may set beside the change token. */
export type WorkOrderChange = Partial<Omit<Insertable<'work_orders'>, 'shop_id' | 'work_order_id' | 'updated_at'>>;

export async function touchWorkOrder(em: Em, shopId: string, workOrderId: string, updatedAt: Date, set: WorkOrderChange = {}): Promise<void> {
  await runSql(em, workOrdersSql.updateTable('work_orders').set({ ...set, updated_at: updatedAt })
    .where('shop_id', '=', shopId).where('work_order_id', '=', workOrderId));
}

export async function insertLifecycleEvent(em: Em, shopId: string, workOrderId: string, event: LifecyclePart): Promise<void> {
  await runSql(em, workOrdersSql.insertInto('lifecycle_events').values({ shop_id: shopId, work_order_id: workOrderId, ...event }));
}

export interface NewRun {
  buildRunId: string; shortId: string; runType: BuildRunType; note: string | null; actorUserId: string | null; actorDisplayName: string | null;
  reworkItemIds: string[]; warnings: unknown[]; startedAt: Date;
  items: { itemId: string; quantity: string }[];
  picks: { stock: StockKind; itemId: string; locationId: string; quantity: string; carriedWhole: string; deducted: string }[];
}

/**
 * Writes a started run with its items and picks and moves the work order's change token to the
 * run's start: one statement (data-modifying CTEs), whatever the number of items and picks. Returns
 * the run's rows as the parts queries read them (items in item-id order, picks in position order),
 * so the caller builds the run's view without reading it back.
 */
export async function insertRun(em: Em, shopId: string, workOrderId: string, run: NewRun): Promise<{ run: RunPart; items: RunItemPart[]; picks: PickPart[] }> {
  const row: RunPart = {
    build_run_id: run.buildRunId, short_id: run.shortId, status: 'started', run_type: run.runType, note: run.note, actor_user_id: run.actorUserId,
    actor_display_name: run.actorDisplayName, rework_item_ids: run.reworkItemIds, warnings: run.warnings as RunPart['warnings'],
    started_at: run.startedAt, completed_at: null, reversed_at: null, updated_at: run.startedAt,
  };
  const items: RunItemPart[] = run.items.map((i) => ({ build_run_id: run.buildRunId, item_id: i.itemId, quantity: i.quantity }))
    .sort((a, b) => (a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : 0));
  const picks: PickPart[] = run.picks.map((p, i) => ({
    build_run_id: run.buildRunId, position: i, stock: p.stock, variant_id: p.itemId, location_id: p.locationId, quantity: p.quantity,
    carried_whole: p.carriedWhole, deducted: p.deducted,
  }));
  let query = workOrdersSql.with('run', (db) => db.insertInto('build_runs').values({
    shop_id: shopId, work_order_id: workOrderId, build_run_id: row.build_run_id, short_id: row.short_id, status: sql.lit('started'), run_type: row.run_type,
    note: row.note, actor_user_id: row.actor_user_id, actor_display_name: row.actor_display_name,
    rework_item_ids: sql<string[]>`${textArrayLiteral(run.reworkItemIds)}::text[]`, warnings: sql`${JSON.stringify(run.warnings)}::jsonb`,
    started_at: run.startedAt, updated_at: run.startedAt,
  }).returning('build_run_id'));
  if (items.length > 0) {
    query = query.with('run_items', (db) => db.insertInto('build_run_items').values(items.map((i) => ({
      shop_id: shopId, work_order_id: workOrderId, build_run_id: i.build_run_id, item_id: i.item_id, quantity: i.quantity,
    }))).returning('item_id')) as unknown as typeof query;
  }
  if (picks.length > 0) {
    query = query.with('run_picks', (db) => db.insertInto('build_run_picks').values(picks.map((p) => ({
      shop_id: shopId, work_order_id: workOrderId, ...p,
    }))).returning('position')) as unknown as typeof query;
  }
  await runSql(em, query.updateTable('work_orders').set({ updated_at: run.startedAt })
    .where('shop_id', '=', shopId).where('work_order_id', '=', workOrderId));
  return { run: row, items, picks };
}

export async function setRunStatus(em: Em, shopId: string, workOrderId: string, buildRunId: string, status: BuildRunStatus, at: Date): Promise<void> {
  const column = status === 'completed' ? 'completed_at' : status === 'reversed' ? 'reversed_at' : 'started_at';
  await runSql(em, workOrdersSql.updateTable('build_runs').set({ status, [column]: at, updated_at: at })
    .where('shop_id', '=', shopId).where('work_order_id', '=', workOrderId).where('build_run_id', '=', buildRunId));
}

/** Adds (or, negative, takes back) completed quantities of items. */
export async function addCompletedQuantities(em: Em, shopId: string, workOrderId: string, items: readonly { itemId: string; quantity: string }[]): Promise<void> {
  if (items.length === 0) return;
  const v = sql<{ item_id: string; quantity: string }>`unnest(${textArrayLiteral(items.map((i) => i.itemId))}::text[], ${textArrayLiteral(items.map((i) => i.quantity))}::numeric[])`
    .as<'v'>(sql`v(item_id, quantity)`);
  await runSql(em, workOrdersSql.updateTable('work_order_items as i').from(v)
    .set({ completed_quantity: sql`i.completed_quantity + v.quantity` })
    .where('i.shop_id', '=', shopId).where('i.work_order_id', '=', workOrderId).where(sql<SqlBool>`i.item_id = v.item_id`));
}

/** Facts the transition blockers are judged on, one statement. */
export async function transitionFacts(em: Em, shopId: string, workOrderId: string): Promise<{ items: number; liveRuns: number; startedRuns: number; openRework: number }> {
  const count = (table: 'work_order_items' | 'build_runs' | 'rework_items', more?: ReturnType<typeof sql<SqlBool>>) => {
    const query = workOrdersSql.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('shop_id', '=', shopId).where('work_order_id', '=', workOrderId);
    return more ? query.where(more) : query;
  };
  const [row] = await runSql(em, workOrdersSql.selectNoFrom([
    count('work_order_items').as('items'),
    count('build_runs', sql<SqlBool>`status <> 'reversed'`).as('live_runs'),
    count('build_runs', sql<SqlBool>`status = 'started'`).as('started_runs'),
    count('rework_items', sql<SqlBool>`status = 'open'`).as('open_rework'),
  ]));
  return { items: Number(row!.items), liveRuns: Number(row!.live_runs), startedRuns: Number(row!.started_runs), openRework: Number(row!.open_rework) };
}

// ---- Creating work orders and their records -------------------------------------------------

/**
 * The next short-id number of the shop, under a transaction-scoped advisory lock per shop: two
 * creates in parallel wait for each other here, so neither takes a number the other took.
 * Two statements (the lock must be held before the snapshot that reads the maximum is taken).
 */
export async function nextShortIdNumber(em: Em, shopId: string): Promise<number> {
  await runSql(em, workOrdersSql.selectNoFrom(sql`pg_advisory_xact_lock(hashtextextended(${`bomcore:work-order-short-id:${shopId}`}, 0))`.as('locked')));
  const [row] = await runSql(em, workOrdersSql.selectFrom('work_orders')
    .select(sql<string | null>`max(substring(short_id from 4)::bigint)`.as('n'))
    .where('shop_id', '=', shopId).where(sql<SqlBool>`short_id ~ '^WO-[0-9]+$'`));
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
  await runSql(em, workOrdersSql.insertInto('work_orders').values({
    shop_id: shopId, work_order_id: wo.workOrderId, short_id: wo.shortId, name: wo.name, description: wo.description, notes: wo.notes, status: wo.status,
    priority: wo.priority, due_date: wo.dueDate, assignee_id: wo.assigneeId, production_location_id: wo.productionLocationId,
    default_consumption_location_id: wo.defaultConsumptionLocationId, source_type: wo.sourceType, source_flow_id: wo.sourceFlowId,
    source_todo_id: wo.sourceTodoId, source_order_ids: sql<string[]>`${textArrayLiteral(wo.sourceOrderIds)}::text[]`,
    tags: sql<string[]>`${textArrayLiteral(wo.tags)}::text[]`, planned_labor_cost: wo.plannedLaborCost, actual_labor_cost: wo.actualLaborCost,
    created_at: wo.createdAt, updated_at: wo.createdAt,
  }));
  await Promise.all([
    wo.items.length === 0 ? null : runSql(em, workOrdersSql.insertInto('work_order_items').values(wo.items.map((i, k) => ({
      shop_id: shopId, work_order_id: wo.workOrderId, item_id: i.itemId, position: k, owner_type: i.ownerType, owner_id: i.ownerId,
      quantity: i.quantity, completed_quantity: sql.lit('0'),
    })))),
    wo.manualMaterials.length === 0 ? null : runSql(em, workOrdersSql.insertInto('work_order_manual_materials').values(wo.manualMaterials.map((m, k) => ({
      shop_id: shopId, work_order_id: wo.workOrderId, position: k, variant_id: m.variantId, quantity: m.quantity, location_id: m.locationId, note: m.note,
    })))),
  ]);
}

export async function insertQcReview(em: Em, shopId: string, workOrderId: string, review: QcReviewPart): Promise<void> {
  const { items, ...row } = review;
  await runSql(em, workOrdersSql.insertInto('qc_reviews').values({ shop_id: shopId, work_order_id: workOrderId, ...row }));
  if (items.length === 0) return;
  await runSql(em, workOrdersSql.insertInto('qc_review_items').values(items.map((i) => ({
    shop_id: shopId, work_order_id: workOrderId, review_id: review.review_id, ...i,
  }))));
}

export async function insertReworkItem(em: Em, shopId: string, workOrderId: string, item: ReworkPart): Promise<void> {
  await runSql(em, workOrdersSql.insertInto('rework_items').values({ shop_id: shopId, work_order_id: workOrderId, ...item }));
}

/** Marks an open rework item resolved; false when it was not open (already resolved or unknown). */
export async function resolveReworkItemRow(em: Em, shopId: string, workOrderId: string, reworkItemId: string, at: Date): Promise<boolean> {
  const rows = await runSql(em, workOrdersSql.updateTable('rework_items').set({ status: 'resolved', resolved_at: at })
    .where('shop_id', '=', shopId).where('work_order_id', '=', workOrderId).where('rework_item_id', '=', reworkItemId).where('status', '=', 'open')
    .returning('rework_item_id'));
  return rows.length > 0;
}

export async function insertDocument(em: Em, shopId: string, workOrderId: string, doc: DocumentPart): Promise<void> {
  await runSql(em, workOrdersSql.insertInto('work_order_documents').values({ shop_id: shopId, work_order_id: workOrderId, ...doc }));
}

export async function insertMessage(em: Em, shopId: string, workOrderId: string, message: MessagePart): Promise<void> {
  await runSql(em, workOrdersSql.insertInto('work_order_messages').values({ shop_id: shopId, work_order_id: workOrderId, ...message }));
}
