import { DomainError } from '../../kernel/domain-error.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { requireWorkOrder } from './work-order-read.service.ts';
import type { WorkOrderHeader } from './work-order.repository.ts';

/** `expectedUpdatedAt` as an instant; a value that is not an ISO 8601 date-time is 400 naming the field. */
export function parseToken(expectedUpdatedAt: string | Date): Date {
  const date = expectedUpdatedAt instanceof Date ? expectedUpdatedAt : new Date(expectedUpdatedAt);
  if (Number.isNaN(date.getTime()) || (typeof expectedUpdatedAt === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(expectedUpdatedAt))) {
    throw DomainError.invalid('expectedUpdatedAt', 'must be the ISO 8601 updatedAt last read');
  }
  return date;
}

/**
 * Locks the work-order row (inside the caller's transaction) and checks the optimistic-lock token:
 * a concurrent writer waits for the lock and then sees the new token, so of several writes sent
 * with one token exactly one succeeds and the others are 409.
 */
export async function lockForWrite(tx: ShopContext, workOrderId: string, expectedUpdatedAt: Date): Promise<WorkOrderHeader> {
  const row = await requireWorkOrder(tx, workOrderId, true);
  assertToken(row, expectedUpdatedAt);
  return row;
}

export function assertToken(row: WorkOrderHeader, expectedUpdatedAt: Date): void {
  if (row.updatedAt.getTime() !== expectedUpdatedAt.getTime()) {
    throw new DomainError('CONFLICT', `work order ${row.workOrderId} was changed since expectedUpdatedAt (now ${row.updatedAt.toISOString()}); read it again and re-send`);
  }
}
