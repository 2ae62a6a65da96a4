import { bulkInsert } from '../db/bulk-insert.ts';
import type { Em } from '../db/orm.ts';
import { textArrayLiteral } from '../db/sql-arrays.ts';
import type { BillOwnerType } from '../modules/boms/recipe-vocabulary.ts';
import { buildRunShortId, workOrderShortId } from '../modules/work-orders/short-ids.ts';
import type { SectionName } from './dataset-check.ts';
import type {
  Dataset, DatasetAssemblyBill, DatasetAssignee, DatasetBillVersion, DatasetBom, DatasetCostFactor, DatasetFlow, DatasetLocation,
  DatasetLocationRule, DatasetMaterial, DatasetOrder, DatasetPreassembled, DatasetRecipe, DatasetReservation, DatasetResidual,
  DatasetQcReview, DatasetQcReviewItem, DatasetTask, DatasetVariant, DatasetWorkOrder,
} from './types.ts';

export { textArrayLiteral };

// A dataset becomes table rows one element at a time, and rows go to the database in batches of
// bounded size: a load holds at most one batch per table, whatever the size of the file.

/** Columns of each dataset table, after shop_id (which every row starts with). */
export const TABLE_COLUMNS = {
  platform_locations: ['location_id', 'name'],
  platform_variants: ['variant_id', 'product_id', 'inventory_item_id', 'product_name', 'variant_name', 'sku', 'vendor', 'price', 'cost', 'image_url',
    'product_type', 'product_category', 'weight_value', 'weight_unit_id'],
  platform_levels: ['variant_id', 'location_id', 'available'],
  platform_orders: ['order_id', 'name'],
  platform_order_lines: ['order_id', 'position', 'variant_id', 'product_id', 'sku', 'title', 'quantity'],
  materials: ['variant_id', 'origin', 'product_id', 'inventory_item_id', 'product_name', 'variant_name', 'sku', 'vendor', 'unit', 'unit_cost', 'unit_price',
    'specifications', 'image_url', 'is_non_essential_material', 'weight_value', 'weight_unit_id', 'product_type', 'product_category', 'cached_quantity',
    'updated_at', 'archived_at', 'lead_time_days', 'minimum_order_quantity', 'order_multiple'],
  // Platform-linked materials: the material's own fields; the catalogue fields are copied from the
  // platform variant by the database (see PLATFORM_MATERIALS_SQL).
  'materials:platform': ['variant_id', 'unit', 'specifications', 'is_non_essential_material', 'cached_quantity', 'updated_at', 'archived_at',
    'lead_time_days', 'minimum_order_quantity', 'order_multiple'],
  material_levels: ['variant_id', 'location_id', 'available'],
  cost_factors: ['cost_factor_id', 'name', 'kind', 'unit', 'unit_cost', 'archived_at'],
  assembly_bills: ['assembly_id', 'name', 'only_consume_preassembled', 'archived_at', 'lead_time_days'],
  boms: ['bom_id', 'name', 'status', 'variant_id', 'archived_at', 'storefront_stock', 'lead_time_days'],
  recipe_lines: ['owner_type', 'owner_id', 'line_type', 'position', 'node_id', 'quantity', 'waste_percentage'],
  location_rules: ['owner_type', 'owner_id', 'location_id'],
  location_rule_overrides: ['owner_type', 'owner_id', 'location_id', 'position', 'action', 'node_id', 'replacement_node_id', 'quantity', 'waste_percentage'],
  bill_versions: ['owner_type', 'owner_id', 'version', 'state', 'saved_at', 'saved_by', 'trigger', 'content_hash', 'changed_recipe_fields',
    'changed_materials', 'changed_location_rules', 'changed_overrides'],
  preassembled_stock: ['item_id', 'location_id', 'quantity'],
  residuals: ['item_id', 'location_id', 'kind', 'quantity'],
  reservations: ['reservation_id', 'kind', 'item_id', 'location_id', 'order_id', 'owner_type', 'owner_id', 'quantity', 'fulfilled_quantity', 'active'],
  assignees: ['assignee_id', 'display_name', 'active'],
  flows: ['flow_id', 'name'],
  tasks: ['task_id', 'title'],
  work_orders: ['work_order_id', 'short_id', 'name', 'description', 'notes', 'status', 'priority', 'due_date', 'assignee_id', 'production_location_id',
    'default_consumption_location_id', 'source_type', 'source_flow_id', 'source_todo_id', 'source_order_ids', 'tags', 'planned_labor_cost',
    'actual_labor_cost', 'created_at', 'updated_at'],
  work_order_items: ['work_order_id', 'item_id', 'position', 'owner_type', 'owner_id', 'quantity', 'completed_quantity'],
  work_order_manual_materials: ['work_order_id', 'position', 'variant_id', 'quantity', 'location_id', 'note'],
  build_runs: ['work_order_id', 'build_run_id', 'short_id', 'status', 'run_type', 'note', 'started_at', 'completed_at', 'updated_at'],
  build_run_items: ['work_order_id', 'build_run_id', 'item_id', 'quantity'],
  build_run_picks: ['work_order_id', 'build_run_id', 'position', 'stock', 'variant_id', 'location_id', 'quantity'],
  qc_reviews: ['work_order_id', 'review_id', 'build_run_id', 'decision', 'note', 'reviewer_name', 'created_at'],
  qc_review_items: ['work_order_id', 'review_id', 'item_id', 'approved_quantity', 'failed_quantity'],
  rework_items: ['work_order_id', 'rework_item_id', 'description', 'quantity', 'status', 'build_run_id', 'created_at', 'resolved_at'],
  work_order_documents: ['work_order_id', 'document_id', 'name', 'url', 'created_at'],
  work_order_messages: ['work_order_id', 'message_id', 'author_name', 'body', 'created_at'],
  lifecycle_events: ['work_order_id', 'event_id', 'from_status', 'to_status', 'note', 'actor_user_id', 'actor_display_name', 'created_at'],
} as const satisfies Record<string, readonly string[]>;

