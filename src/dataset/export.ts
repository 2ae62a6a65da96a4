import { IsolationLevel } from '@mikro-orm/core';
import { Decimal } from 'decimal.js';
import type { Em } from '../db/orm.ts';
import { DomainError } from '../kernel/domain-error.ts';
import type { Dataset, DatasetLocationOverride, DatasetRecipe, DatasetReservation, DatasetWorkOrder } from './types.ts';

type Row = Record<string, any>;

/** numeric(20,6) text → canonical decimal text ("0.400000" → "0.4"). */
const dec = (v: string | number): string => new Decimal(v).toFixed();
const decOrNull = (v: string | number | null): string | null => (v === null ? null : dec(v));
const iso = (v: Date | string): string => new Date(v).toISOString();
const isoOrNull = (v: Date | string | null): string | null => (v === null ? null : iso(v));
/** `archivedAt` for an archived row; nothing for the others, so files of shops that never archive stay as they were. */
const archived = (row: { archived_at?: Date | string | null }): { archivedAt?: string } =>
  (row.archived_at == null ? {} : { archivedAt: iso(row.archived_at) });
/** A material's planning fields that differ from their defaults (a file of a shop that never plans stays as it was). */
const materialPlanning = (m: Row): { leadTimeDays?: number; minimumOrderQuantity?: string; orderMultiple?: string } => ({
  ...(Number(m.lead_time_days ?? 0) !== 0 ? { leadTimeDays: Number(m.lead_time_days) } : {}),
  ...(m.minimum_order_quantity != null && !new Decimal(m.minimum_order_quantity).isZero() ? { minimumOrderQuantity: dec(m.minimum_order_quantity) } : {}),
  ...(m.order_multiple != null ? { orderMultiple: dec(m.order_multiple) } : {}),
});
/** A bill's lead time when it is not 0. */
const billPlanning = (b: Row): { leadTimeDays?: number } => (Number(b.lead_time_days ?? 0) !== 0 ? { leadTimeDays: Number(b.lead_time_days) } : {});
const day = (v: Date | string | null): string | null => (v === null ? null : typeof v === 'string' ? v.slice(0, 10) : v.toISOString().slice(0, 10));

function groupBy(rows: Row[], key: (r: Row) => string): Map<string, Row[]> {
  const map = new Map<string, Row[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list) list.push(row);
    else map.set(k, [row]);
  }
  return map;
}

/** Told how many of the export's table reads have finished, of how many (for a progress bar). */
export type ExportProgress = (tablesRead: number, tables: number) => void;

