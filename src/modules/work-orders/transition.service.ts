import { randomUUID } from 'node:crypto';
import { DomainError } from '../../kernel/domain-error.ts';
import { recordWorkOrderEvent } from './work-order-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { insertLifecycleEvent, nextUpdatedAt, touchWorkOrder, transitionFacts } from './work-order.repository.ts';
import type { TransitionDirection, WorkOrderStatus } from './work-order-vocabulary.ts';
import { blockedError, blockersOf, movesFrom, WORK_ORDER_TRANSITIONS } from './work-order-states.ts';
import { lockForWrite, parseToken } from './write-guard.ts';

export interface TransitionInput {
  expectedUpdatedAt: string;
  to: WorkOrderStatus | null;
  direction: TransitionDirection | null;
  note: string | null;
  actorUserId: string | null;
  actorDisplayName: string | null;
}

export interface TransitionResult { workOrderId: string; status: WorkOrderStatus; previousStatus: WorkOrderStatus; updatedAt: Date; lifecycleEventId: string }

/**
 * Moves a work order along the state table, by `to` or by `direction`, after its blockers are
 * checked against the locked row; writes a lifecycle event (note, actor, from, to, time) and the
 * new change token in the same transaction.
 */
export async function transitionWorkOrder(ctx: ShopContext, workOrderId: string, input: TransitionInput): Promise<TransitionResult> {
  if ((input.to === null) === (input.direction === null)) {
    throw new DomainError('INVALID_INPUT', 'send exactly one of to or direction', {
      errors: [{ field: input.to === null ? 'to' : 'direction', message: 'exactly one of to or direction is required' }],
    });
  }
  const expected = parseToken(input.expectedUpdatedAt);
  return inShopTransaction(ctx, async (tx) => {
    const row = await lockForWrite(tx, workOrderId, expected);
    const from = row.status;
    const target = input.to ?? WORK_ORDER_TRANSITIONS[from][input.direction!];
    const move = target === null ? undefined : movesFrom(from).find((m) => m.to === target);
    if (!move) throw blockedError(workOrderId, ['NOT_ALLOWED'], `${from} → ${target ?? input.direction}`);
    const facts = await transitionFacts(tx.em, tx.shopId, workOrderId);
    const blockers = blockersOf(from, move.to, {
      itemCount: facts.items, hasProductionLocation: row.productionLocationId !== null, liveRunCount: facts.liveRuns,
      startedRunCount: facts.startedRuns, openReworkCount: facts.openRework,
    });
    if (blockers.length > 0) throw blockedError(workOrderId, blockers, `${from} → ${move.to}`);
    const updatedAt = nextUpdatedAt(row.updatedAt);
    const eventId = `lce_${randomUUID()}`;
    await Promise.all([
      touchWorkOrder(tx.em, tx.shopId, workOrderId, updatedAt, { status: move.to }),
      insertLifecycleEvent(tx.em, tx.shopId, workOrderId, {
        event_id: eventId, from_status: from, to_status: move.to, note: input.note, actor_user_id: input.actorUserId,
        actor_display_name: input.actorDisplayName, created_at: updatedAt,
      }),
      recordWorkOrderEvent(tx, 'work_order.transitioned', workOrderId, updatedAt, { from, to: move.to, lifecycleEventId: eventId, note: input.note }),
    ]);
    return { workOrderId, status: move.to, previousStatus: from, updatedAt, lifecycleEventId: eventId };
  });
}