export type RowTarget = keyof typeof TABLE_COLUMNS;

/** The database table a row target writes. */
export const tableOf = (target: RowTarget): string => (target === 'materials:platform' ? 'materials' : target);

/**
 * At most this many values per INSERT statement (rows × columns): about 100 kB of SQL, which V8
 * mostly allocates among short-lived objects rather than as large objects that only a full
 * garbage collection frees. Bigger statements made the load neither faster nor leaner.
 */
export const VALUES_PER_BATCH = 5_000;

/** Rows of at most this many per batch for a target (the bound a load holds per table). */
export const rowsPerBatch = (target: RowTarget): number => Math.max(1, Math.floor(VALUES_PER_BATCH / (TABLE_COLUMNS[target].length + 1)));

/** Rows of one table, ready for one INSERT; every row starts with shop_id. */
export interface RowBatch {
  target: RowTarget;
  rows: unknown[][];
}

/** What turning elements into rows needs beyond the element itself. */
export interface RowContext {
  shopId: string;
  /** updated_at of the materials written by this load. */
  loadedAt: Date;
  /** Short ids of the work orders (see {@link workOrderShortIds}). */
  workOrderShortIds: ReadonlyMap<string, string>;
  /** cachedQuantity of platform-linked materials that omitted it (a streamed file's elements are not filled in). */
  cachedQuantityDefaults: ReadonlyMap<string, string>;
}

type Emit = (target: RowTarget, row: unknown[]) => void;
type Owner = [BillOwnerType, string];

function recipeRows(emit: Emit, shopId: string, owner: Owner, recipe: DatasetRecipe): void {
  recipe.rawMaterialReferences.forEach((l, i) => emit('recipe_lines', [shopId, ...owner, 'raw', i, l.nodeId, l.quantity, l.wastePercentage]));
  recipe.subAssemblyReferences.forEach((l, i) => emit('recipe_lines', [shopId, ...owner, 'sub', i, l.nodeId, l.quantity, '0']));
  recipe.costFactorReferences.forEach((l, i) => emit('recipe_lines', [shopId, ...owner, 'cost', i, l.costFactorId, l.quantity, '0']));
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Short ids are not part of the file: numbered by creation time (then id), so a reload gives the same ones. */
export function workOrderShortIds(createdAt: Iterable<readonly [string, string]>): Map<string, string> {
  const ordered = [...createdAt].sort((a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1]));
  return new Map(ordered.map(([, id], i) => [id, workOrderShortId(i + 1)]));
}

function runsInOrder(w: DatasetWorkOrder) {
  return [...w.buildRuns].sort((a, b) => compareText(a.startedAt, b.startedAt) || compareText(a.buildRunId, b.buildRunId));
}

/**
 * What a review judged per item. A review written without items judged its whole run: its
 * decision applies to every unit each item of the run built (a review naming no run judged none).
 */