/** Reads everything one shop owns back into a dataset (a fixed number of queries, one per table). */
export async function exportDataset(rootEm: Em, shopId: string, onProgress?: ExportProgress): Promise<Dataset> {
  // One repeatable-read snapshot, so a concurrent write cannot tear the export.
  return rootEm.fork().transactional((em) => readDataset(em as Em, shopId, onProgress), { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
}

/** The statements of an export: the shop, then one per table it owns (readDataset's list). */
const TABLE_READS = 33;

async function readDataset(em: Em, shopId: string, onProgress?: ExportProgress): Promise<Dataset> {
  let read = 0;
  const q = async (sql: string) => {
    const rows = await em.execute<Row[]>(sql, [shopId]);
    onProgress?.(++read, TABLE_READS);
    return rows;
  };
  const [shop] = await q('select * from shops where id = ?');
  if (!shop) throw DomainError.notFound('shop', shopId);
  const [locations, variants, levels, orders, orderLines, materials, materialLevels, costFactors, assemblies, boms, lines, rules, overrides,
    versions, preassembled, residuals, reservations, assignees, flows, tasks, workOrders, items, manual, runs, runItems, picks, qc,
    qcItems, rework, documents, messages, events] = await Promise.all([
    q('select * from platform_locations where shop_id = ? order by location_id'),
    q('select * from platform_variants where shop_id = ? order by variant_id'),
    q('select * from platform_levels where shop_id = ? order by variant_id, location_id'),
    // The open orders: a connected store's history orders (read on demand) are the store's, not the dataset's.
    q('select * from platform_orders where shop_id = ? and open order by order_id'),
    q('select * from platform_order_lines where shop_id = ? order by order_id, position'),
    q('select * from materials where shop_id = ? order by variant_id'),
    q('select * from material_levels where shop_id = ? order by variant_id, location_id'),
    q('select * from cost_factors where shop_id = ? order by cost_factor_id'),
    q('select * from assembly_bills where shop_id = ? order by assembly_id'),
    q('select * from boms where shop_id = ? order by bom_id'),
    q('select * from recipe_lines where shop_id = ? order by owner_type, owner_id, line_type, position'),
    q('select * from location_rules where shop_id = ? order by owner_type, owner_id, location_id'),
    q('select * from location_rule_overrides where shop_id = ? order by owner_type, owner_id, location_id, position'),
    q('select * from bill_versions where shop_id = ? order by owner_type, owner_id, version'),
    q('select * from preassembled_stock where shop_id = ? order by item_id, location_id'),
    q('select * from residuals where shop_id = ? order by item_id, location_id, kind'),
    q('select * from reservations where shop_id = ? order by reservation_id'),
    q('select * from assignees where shop_id = ? order by assignee_id'),
    q('select * from flows where shop_id = ? order by flow_id'),
    q('select * from tasks where shop_id = ? order by task_id'),
    q('select * from work_orders where shop_id = ? order by work_order_id'),
    q('select * from work_order_items where shop_id = ? order by work_order_id, position'),
    q('select * from work_order_manual_materials where shop_id = ? order by work_order_id, position'),
    q('select * from build_runs where shop_id = ? order by work_order_id, started_at, build_run_id'),
    q('select * from build_run_items where shop_id = ? order by work_order_id, build_run_id, item_id'),
    q('select * from build_run_picks where shop_id = ? order by work_order_id, build_run_id, position'),
    q('select * from qc_reviews where shop_id = ? order by work_order_id, created_at, review_id'),
    q('select * from qc_review_items where shop_id = ? order by work_order_id, review_id, item_id'),
    q('select * from rework_items where shop_id = ? order by work_order_id, created_at, rework_item_id'),
    q('select * from work_order_documents where shop_id = ? order by work_order_id, created_at, document_id'),
    q('select * from work_order_messages where shop_id = ? order by work_order_id, created_at, message_id'),
    q('select * from lifecycle_events where shop_id = ? order by work_order_id, created_at, event_id'),
  ]);
  const levelsByVariant = groupBy(levels, (r) => r.variant_id);
  const linesByOrder = groupBy(orderLines, (r) => r.order_id);
  const vLevels = groupBy(materialLevels, (r) => r.variant_id);
  const linesByOwner = groupBy(lines, (r) => `${r.owner_type}|${r.owner_id}`);
  const overridesByRule = groupBy(overrides, (r) => `${r.owner_type}|${r.owner_id}|${r.location_id}`);
  const byWo = (rows: Row[]) => groupBy(rows, (r) => r.work_order_id);
  const [itemsBy, manualBy, runsBy, qcBy, reworkBy, docsBy, msgBy, eventsBy] = [items, manual, runs, qc, rework, documents, messages, events].map(byWo);
  const runItemsBy = groupBy(runItems, (r) => `${r.work_order_id}|${r.build_run_id}`);
  const picksBy = groupBy(picks, (r) => `${r.work_order_id}|${r.build_run_id}`);
  const qcItemsBy = groupBy(qcItems, (r) => `${r.work_order_id}|${r.review_id}`);

  const recipe = (ownerType: string, ownerId: string): DatasetRecipe => {
    const own = linesByOwner.get(`${ownerType}|${ownerId}`) ?? [];
    return {
      rawMaterialReferences: own.filter((l) => l.line_type === 'raw').map((l) => ({ nodeId: l.node_id, quantity: dec(l.quantity), wastePercentage: dec(l.waste_percentage) })),
      subAssemblyReferences: own.filter((l) => l.line_type === 'sub').map((l) => ({ nodeId: l.node_id, quantity: dec(l.quantity) })),
      costFactorReferences: own.filter((l) => l.line_type === 'cost').map((l) => ({ costFactorId: l.node_id, quantity: dec(l.quantity) })),
    };
  };
  const override = (o: Row): DatasetLocationOverride => {
    switch (o.action) {
      case 'remove': return { action: 'remove', nodeId: o.node_id };
      case 'replace': return { action: 'replace', nodeId: o.node_id, replacementNodeId: o.replacement_node_id, quantity: decOrNull(o.quantity), wastePercentage: decOrNull(o.waste_percentage) };
      case 'add': return { action: 'add', nodeId: o.node_id, quantity: dec(o.quantity), wastePercentage: dec(o.waste_percentage ?? 0) };
      default: return { action: 'adjust', nodeId: o.node_id, quantity: decOrNull(o.quantity), wastePercentage: decOrNull(o.waste_percentage) };
    }
  };
  const reservation = (r: Row): DatasetReservation => (r.kind === 'order'
    ? { kind: 'order', itemId: r.item_id, locationId: r.location_id, orderId: r.order_id, quantity: dec(r.quantity), fulfilledQuantity: dec(r.fulfilled_quantity) }
    : { kind: 'safetyStock', itemId: r.item_id, locationId: r.location_id, ownerType: r.owner_type, ownerId: r.owner_id, quantity: dec(r.quantity), active: r.active });
  const workOrder = (w: Row): DatasetWorkOrder => {
    const id = w.work_order_id as string;
    return {
      workOrderId: id, name: w.name, description: w.description, notes: w.notes, status: w.status, priority: w.priority,
      dueDate: day(w.due_date), assigneeId: w.assignee_id, productionLocationId: w.production_location_id,
      defaultConsumptionLocationId: w.default_consumption_location_id, sourceType: w.source_type, sourceFlowId: w.source_flow_id,
      sourceTodoId: w.source_todo_id, sourceOrderIds: w.source_order_ids ?? [], tags: w.tags ?? [],
      plannedLaborCost: decOrNull(w.planned_labor_cost), actualLaborCost: decOrNull(w.actual_labor_cost),
      createdAt: iso(w.created_at), updatedAt: iso(w.updated_at),
      items: (itemsBy!.get(id) ?? []).map((x) => ({ itemId: x.item_id, ownerType: x.owner_type, ownerId: x.owner_id, quantity: dec(x.quantity), completedQuantity: dec(x.completed_quantity) })),
      manualMaterials: (manualBy!.get(id) ?? []).map((m) => ({ variantId: m.variant_id, quantity: dec(m.quantity), locationId: m.location_id, note: m.note })),
      buildRuns: (runsBy!.get(id) ?? []).map((r) => ({
        buildRunId: r.build_run_id, status: r.status, runType: r.run_type, startedAt: iso(r.started_at), completedAt: isoOrNull(r.completed_at),
        items: (runItemsBy.get(`${id}|${r.build_run_id}`) ?? []).map((x) => ({ itemId: x.item_id, quantity: dec(x.quantity) })),
        picks: (picksBy.get(`${id}|${r.build_run_id}`) ?? []).map((p) => ({ variantId: p.variant_id, locationId: p.location_id, quantity: dec(p.quantity) })),
      })),
      qcReviews: (qcBy!.get(id) ?? []).map((x) => ({
        reviewId: x.review_id, buildRunId: x.build_run_id, decision: x.decision,
        items: (qcItemsBy.get(`${id}|${x.review_id}`) ?? []).map((i) => ({ itemId: i.item_id, approvedQuantity: dec(i.approved_quantity), failedQuantity: dec(i.failed_quantity) })),
        note: x.note, reviewerName: x.reviewer_name, createdAt: iso(x.created_at),
      })),
      reworkItems: (reworkBy!.get(id) ?? []).map((x) => ({ reworkItemId: x.rework_item_id, description: x.description, quantity: dec(x.quantity), status: x.status, buildRunId: x.build_run_id, createdAt: iso(x.created_at), resolvedAt: isoOrNull(x.resolved_at) })),
      documents: (docsBy!.get(id) ?? []).map((x) => ({ documentId: x.document_id, name: x.name, url: x.url, createdAt: iso(x.created_at) })),
      conversation: (msgBy!.get(id) ?? []).map((x) => ({ messageId: x.message_id, authorName: x.author_name, body: x.body, createdAt: iso(x.created_at) })),
      lifecycleEvents: (eventsBy!.get(id) ?? []).map((x) => ({ eventId: x.event_id, fromStatus: x.from_status, toStatus: x.to_status, note: x.note, actorUserId: x.actor_user_id, actorDisplayName: x.actor_display_name, createdAt: iso(x.created_at) })),
    };
  };

  return {
    formatVersion: 1,
    shop: { id: shop.id, name: shop.name, plan: shop.plan, settings: { allowNegativeInventory: shop.allow_negative_inventory, materialRequirementsMetafield: shop.material_requirements_metafield } },
    platform: {
      locations: locations.map((l) => ({ id: l.location_id, name: l.name })),
      variants: variants.map((v) => ({
        variantId: v.variant_id, productId: v.product_id, inventoryItemId: v.inventory_item_id, productName: v.product_name, variantName: v.variant_name,
        sku: v.sku, vendor: v.vendor, price: decOrNull(v.price), cost: decOrNull(v.cost), imageUrl: v.image_url, productType: v.product_type,
        productCategory: v.product_category, weightValue: decOrNull(v.weight_value), weightUnitId: v.weight_unit_id,
        levels: (levelsByVariant.get(v.variant_id) ?? []).map((l) => ({ locationId: l.location_id, available: dec(l.available) })),
      })),
      orders: orders.map((o) => ({
        orderId: o.order_id, name: o.name,
        lineItems: (linesByOrder.get(o.order_id) ?? []).map((l) => ({ variantId: l.variant_id, productId: l.product_id, sku: l.sku, title: l.title, quantity: dec(l.quantity) })),
      })),
    },
    materials: materials.map((m) => (m.origin === 'platform'
      ? { origin: 'platform' as const, variantId: m.variant_id, unit: m.unit, isNonEssentialMaterial: m.is_non_essential_material, specifications: m.specifications, cachedQuantity: dec(m.cached_quantity ?? 0), ...archived(m), ...materialPlanning(m) }
      : {
        origin: 'virtual' as const, variantId: m.variant_id, productId: m.product_id, inventoryItemId: m.inventory_item_id, productName: m.product_name,
        variantName: m.variant_name, sku: m.sku, vendor: m.vendor, unit: m.unit, unitCost: dec(m.unit_cost ?? 0), unitPrice: decOrNull(m.unit_price),
        specifications: m.specifications, imageUrl: m.image_url, isNonEssentialMaterial: m.is_non_essential_material, weightValue: decOrNull(m.weight_value),
        weightUnitId: m.weight_unit_id, productType: m.product_type, productCategory: m.product_category,
        levels: (vLevels.get(m.variant_id) ?? []).map((l) => ({ locationId: l.location_id, available: dec(l.available) })), ...archived(m),
        ...materialPlanning(m),
      })),
    costFactors: costFactors.map((c) => ({ costFactorId: c.cost_factor_id, name: c.name, kind: c.kind, unit: c.unit, unitCost: dec(c.unit_cost), ...archived(c) })),
    assemblyBills: assemblies.map((a) => ({ assemblyId: a.assembly_id, name: a.name, onlyConsumePreassembled: a.only_consume_preassembled, ...archived(a), ...billPlanning(a), ...recipe('sub_assembly', a.assembly_id) })),
    boms: boms.map((b) => ({
      bomId: b.bom_id, name: b.name, status: b.status, variantId: b.variant_id,
      // Written only when it is not the default (manual).
      ...(b.storefront_stock === 'manual' ? {} : { storefrontStock: b.storefront_stock }), ...archived(b), ...billPlanning(b), ...recipe('bom', b.bom_id),
    })),
    locationRules: rules.map((r) => ({
      ownerType: r.owner_type, ownerId: r.owner_id, locationId: r.location_id,
      overrides: (overridesByRule.get(`${r.owner_type}|${r.owner_id}|${r.location_id}`) ?? []).map(override),
    })),
    preassembled: preassembled.map((p) => ({ itemId: p.item_id, locationId: p.location_id, quantity: dec(p.quantity) })),
    residuals: residuals.map((r) => ({ itemId: r.item_id, locationId: r.location_id, kind: r.kind, quantity: dec(r.quantity) })),
    reservations: exportedReservations(reservations.map(reservation), reservations),
    assignees: assignees.map((a) => ({ assigneeId: a.assignee_id, displayName: a.display_name, active: a.active })),
    flows: flows.map((f) => ({ flowId: f.flow_id, name: f.name })),
    tasks: tasks.map((t) => ({ taskId: t.task_id, title: t.title })),
    workOrders: workOrders.map(workOrder),
    billVersions: versions.map((v) => ({
      ownerType: v.owner_type, ownerId: v.owner_id, version: v.version, state: v.state, savedAt: iso(v.saved_at), savedBy: v.saved_by,
      trigger: v.trigger, contentHash: v.content_hash,
      changes: { recipeFields: v.changed_recipe_fields, materials: v.changed_materials, locationRules: v.changed_location_rules, overrides: v.changed_overrides },
    })),
  };
}

/**
 * The reservations a dataset carries. Order execution keeps one row per order line and leaves
 * released ones (cancelled, closed or deleted orders) and unlocated ones behind; a dataset holds
 * one located hold per order, item and location: released and unlocated rows stay out, lines of
 * one order on the same item and location are summed.
 */
function exportedReservations(mapped: DatasetReservation[], rows: readonly Row[]): DatasetReservation[] {
  const out: DatasetReservation[] = [];
  const orderHolds = new Map<string, DatasetReservation & { kind: 'order' }>();
  mapped.forEach((r, i) => {
    if (r.kind !== 'order') return void out.push(r);
    if (rows[i]!.active === false || r.locationId === '') return;
    const key = JSON.stringify([r.itemId, r.locationId, r.orderId]);
    const known = orderHolds.get(key);
    if (!known) {
      const copy = { ...r };
      orderHolds.set(key, copy);
      out.push(copy);
      return;
    }
    known.quantity = new Decimal(known.quantity ?? 0).plus(r.quantity ?? 0).toFixed();
    known.fulfilledQuantity = new Decimal(known.fulfilledQuantity ?? 0).plus(r.fulfilledQuantity ?? 0).toFixed();
  });
  return out;
}
