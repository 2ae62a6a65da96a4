import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { buildRunShortId, workOrderShortId } from '../work-orders/short-ids.ts';
import type { Dataset, DatasetRecipe, DatasetWorkOrder } from './types.ts';

export { textArrayLiteral };

export interface TableRows { table: string; columns: string[]; rows: unknown[][] }

type Owner = ['bom' | 'sub_assembly', string];

function recipeRows(owner: Owner, recipe: DatasetRecipe): unknown[][] {
  return [
    ...recipe.rawMaterialReferences.map((l, i) => [...owner, 'raw', i, l.nodeId, l.quantity, l.wastePercentage]),
    ...recipe.subAssemblyReferences.map((l, i) => [...owner, 'sub', i, l.nodeId, l.quantity, '0']),
    ...recipe.costFactorReferences.map((l, i) => [...owner, 'cost', i, l.costFactorId, l.quantity, '0']),
  ];
}

/** Short ids are not part of the file: numbered by creation time (then id), so a reload gives the same ones. */
function workOrderShortIds(workOrders: readonly DatasetWorkOrder[]): Map<string, string> {
  const ordered = [...workOrders].sort((a, b) => compareText(a.createdAt, b.createdAt) || compareText(a.workOrderId, b.workOrderId));
  return new Map(ordered.map((w, i) => [w.workOrderId, workOrderShortId(i + 1)]));
}