function qcReviewItems(w: DatasetWorkOrder, review: DatasetQcReview): DatasetQcReviewItem[] {
  if (review.items.length > 0) return review.items;
  const run = w.buildRuns.find((r) => r.buildRunId === review.buildRunId);
  const failed = review.decision === 'rejected';
  return (run?.items ?? []).map((x) => ({ itemId: x.itemId, approvedQuantity: failed ? '0' : x.quantity, failedQuantity: failed ? x.quantity : '0' }));
}

/** A material's planning columns: lead time, minimum order quantity, order multiple (defaults when the file leaves them out). */
const planningColumns = (m: DatasetMaterial) => [m.leadTimeDays ?? 0, m.minimumOrderQuantity ?? '0', m.orderMultiple ?? null];

/** Rows of one element of each section. `index` is the element's position in its list. */
const SECTION_ROWS: { [S in SectionName]: (emit: Emit, ctx: RowContext, element: any, index: number) => void } = {
  'platform.locations': (emit, { shopId }, l: DatasetLocation) => emit('platform_locations', [shopId, l.id, l.name]),
  'platform.variants': (emit, { shopId }, v: DatasetVariant) => {
    emit('platform_variants', [shopId, v.variantId, v.productId, v.inventoryItemId, v.productName, v.variantName, v.sku, v.vendor, v.price, v.cost,
      v.imageUrl, v.productType, v.productCategory, v.weightValue, v.weightUnitId]);
    for (const l of v.levels) emit('platform_levels', [shopId, v.variantId, l.locationId, l.available]);
  },
  'platform.orders': (emit, { shopId }, o: DatasetOrder) => {
    emit('platform_orders', [shopId, o.orderId, o.name]);
    o.lineItems.forEach((l, i) => emit('platform_order_lines', [shopId, o.orderId, i, l.variantId, l.productId, l.sku, l.title, l.quantity]));
  },
  materials: (emit, { shopId, loadedAt, cachedQuantityDefaults }, m: DatasetMaterial) => {
    if (m.origin === 'platform') {
      const cached = m.cachedQuantity ?? cachedQuantityDefaults.get(m.variantId) ?? null;
      emit('materials:platform', [shopId, m.variantId, m.unit, m.specifications, m.isNonEssentialMaterial, cached, loadedAt, m.archivedAt ?? null,
        ...planningColumns(m)]);
      return;
    }
    emit('materials', [shopId, m.variantId, 'virtual', m.productId, m.inventoryItemId, m.productName, m.variantName, m.sku, m.vendor, m.unit, m.unitCost,
      m.unitPrice, m.specifications, m.imageUrl, m.isNonEssentialMaterial, m.weightValue, m.weightUnitId, m.productType, m.productCategory, null, loadedAt,
      m.archivedAt ?? null, ...planningColumns(m)]);
    for (const l of m.levels) emit('material_levels', [shopId, m.variantId, l.locationId, l.available]);
  },
  costFactors: (emit, { shopId }, c: DatasetCostFactor) => emit('cost_factors', [shopId, c.costFactorId, c.name, c.kind, c.unit, c.unitCost, c.archivedAt ?? null]),
  assemblyBills: (emit, { shopId }, a: DatasetAssemblyBill) => {
    emit('assembly_bills', [shopId, a.assemblyId, a.name, a.onlyConsumePreassembled, a.archivedAt ?? null, a.leadTimeDays ?? 0]);
    recipeRows(emit, shopId, ['sub_assembly', a.assemblyId], a);
  },
  boms: (emit, { shopId }, b: DatasetBom) => {
    emit('boms', [shopId, b.bomId, b.name, b.status, b.variantId, b.archivedAt ?? null, b.storefrontStock ?? 'manual', b.leadTimeDays ?? 0]);
    recipeRows(emit, shopId, ['bom', b.bomId], b);
  },
  locationRules: (emit, { shopId }, r: DatasetLocationRule) => {
    emit('location_rules', [shopId, r.ownerType, r.ownerId, r.locationId]);
    r.overrides.forEach((o, i) => emit('location_rule_overrides', [
      shopId, r.ownerType, r.ownerId, r.locationId, i, o.action, o.nodeId,
      o.action === 'replace' ? o.replacementNodeId : null,
      o.action === 'remove' ? null : o.quantity,
      o.action === 'remove' ? null : o.wastePercentage,
    ]));
  },
  preassembled: (emit, { shopId }, p: DatasetPreassembled) => emit('preassembled_stock', [shopId, p.itemId, p.locationId, p.quantity]),
  residuals: (emit, { shopId }, r: DatasetResidual) => emit('residuals', [shopId, r.itemId, r.locationId, r.kind, r.quantity]),
  reservations: (emit, { shopId }, r: DatasetReservation, i) => {
    // Reservations get ids in file order.
    const id = `res_${String(i + 1).padStart(7, '0')}`;
    emit('reservations', r.kind === 'order'
      ? [shopId, id, 'order', r.itemId, r.locationId, r.orderId, null, null, r.quantity, r.fulfilledQuantity, true]
      : [shopId, id, 'safetyStock', r.itemId, r.locationId, null, r.ownerType, r.ownerId, r.quantity, '0', r.active]);
  },
  assignees: (emit, { shopId }, a: DatasetAssignee) => emit('assignees', [shopId, a.assigneeId, a.displayName, a.active]),
  flows: (emit, { shopId }, f: DatasetFlow) => emit('flows', [shopId, f.flowId, f.name]),
  tasks: (emit, { shopId }, t: DatasetTask) => emit('tasks', [shopId, t.taskId, t.title]),
  workOrders: (emit, { shopId, workOrderShortIds: shortIds }, w: DatasetWorkOrder) => {
    const id = w.workOrderId;
    const shortId = shortIds.get(id)!;
    emit('work_orders', [shopId, id, shortId, w.name, w.description, w.notes, w.status, w.priority, w.dueDate, w.assigneeId, w.productionLocationId,
      w.defaultConsumptionLocationId, w.sourceType, w.sourceFlowId, w.sourceTodoId, textArrayLiteral(w.sourceOrderIds), textArrayLiteral(w.tags),
      w.plannedLaborCost, w.actualLaborCost, w.createdAt, w.updatedAt]);
    w.items.forEach((x, i) => emit('work_order_items', [shopId, id, x.itemId, i, x.ownerType, x.ownerId, x.quantity, x.completedQuantity]));
    w.manualMaterials.forEach((m, i) => emit('work_order_manual_materials', [shopId, id, i, m.variantId, m.quantity, m.locationId, m.note]));
    runsInOrder(w).forEach((r, n) => emit('build_runs', [
      shopId, id, r.buildRunId, buildRunShortId(shortId, n + 1), r.status, r.runType, null, r.startedAt, r.completedAt, r.completedAt ?? r.startedAt,
    ]));
    for (const r of w.buildRuns) {
      for (const x of r.items) emit('build_run_items', [shopId, id, r.buildRunId, x.itemId, x.quantity]);
      // A pick names a material or an assembly bill (its pre-assembled shelf); their id forms
      // (numeric or VMAT-VAR-…, and ASM-…) tell them apart.
      r.picks.forEach((p, i) => emit('build_run_picks', [
        shopId, id, r.buildRunId, i, p.variantId.startsWith('ASM-') ? 'preassembled' : 'material', p.variantId, p.locationId, p.quantity,
      ]));
    }
    for (const q of w.qcReviews) {
      emit('qc_reviews', [shopId, id, q.reviewId, q.buildRunId, q.decision, q.note, q.reviewerName, q.createdAt]);
      for (const x of qcReviewItems(w, q)) emit('qc_review_items', [shopId, id, q.reviewId, x.itemId, x.approvedQuantity, x.failedQuantity]);
    }
    for (const r of w.reworkItems) emit('rework_items', [shopId, id, r.reworkItemId, r.description, r.quantity, r.status, r.buildRunId, r.createdAt, r.resolvedAt]);
    for (const x of w.documents) emit('work_order_documents', [shopId, id, x.documentId, x.name, x.url, x.createdAt]);
    for (const m of w.conversation) emit('work_order_messages', [shopId, id, m.messageId, m.authorName, m.body, m.createdAt]);
    for (const e of w.lifecycleEvents) {
      emit('lifecycle_events', [shopId, id, e.eventId, e.fromStatus, e.toStatus, e.note, e.actorUserId, e.actorDisplayName, e.createdAt]);
    }
  },
  billVersions: (emit, { shopId }, v: DatasetBillVersion) => emit('bill_versions', [
    shopId, v.ownerType, v.ownerId, v.version, v.state, v.savedAt, v.savedBy, v.trigger, v.contentHash, v.changes.recipeFields, v.changes.materials,
    v.changes.locationRules, v.changes.overrides,
  ]),
};

