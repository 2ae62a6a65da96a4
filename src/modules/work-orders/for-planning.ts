import { sql, type SqlBool } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { BillKey } from '../boms/engine/index.ts';
import { manualShare, startedUnits, unitItems, unitRunItems, unitRuns, unitsNotStarted, workOrderUnits } from './outstanding.ts';
import { workOrdersSql } from './tables.ts';
import { loadPartsOf } from './work-order.repository.ts';
import { openWorkOrderSql } from './work-order-filters.ts';

// What the planning module (a higher tier) reads of work orders: every open one (every status but
// completed and cancelled) with what it still demands and what it will still deliver, by the one
// definition of outstanding.ts (units not yet started; manual lines × (Q − started) / Q). Five
// statements (the headers, then items, manual lines, runs and run items of all of them at once).

export interface PlanningWorkOrderItem {
  itemId: string;
  bill: BillKey;
  /** quantity − units of production runs not reversed (never below 0). */
  notStarted: Exact;
  /** quantity − completedQuantity (never below 0): the scheduled receipt. */
  toComplete: Exact;
}

export interface PlanningWorkOrder {
  workOrderId: string;
  /** ISO timestamp: the tie-break after need-by and source type. */
  createdAt: string;
  dueDate: string | null;
  productionLocationId: string | null;
  /** defaultConsumptionLocationId, else productionLocationId, else null. */
  consumptionLocationId: string | null;
  sourceOrderIds: string[];
  items: PlanningWorkOrderItem[];
  /** Manual lines' share still needed, at the line's location (else the consumption location; null = none at all). */
  manual: { variantId: string; locationId: string | null; quantity: Exact }[];
}

const open = sql<SqlBool>`${sql.raw(openWorkOrderSql('w'))}`;
const day = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v.slice(0, 10) : (v as Date).toISOString().slice(0, 10));
const nonNegative = (x: Exact): Exact => (x.isNegative() ? ZERO : x);

export async function openWorkOrdersForPlanning(ctx: ShopContext): Promise<PlanningWorkOrder[]> {
  const headers = await runSql(ctx.em, workOrdersSql.selectFrom('work_orders as w')
    .select(['w.work_order_id', 'w.created_at', sql<string | null>`w.due_date::text`.as('due_date'), 'w.production_location_id',
      'w.default_consumption_location_id', 'w.source_order_ids'])
    .where('w.shop_id', '=', ctx.shopId).where(open));
  const parts = await loadPartsOf(ctx.em, ctx.shopId, headers.map((h) => h.work_order_id), ['items', 'manual', 'runs', 'runItems']);
  return headers.map((h) => {
    const p = parts.get(h.work_order_id)!;
    const items = unitItems(p.items);
    const started = startedUnits(unitRuns(p.runs), unitRunItems(p.runItems));
    const left = unitsNotStarted(items, started);
    const units = workOrderUnits(items, started);
    const consumption = h.default_consumption_location_id ?? h.production_location_id ?? null;
    const sourceOrderIds = Array.isArray(h.source_order_ids) ? h.source_order_ids.map(String) : [];
    return {
      workOrderId: h.work_order_id,
      createdAt: new Date(h.created_at).toISOString(),
      dueDate: day(h.due_date),
      productionLocationId: h.production_location_id ?? null,
      consumptionLocationId: consumption,
      sourceOrderIds,
      items: p.items.map((i) => ({
        itemId: i.item_id, bill: { ownerType: i.owner_type, ownerId: i.owner_id },
        notStarted: left.get(i.item_id) ?? ZERO, toComplete: nonNegative(exact(i.quantity).minus(i.completed_quantity)),
      })),
      manual: p.manual.map((m) => ({ variantId: m.variant_id, locationId: m.location_id ?? consumption, quantity: manualShare(m.quantity, units) })),
    };
  });
}
