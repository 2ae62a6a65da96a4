import { recordEvents, type NewEvent } from '../events/event-log.ts';
import type { EventTopic } from '../events/event-vocabulary.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';

// The work-order module's events. A work order and its build runs are one resource: an endpoint
// receives them in the order they happened.

type WorkOrderTopic = Extract<EventTopic, `work_order.${string}` | `build_run.${string}`>;

export function workOrderEvent(type: WorkOrderTopic, workOrderId: string, updatedAt: Date, data: Record<string, unknown> = {}): NewEvent {
  return { type, resource: `work_order:${workOrderId}`, data: { workOrderId, ...data, updatedAt: updatedAt.toISOString() } };
}

/** Records one work-order event in the transaction of `tx`. */
export function recordWorkOrderEvent(tx: ShopContext, type: WorkOrderTopic, workOrderId: string, updatedAt: Date, data: Record<string, unknown> = {}): Promise<void> {
  return recordEvents(tx, [workOrderEvent(type, workOrderId, updatedAt, data)]);
}
