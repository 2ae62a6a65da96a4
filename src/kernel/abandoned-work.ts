import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Work nobody waits for any more does not start. A request its deadline already answered 503
 * (src/http/admission/deadline.ts) is abandoned: its handler's next statement, or its wait for a
 * pooled connection, fails with `WorkAbandonedError` instead of running (src/db/orm.ts,
 * src/db/abandoned-work-guard.ts). Before, such work stayed queued for the database pool and ran
 * there, statement after statement, after its client had its answer: under database faults the
 * pool worked through it for a minute, ahead of live requests, and closing waited for it.
 *
 * A statement already running is left to finish (the database cancels it at statement_timeout),
 * and so is the COMMIT or ROLLBACK of a transaction it began: only new statements are refused, so
 * a transaction stopped half-way rolls back whole.
 */
export interface WorkHandle {
  /** Set once the work's requester no longer waits for it. */
  abandoned: boolean;
}

const current = new AsyncLocalStorage<WorkHandle>();

/** Runs `work` (and everything it continues into) as the work of `handle`. */
export function runAsWorkOf<T>(handle: WorkHandle, work: () => T): T {
  return current.run(handle, work);
}

/** Runs `work` as nobody's: bookkeeping after an answer (an idempotency key's record) is never abandoned. */
export function runDetached<T>(work: () => T): T {
  return current.exit(work);
}

const WORK_ABANDONED = 'BOMCORE_WORK_ABANDONED';

/** The work was abandoned (its request answered 503 at its deadline): this statement was not started. */
export class WorkAbandonedError extends Error {
  /** Kept when a driver wraps the error (MikroORM copies own properties, not the name). */
  readonly code = WORK_ABANDONED;

  constructor() {
    super('not started: the request this work was for was already answered (its deadline passed)');
    this.name = 'WorkAbandonedError';
  }
}

/** True when the running code is work whose requester no longer waits for it. */
export function workAbandoned(): boolean {
  return current.getStore()?.abandoned === true;
}

/** Throws `WorkAbandonedError` when the running code is abandoned work. */
export function refuseAbandonedWork(): void {
  if (workAbandoned()) throw new WorkAbandonedError();
}

/** True when `error` (or its cause, bounded) is `WorkAbandonedError`. */
export function isWorkAbandoned(error: unknown): boolean {
  let e: unknown = error;
  for (let i = 0; i < 5 && typeof e === 'object' && e !== null; i++) {
    if ((e as { name?: unknown }).name === 'WorkAbandonedError' || (e as { code?: unknown }).code === WORK_ABANDONED) return true;
    e = (e as { originalError?: unknown; cause?: unknown }).originalError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}