/** A section's elements, one by one, with what to do once they are all read (e.g. verify the bytes). */
export interface SectionElements {
  section: SectionName;
  elements: Iterable<unknown>;
}

/**
 * Row batches of the sections, in order: a target's rows are sent when a batch is full and at
 * the end of its section (so a section's rows are all written before the next section's).
 */
export function* rowBatches(sections: Iterable<SectionElements>, ctx: RowContext): Generator<RowBatch> {
  const pending = new Map<RowTarget, unknown[][]>();
  const full: RowBatch[] = [];
  const emit: Emit = (target, row) => {
    let rows = pending.get(target);
    if (!rows) pending.set(target, (rows = []));
    rows.push(row);
    if (rows.length >= rowsPerBatch(target)) {
      full.push({ target, rows });
      pending.delete(target);
    }
  };
  for (const { section, elements } of sections) {
    const toRows = SECTION_ROWS[section];
    let index = 0;
    for (const element of elements) {
      toRows(emit, ctx, element, index++);
      while (full.length > 0) yield full.shift()!;
    }
    for (const [target, rows] of pending) yield { target, rows };
    pending.clear();
  }
}

/** The sections of an in-memory (validated) dataset. */
export function* datasetSections(d: Dataset): Generator<SectionElements> {
  yield { section: 'platform.locations', elements: d.platform.locations };
  yield { section: 'platform.variants', elements: d.platform.variants };
  yield { section: 'platform.orders', elements: d.platform.orders };
  for (const section of ['materials', 'costFactors', 'assemblyBills', 'boms', 'locationRules', 'preassembled', 'residuals', 'reservations',
    'assignees', 'flows', 'tasks', 'workOrders', 'billVersions'] as const) {
    yield { section, elements: d[section] };
  }
}

