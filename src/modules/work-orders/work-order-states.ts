import { DomainError } from '../../kernel/domain-error.ts';
import { TRANSITION_BLOCKERS, type BlockerCode, type BuildRunType, type TransitionDirection, type WorkOrderStatus } from './work-order-vocabulary.ts';

// The work-order state machine: the state table (the one both the transition guard and
// `availableTransitions` read), the blockers judged on a work order's facts, and the refusal a
// blocked move or build run answers. Its values (statuses, directions, blocker codes) are the
// vocabulary's (work-order-vocabulary.ts).

interface StateMoves { forward: WorkOrderStatus | null; back: WorkOrderStatus | null; other: readonly WorkOrderStatus[] }

/**
 * The state table: from each status, the forward step, the back step and the other moves. Both the
 * transition guard and `availableTransitions` read it.
 */
export const WORK_ORDER_TRANSITIONS: Readonly<Record<WorkOrderStatus, StateMoves>> = {
  draft: { forward: 'ready', back: null, other: ['in_progress', 'cancelled'] },
  ready: { forward: 'in_progress', back: 'draft', other: ['cancelled'] },
  in_progress: { forward: 'quality_control', back: 'ready', other: ['paused', 'cancelled'] },
  paused: { forward: 'in_progress', back: null, other: ['cancelled'] },
  quality_control: { forward: 'qc_approved', back: 'in_progress', other: ['cancelled'] },
  qc_approved: { forward: 'completed', back: 'quality_control', other: ['cancelled'] },
  completed: { forward: null, back: 'qc_approved', other: [] },
  cancelled: { forward: null, back: 'draft', other: [] },
};

export interface TransitionMove { to: WorkOrderStatus; direction: TransitionDirection | null }

/** Every move the table has from `from`, forward and back first (each with its direction). */
export function movesFrom(from: WorkOrderStatus): TransitionMove[] {
  const row = WORK_ORDER_TRANSITIONS[from];
  const moves: TransitionMove[] = [];
  if (row.forward) moves.push({ to: row.forward, direction: 'forward' });
  if (row.back) moves.push({ to: row.back, direction: 'back' });
  for (const to of row.other) moves.push({ to, direction: null });
  return moves;
}

/** The facts a transition's blockers are judged on. */
export interface TransitionFacts {
  itemCount: number;
  hasProductionLocation: boolean;
  liveRunCount: number;
  startedRunCount: number;
  openReworkCount: number;
}

/** The blockers of moving to `to` (the move itself already in the table). Empty = allowed now. */
export function blockersOf(from: WorkOrderStatus, to: WorkOrderStatus, facts: TransitionFacts): BlockerCode[] {
  const blockers: BlockerCode[] = [];
  // Cancelling an empty draft is allowed: the rule guards moves towards production.
  if (from === 'draft' && to !== 'cancelled' && facts.itemCount === 0) blockers.push('NO_ITEMS');
  if (to === 'in_progress' && !facts.hasProductionLocation) blockers.push('NO_PRODUCTION_LOCATION');
  if (to === 'quality_control' && facts.liveRunCount === 0) blockers.push('NO_BUILD_RUN');
  if (to === 'completed' && facts.openReworkCount > 0) blockers.push('OPEN_REWORK');
  if ((to === 'cancelled' || to === 'paused') && facts.startedRunCount > 0) blockers.push('RUN_IN_PROGRESS');
  return blockers;
}

/** Exactly the moves that would succeed now. */
export function availableTransitions(from: WorkOrderStatus, facts: TransitionFacts): TransitionMove[] {
  return movesFrom(from).filter((m) => blockersOf(from, m.to, facts).length === 0);
}

/** Where a build run may start, and which run types. */
export function buildRunAllowed(status: WorkOrderStatus, runType: BuildRunType): boolean {
  if (status === 'in_progress' || status === 'qc_approved') return true;
  return status === 'quality_control' && runType === 'rework';
}

/** The refusal of a blocked move or build run: 409 CONFLICT naming each blocker with its meaning. */
export function blockedError(workOrderId: string, codes: readonly BlockerCode[], what: string): DomainError {
  return new DomainError('CONFLICT', `work order ${workOrderId}: ${what} is blocked (${codes.join(', ')})`, {
    blockers: codes.map((code) => ({ code, message: TRANSITION_BLOCKERS[code] })),
  });
}
