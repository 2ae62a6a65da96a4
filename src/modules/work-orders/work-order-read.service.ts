import { dayAfter, type AnswerClock } from '../../kernel/answer-clock.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { exact } from '../../kernel/numbers/index.ts';
import type { BillOwnerType } from '../boms/recipe-vocabulary.ts';
import { stuckPushesByWorkOrder, type StuckPlatformPushes } from '../stock/platform-push.repository.ts';
import { materialPlansOf, workOrdersForest, type MaterialPlan } from './material-plan.service.ts';
import { buildRunViews, type BuildRunView } from './build-run-view.ts';
import {
  findWorkOrder, findWorkOrders, loadPartsOf, type DocumentPart, type ItemPart, type LifecyclePart, type MessagePart, type QcReviewPart, type ReworkPart,
  type WorkOrderParts, type WorkOrderHeader,
} from './work-order.repository.ts';
import { isOpenStatus, LIVE_RUN_STATUSES, WORK_ORDER_WARNINGS, type WorkOrderWarningCode } from './work-order-vocabulary.ts';
import { availableTransitions, type TransitionMove } from './work-order-states.ts';
import { headerView, type WorkOrderHeaderView } from './work-order-view.ts';

export interface WorkOrderWarning {
  code: WorkOrderWarningCode;
  message: string;
  remedy: string;
  variantId?: string | null;
  itemId?: string | null;
  locationId?: string | null;
  quantity?: string | null;
  count?: number | null;
}

export interface WorkOrderItemView { itemId: string; ownerType: BillOwnerType; ownerId: string; name: string | null; quantity: string; completedQuantity: string; builtQuantity: string; remainingQuantity: string }

export interface WholeWorkOrder extends WorkOrderHeaderView {
  items: WorkOrderItemView[];
  plan: MaterialPlan;
  buildRuns: BuildRunView[];
  qcReviews: QcReviewPart[];
  reworkItems: ReworkPart[];
  documents: DocumentPart[];
  conversation: MessagePart[];
  lifecycleEvents: LifecyclePart[];
  availableTransitions: TransitionMove[];
  warnings: WorkOrderWarning[];
}

export async function requireWorkOrder(ctx: ShopContext, workOrderId: string, forUpdate = false): Promise<WorkOrderHeader> {
  const row = await findWorkOrder(ctx.em, ctx.shopId, workOrderId, forUpdate);
  if (!row) throw DomainError.notFound('work order', workOrderId);
  return row;
}

const WHOLE_PARTS = ['items', 'manual', 'runs', 'runItems', 'picks', 'qcReviews', 'reworkItems', 'documents', 'messages', 'lifecycle'] as const;

/**
 * Whole work orders: header, items, the material plan (materials, contributions, merged
 * consumption plan, cost), runs, reviews, rework, documents, conversation, lifecycle events, the
 * moves open now and the warnings — recomputed on every read, never stored. Round trips are
 * constant whatever the number of work orders, in two waves: the headers, one statement for the ten
 * parts, the recipe walk of their items (seeded by the items in SQL), the stuck pushes and the
 * location list sent at once, then the plans' reads (materialPlansOf). Ids the shop does not have
 * are absent from the map.
 */
export async function wholeWorkOrders(ctx: ShopContext, workOrderIds: readonly string[]): Promise<Map<string, WholeWorkOrder>> {
  const [headers, partsOf, forest, stuck, locationNames] = await Promise.all([
    findWorkOrders(ctx.em, ctx.shopId, workOrderIds),
    loadPartsOf(ctx.em, ctx.shopId, workOrderIds, WHOLE_PARTS),
    workOrdersForest(ctx, workOrderIds),
    // Ids the shop does not have have no pushes: asked for all of them, not waiting for the headers.
    stuckPushesByWorkOrder(ctx.em, ctx.shopId, workOrderIds),
    ctx.platform.listLocations().then((l) => new Map(l.map((x) => [x.locationId, x.name]))),
  ]);
  const found = headers.map((header) => ({ header, parts: partsOf.get(header.workOrderId)! }));
  const plans = await materialPlansOf(ctx, found.map(({ header, parts }) => ({ header, ...parts, locationNames })), forest);
  return new Map(found.map(({ header, parts }, i) => [header.workOrderId, wholeView(header, parts, plans[i]!, stuck, locationNames, ctx.clock)]));
}

/** One whole work order (wholeWorkOrders for one); NOT_FOUND for an id the shop does not have. */
export async function wholeWorkOrder(ctx: ShopContext, workOrderId: string): Promise<WholeWorkOrder> {
  const whole = (await wholeWorkOrders(ctx, [workOrderId])).get(workOrderId);
  if (!whole) throw DomainError.notFound('work order', workOrderId);
  return whole;
}