/** INSERT … SELECT: a platform-linked material takes its catalogue fields from its platform variant, inserted before it. */
const PLATFORM_MATERIALS_SQL = (tuples: string) => `insert into "materials" ("shop_id", "variant_id", "origin", "product_id", "inventory_item_id",
  "product_name", "variant_name", "sku", "vendor", "unit", "unit_cost", "unit_price", "specifications", "image_url", "is_non_essential_material",
  "weight_value", "weight_unit_id", "product_type", "product_category", "cached_quantity", "updated_at", "archived_at", "lead_time_days",
  "minimum_order_quantity", "order_multiple")
  select v.shop_id, v.variant_id, 'platform', v.product_id, v.inventory_item_id, v.product_name, v.variant_name, v.sku, v.vendor, m.unit, v.cost,
    v.price, m.specifications, v.image_url, m.is_non_essential_material, v.weight_value, v.weight_unit_id, v.product_type, v.product_category,
    m.cached_quantity, m.updated_at, m.archived_at, m.lead_time_days, m.minimum_order_quantity, m.order_multiple
  from (values ${tuples}) as m (shop_id, variant_id, unit, specifications, is_non_essential_material, cached_quantity, updated_at, archived_at,
    lead_time_days, minimum_order_quantity, order_multiple)
  join "platform_variants" v on v.shop_id = m.shop_id and v.variant_id = m.variant_id`;
const PLATFORM_MATERIAL_TUPLE = '(?::text, ?::text, ?::text, ?::text, ?::boolean, ?::numeric, ?::timestamptz, ?::timestamptz, ?::int, ?::numeric, ?::numeric)';

/** Writes one batch (one statement). */
export async function insertRows(em: Em, batch: RowBatch): Promise<void> {
  if (batch.rows.length === 0) return;
  if (batch.target !== 'materials:platform') {
    await bulkInsert(em, batch.target, ['shop_id', ...TABLE_COLUMNS[batch.target]], batch.rows);
    return;
  }
  const result = await em.execute<{ affectedRows?: number }>(PLATFORM_MATERIALS_SQL(batch.rows.map(() => PLATFORM_MATERIAL_TUPLE).join(', ')),
    batch.rows.flat(), 'run');
  // Validation guarantees each variant exists; a row lost here would be a silent gap.
  if (typeof result.affectedRows === 'number' && result.affectedRows !== batch.rows.length) {
    throw new Error(`materials: ${batch.rows.length - result.affectedRows} platform-linked material(s) have no platform variant`);
  }
}
