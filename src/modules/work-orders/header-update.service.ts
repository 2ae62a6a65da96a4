import { DomainError, type MissingRef } from '../../kernel/domain-error.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { recordWorkOrderEvent } from './work-order-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { findPeopleReferences } from '../people/references.ts';
import { nextUpdatedAt, touchWorkOrder } from './work-order.repository.ts';
import { headerFieldErrors, throwIfInvalid } from './header-fields.ts';
import type { WorkOrderPriority } from './work-order-vocabulary.ts';
import { lockForWrite, parseToken } from './write-guard.ts';

/** Editable header fields: absent = unchanged, null = cleared. */
export interface HeaderPatch {
  expectedUpdatedAt: string;
  name?: string | null;
  description?: string | null;
  notes?: string | null;
  priority?: WorkOrderPriority | null;
  dueDate?: string | null;
  assigneeId?: string | null;
  productionLocationId?: string | null;
  defaultConsumptionLocationId?: string | null;
  sourceFlowId?: string | null;
  sourceTodoId?: string | null;
  sourceOrderIds?: string[] | null;
  tags?: string[] | null;
  plannedLaborCost?: string | null;
  actualLaborCost?: string | null;
}

type Column = [field: keyof HeaderPatch, column: string];
const COLUMNS: Column[] = [
  ['name', 'name'], ['description', 'description'], ['notes', 'notes'], ['priority', 'priority'], ['dueDate', 'due_date'],
  ['assigneeId', 'assignee_id'], ['productionLocationId', 'production_location_id'],
  ['defaultConsumptionLocationId', 'default_consumption_location_id'], ['sourceFlowId', 'source_flow_id'], ['sourceTodoId', 'source_todo_id'],
  ['sourceOrderIds', 'source_order_ids'], ['tags', 'tags'], ['plannedLaborCost', 'planned_labor_cost'], ['actualLaborCost', 'actual_labor_cost'],
];

/**
 * Checks every reference the patch names, all at once: a missing location, flow, task or order is
 * 404 naming each one; an unknown assignee 404. A retired assignee is 400 only when newly assigned:
 * one the work order already names stays (a client re-sending the header it read must not fail).
 * Nothing is written on failure.
 */
async function checkReferences(ctx: ShopContext, patch: HeaderPatch, currentAssigneeId: string | null): Promise<void> {
  const locations = [patch.productionLocationId, patch.defaultConsumptionLocationId].filter((v): v is string => typeof v === 'string');
  const orders = patch.sourceOrderIds ?? [];
  const [people, knownLocations, knownOrders] = await Promise.all([
    findPeopleReferences(ctx, { assigneeId: patch.assigneeId ?? null, flowId: patch.sourceFlowId ?? null, taskId: patch.sourceTodoId ?? null }),
    locations.length === 0 ? [] : ctx.platform.listLocations(),
    orders.length === 0 ? [] : ctx.platform.getOrders(orders),
  ]);
  const missing: MissingRef[] = [];
  const locationIds = new Set(knownLocations.map((l) => l.locationId));
  for (const id of new Set(locations)) if (!locationIds.has(id)) missing.push({ kind: 'location', id });
  if (typeof patch.sourceFlowId === 'string' && !people.flow) missing.push({ kind: 'flow', id: patch.sourceFlowId });
  if (typeof patch.sourceTodoId === 'string' && !people.task) missing.push({ kind: 'task', id: patch.sourceTodoId });
  const orderIds = new Set(knownOrders.map((o) => o.orderId));
  for (const id of new Set(orders)) if (!orderIds.has(id)) missing.push({ kind: 'order', id });
  const assignee = people.assignee;
  if (typeof patch.assigneeId === 'string' && !assignee) missing.push({ kind: 'assignee', id: patch.assigneeId });
  if (missing.length > 0) {
    throw new DomainError('NOT_FOUND', `not found: ${missing.map((m) => `${m.kind} ${m.id}`).join(', ')}`, { missing });
  }
  if (assignee && assignee.active === false && patch.assigneeId !== currentAssigneeId) throw DomainError.invalid('assigneeId', `assignee ${patch.assigneeId} is retired; choose an active one`);
}

/**
 * Edits header fields of a work order under its optimistic lock. Absent fields stay, `null`
 * clears; unknown fields never reach here. A patch that changes nothing returns the current token.
 */
export async function updateWorkOrderHeader(ctx: ShopContext, workOrderId: string, patch: HeaderPatch): Promise<{ workOrderId: string; updatedAt: Date }> {
  const expected = parseToken(patch.expectedUpdatedAt);
  throwIfInvalid(headerFieldErrors(patch));
  return inShopTransaction(ctx, async (tx) => {
    const row = await lockForWrite(tx, workOrderId, expected);
    await checkReferences(tx, patch, row.assigneeId);
    const set: Record<string, unknown> = {};
    for (const [field, column] of COLUMNS) {
      const value = patch[field];
      if (value === undefined) continue;
      if (field === 'sourceOrderIds' || field === 'tags') set[column] = textArrayLiteral((value as string[] | null) ?? []);
      else if (field === 'plannedLaborCost' || field === 'actualLaborCost') set[column] = value === null ? null : String(value);
      else set[column] = value;
    }
    if (Object.keys(set).length === 0) return { workOrderId, updatedAt: row.updatedAt };
    const updatedAt = nextUpdatedAt(row.updatedAt);
    await Promise.all([
      touchWorkOrder(tx.em, tx.shopId, workOrderId, updatedAt, set),
      recordWorkOrderEvent(tx, 'work_order.updated', workOrderId, updatedAt, { changed: COLUMNS.filter(([field]) => patch[field] !== undefined).map(([field]) => field) }),
    ]);
    return { workOrderId, updatedAt };
  });
}