function wholeView(
  header: WorkOrderHeader, parts: Pick<WorkOrderParts, (typeof WHOLE_PARTS)[number]>, plan: MaterialPlan,
  stuck: Map<string, StuckPlatformPushes>, locationNames: ReadonlyMap<string, string>, clock: AnswerClock,
): WholeWorkOrder {
  const workOrderId = header.workOrderId;
  const liveRuns = parts.runs.filter((r) => LIVE_RUN_STATUSES.includes(r.status));
  const facts = {
    itemCount: parts.items.length,
    hasProductionLocation: header.productionLocationId !== null,
    liveRunCount: liveRuns.length,
    startedRunCount: parts.runs.filter((r) => r.status === 'started').length,
    openReworkCount: parts.reworkItems.filter((r) => r.status === 'open').length,
  };
  const builtQty = new Map<string, string>();
  const liveIds = new Set(liveRuns.map((r) => r.build_run_id));
  for (const ri of parts.runItems) {
    if (!liveIds.has(ri.build_run_id)) continue;
    builtQty.set(ri.item_id, exact(builtQty.get(ri.item_id) ?? '0').plus(ri.quantity).toFixed());
  }
  const remainingOf = new Map(plan.itemConsumption.map((c) => [c.itemId, c.remainingQuantity]));
  return {
    ...headerView(header, locationNames),
    items: parts.items.map((i: ItemPart) => ({
      itemId: i.item_id, ownerType: i.owner_type, ownerId: i.owner_id, name: i.name, quantity: i.quantity, completedQuantity: i.completed_quantity,
      builtQuantity: builtQty.get(i.item_id) ?? '0', remainingQuantity: remainingOf.get(i.item_id) ?? '0',
    })),
    plan,
    buildRuns: buildRunViews(parts.runs, parts.runItems, parts.picks, header.updatedAt),
    qcReviews: parts.qcReviews,
    reworkItems: parts.reworkItems,
    documents: parts.documents,
    conversation: parts.messages,
    lifecycleEvents: parts.lifecycle,
    availableTransitions: availableTransitions(header.status, facts),
    warnings: warningsOf(header, plan, stuck.get(workOrderId) ?? null, clock),
  };
}

/**
 * Warnings are derived from the current state on every read; each names its remedy. One that the
 * clock alone can bring or change (OVERDUE) tells the read's clock when (src/kernel/answer-clock.ts).
 */
export function warningsOf(
  header: WorkOrderHeader, plan: MaterialPlan, stuck: { count: number; quantity: string; lastError: string | null; stopped?: number } | null, clock: AnswerClock,
): WorkOrderWarning[] {
  const warnings: WorkOrderWarning[] = [];
  const open = isOpenStatus(header.status);
  if (header.assigneeId && header.assigneeActive === false) {
    warnings.push({ code: 'RETIRED_ASSIGNEE', message: `the assignee ${header.assigneeName ?? header.assigneeId} is retired`, remedy: WORK_ORDER_WARNINGS.RETIRED_ASSIGNEE.remedy });
  }
  const today = clock.now.toISOString().slice(0, 10);
  if (open && header.dueDate && header.dueDate < today) {
    warnings.push({ code: 'OVERDUE', message: `due on ${header.dueDate} and still ${header.status}`, remedy: WORK_ORDER_WARNINGS.OVERDUE.remedy });
  } else if (open && header.dueDate) {
    clock.changesAt(dayAfter(header.dueDate));
  }
  if (open) {
    for (const row of plan.consumptionPlan) {
      if (row.short === '0') continue;
      const shelfOnly = row.stock === 'preassembled';
      const code = shelfOnly ? 'SHELF_ONLY_SHORT' : 'STOCK_SHORT';
      warnings.push({
        code,
        message: shelfOnly
          ? `${row.name ?? row.itemId} comes only from its pre-assembled shelf at location ${row.locationId}, which is ${row.short} short`
          : `${row.name ?? row.itemId} is ${row.short} short at location ${row.locationId} for the remaining quantities`,
        remedy: WORK_ORDER_WARNINGS[code].remedy,
        ...(shelfOnly ? { itemId: row.itemId } : { variantId: row.itemId }), locationId: row.locationId, quantity: row.short,
      });
    }
  }
  if (open && plan.unlocatedLines > 0) {
    warnings.push({ code: 'UNLOCATED_LINES', message: `${plan.unlocatedLines} line(s) have no consumption location`, remedy: WORK_ORDER_WARNINGS.UNLOCATED_LINES.remedy, count: plan.unlocatedLines });
  }
  if (stuck && stuck.count > 0) {
    warnings.push({
      code: 'PLATFORM_PUSH_STUCK',
      message: `${stuck.count} stock push(es) to the platform keep failing${stuck.lastError ? ` (${stuck.lastError})` : ''}; `
        + ((stuck.stopped ?? 0) > 0 ? `${stuck.stopped} of them the platform refused for good: they wait until the cause is fixed and they are released` : 'they are retried until they go through'),
      remedy: WORK_ORDER_WARNINGS.PLATFORM_PUSH_STUCK.remedy,
      count: stuck.count, quantity: stuck.quantity,
    });
  }
  return warnings;
}