function runsInOrder(w: DatasetWorkOrder) {
  return [...w.buildRuns].sort((a, b) => compareText(a.startedAt, b.startedAt) || compareText(a.buildRunId, b.buildRunId));
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The dataset as rows of each table (without shop_id, which the loader prepends). */
export function datasetToRows(d: Dataset): TableRows[] {
  const variants = new Map(d.platform.variants.map((v) => [v.variantId, v]));
  const wo = d.workOrders;
  const shortIds = workOrderShortIds(wo);
  const materialIds = new Set(d.materials.map((m) => m.variantId));
  const t = (table: string, columns: string[], rows: unknown[][]): TableRows => ({ table, columns, rows });
  return [
    t('platform_locations', ['location_id', 'name'], d.platform.locations.map((l) => [l.id, l.name])),
    t('platform_variants',
      ['variant_id', 'product_id', 'inventory_item_id', 'product_name', 'variant_name', 'sku', 'vendor', 'price', 'cost', 'image_url', 'product_type', 'product_category', 'weight_value', 'weight_unit_id'],
      d.platform.variants.map((v) => [v.variantId, v.productId, v.inventoryItemId, v.productName, v.variantName, v.sku, v.vendor, v.price, v.cost, v.imageUrl, v.productType, v.productCategory, v.weightValue, v.weightUnitId])),
    t('platform_levels', ['variant_id', 'location_id', 'available'],
      d.platform.variants.flatMap((v) => v.levels.map((l) => [v.variantId, l.locationId, l.available]))),
    t('platform_orders', ['order_id', 'name'], d.platform.orders.map((o) => [o.orderId, o.name])),
    t('platform_order_lines', ['order_id', 'position', 'variant_id', 'product_id', 'sku', 'title', 'quantity'],
      d.platform.orders.flatMap((o) => o.lineItems.map((l, i) => [o.orderId, i, l.variantId, l.productId, l.sku, l.title, l.quantity]))),
    t('materials',
      ['variant_id', 'origin', 'product_id', 'inventory_item_id', 'product_name', 'variant_name', 'sku', 'vendor', 'unit', 'unit_cost', 'unit_price', 'specifications', 'image_url', 'is_non_essential_material', 'weight_value', 'weight_unit_id', 'product_type', 'product_category', 'cached_quantity', 'updated_at'],
      d.materials.map((m) => {
        if (m.origin === 'platform') {
          // Mirror of the platform variant's catalogue fields (read-only in API v1).
          const v = variants.get(m.variantId)!;
          return [m.variantId, 'platform', v.productId, v.inventoryItemId, v.productName, v.variantName, v.sku, v.vendor, m.unit, v.cost, v.price, m.specifications, v.imageUrl, m.isNonEssentialMaterial, v.weightValue, v.weightUnitId, v.productType, v.productCategory, m.cachedQuantity, new Date()];
        }
        return [m.variantId, 'virtual', m.productId, m.inventoryItemId, m.productName, m.variantName, m.sku, m.vendor, m.unit, m.unitCost, m.unitPrice, m.specifications, m.imageUrl, m.isNonEssentialMaterial, m.weightValue, m.weightUnitId, m.productType, m.productCategory, null, new Date()];
      })),
    t('material_levels', ['variant_id', 'location_id', 'available'],
      d.materials.flatMap((m) => (m.origin === 'virtual' ? m.levels.map((l) => [m.variantId, l.locationId, l.available]) : []))),
    t('cost_factors', ['cost_factor_id', 'name', 'kind', 'unit', 'unit_cost'], d.costFactors.map((c) => [c.costFactorId, c.name, c.kind, c.unit, c.unitCost])),
    t('assembly_bills', ['assembly_id', 'name', 'only_consume_preassembled'], d.assemblyBills.map((a) => [a.assemblyId, a.name, a.onlyConsumePreassembled])),
    t('boms', ['bom_id', 'name', 'status', 'variant_id'], d.boms.map((b) => [b.bomId, b.name, b.status, b.variantId])),
    t('recipe_lines', ['owner_type', 'owner_id', 'line_type', 'position', 'node_id', 'quantity', 'waste_percentage'], [
      ...d.boms.flatMap((b) => recipeRows(['bom', b.bomId], b)),
      ...d.assemblyBills.flatMap((a) => recipeRows(['sub_assembly', a.assemblyId], a)),
    ]),
    t('location_rules', ['owner_type', 'owner_id', 'location_id'], d.locationRules.map((r) => [r.ownerType, r.ownerId, r.locationId])),
    t('location_rule_overrides', ['owner_type', 'owner_id', 'location_id', 'position', 'action', 'node_id', 'replacement_node_id', 'quantity', 'waste_percentage'],
      d.locationRules.flatMap((r) => r.overrides.map((o, i) => [
        r.ownerType, r.ownerId, r.locationId, i, o.action, o.nodeId,
        o.action === 'replace' ? o.replacementNodeId : null,
        o.action === 'remove' ? null : o.quantity,
        o.action === 'remove' ? null : o.wastePercentage,
      ]))),
    t('bill_versions', ['owner_type', 'owner_id', 'version', 'state', 'saved_at', 'saved_by', 'trigger', 'content_hash', 'changed_recipe_fields', 'changed_materials', 'changed_location_rules', 'changed_overrides'],
      d.billVersions.map((v) => [v.ownerType, v.ownerId, v.version, v.state, v.savedAt, v.savedBy, v.trigger, v.contentHash, v.changes.recipeFields, v.changes.materials, v.changes.locationRules, v.changes.overrides])),
    t('preassembled_stock', ['item_id', 'location_id', 'quantity'], d.preassembled.map((p) => [p.itemId, p.locationId, p.quantity])),
    t('residuals', ['item_id', 'location_id', 'kind', 'quantity'], d.residuals.map((r) => [r.itemId, r.locationId, r.kind, r.quantity])),
    t('reservations', ['reservation_id', 'kind', 'item_id', 'location_id', 'order_id', 'owner_type', 'owner_id', 'quantity', 'fulfilled_quantity', 'active'],
      d.reservations.map((r, i) => {
        const id = `res_${String(i + 1).padStart(7, '0')}`;
        return r.kind === 'order'
          ? [id, 'order', r.itemId, r.locationId, r.orderId, null, null, r.quantity, r.fulfilledQuantity, true]
          : [id, 'safetyStock', r.itemId, r.locationId, null, r.ownerType, r.ownerId, r.quantity, '0', r.active];
      })),
    t('assignees', ['assignee_id', 'display_name', 'active'], d.assignees.map((a) => [a.assigneeId, a.displayName, a.active])),
    t('flows', ['flow_id', 'name'], d.flows.map((f) => [f.flowId, f.name])),
    t('tasks', ['task_id', 'title'], d.tasks.map((x) => [x.taskId, x.title])),
    t('work_orders',
      ['work_order_id', 'short_id', 'name', 'description', 'notes', 'status', 'priority', 'due_date', 'assignee_id', 'production_location_id', 'default_consumption_location_id', 'source_type', 'source_flow_id', 'source_todo_id', 'source_order_ids', 'tags', 'planned_labor_cost', 'actual_labor_cost', 'created_at', 'updated_at'],
      wo.map((w) => [w.workOrderId, shortIds.get(w.workOrderId), w.name, w.description, w.notes, w.status, w.priority, w.dueDate, w.assigneeId, w.productionLocationId, w.defaultConsumptionLocationId, w.sourceType, w.sourceFlowId, w.sourceTodoId, textArrayLiteral(w.sourceOrderIds), textArrayLiteral(w.tags), w.plannedLaborCost, w.actualLaborCost, w.createdAt, w.updatedAt])),
    t('work_order_items', ['work_order_id', 'item_id', 'position', 'owner_type', 'owner_id', 'quantity', 'completed_quantity'],
      wo.flatMap((w) => w.items.map((x, i) => [w.workOrderId, x.itemId, i, x.ownerType, x.ownerId, x.quantity, x.completedQuantity]))),
    t('work_order_manual_materials', ['work_order_id', 'position', 'variant_id', 'quantity', 'location_id', 'note'],
      wo.flatMap((w) => w.manualMaterials.map((m, i) => [w.workOrderId, i, m.variantId, m.quantity, m.locationId, m.note]))),
    t('build_runs', ['work_order_id', 'build_run_id', 'short_id', 'status', 'run_type', 'note', 'started_at', 'completed_at', 'updated_at'],
      wo.flatMap((w) => runsInOrder(w).map((r, n) => [
        w.workOrderId, r.buildRunId, buildRunShortId(shortIds.get(w.workOrderId)!, n + 1), r.status, r.runType, null, r.startedAt, r.completedAt,
        r.completedAt ?? r.startedAt,
      ]))),
    t('build_run_items', ['work_order_id', 'build_run_id', 'item_id', 'quantity'],
      wo.flatMap((w) => w.buildRuns.flatMap((r) => r.items.map((x) => [w.workOrderId, r.buildRunId, x.itemId, x.quantity])))),
    t('build_run_picks', ['work_order_id', 'build_run_id', 'position', 'stock', 'variant_id', 'location_id', 'quantity'],
      wo.flatMap((w) => w.buildRuns.flatMap((r) => r.picks.map((p, i) => [
        w.workOrderId, r.buildRunId, i, materialIds.has(p.variantId) ? 'material' : 'preassembled', p.variantId, p.locationId, p.quantity,
      ])))),
    t('qc_reviews', ['work_order_id', 'review_id', 'build_run_id', 'decision', 'note', 'reviewer_name', 'created_at'],
      wo.flatMap((w) => w.qcReviews.map((q) => [w.workOrderId, q.reviewId, q.buildRunId, q.decision, q.note, q.reviewerName, q.createdAt]))),
    t('rework_items', ['work_order_id', 'rework_item_id', 'description', 'quantity', 'status', 'build_run_id', 'created_at', 'resolved_at'],
      wo.flatMap((w) => w.reworkItems.map((r) => [w.workOrderId, r.reworkItemId, r.description, r.quantity, r.status, r.buildRunId, r.createdAt, r.resolvedAt]))),
    t('work_order_documents', ['work_order_id', 'document_id', 'name', 'url', 'created_at'],
      wo.flatMap((w) => w.documents.map((x) => [w.workOrderId, x.documentId, x.name, x.url, x.createdAt]))),
    t('work_order_messages', ['work_order_id', 'message_id', 'author_name', 'body', 'created_at'],
      wo.flatMap((w) => w.conversation.map((m) => [w.workOrderId, m.messageId, m.authorName, m.body, m.createdAt]))),
    t('lifecycle_events', ['work_order_id', 'event_id', 'from_status', 'to_status', 'note', 'actor_user_id', 'actor_display_name', 'created_at'],
      wo.flatMap((w) => w.lifecycleEvents.map((e) => [w.workOrderId, e.eventId, e.fromStatus, e.toStatus, e.note, e.actorUserId, e.actorDisplayName, e.createdAt]))),
  ];
}
