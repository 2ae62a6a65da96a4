import type { Orm } from '../../db/orm.ts';
import { startPeriodicPass } from '../../kernel/jobs/periodic-pass.ts';
import { fillPendingBillVersions } from './bill-version-write.ts';

// The background step of bill versions (see bill-version-write.ts): a timer that completes pending
// versions shortly after their saves commit. It owns no state of its own: everything it needs is
// in the pending rows, so a filler that stops (or a process that dies) loses nothing — the next
// pass, of this process or another, picks the rows up.

export interface BillVersionFillerOptions {
  orm: Orm;
  /** Pause between passes (a pass that filled a full batch is followed at once). 0 = no timer: `fillOnce` only. */
  intervalMs: number;
  /** Versions completed per pass. */
  batchSize: number;
  logger: { warn(details: Record<string, unknown>, message: string): void };
  /** Only these shops (tests sharing a database). Default: every shop. */
  shopIds?: readonly string[];
}

export interface BillVersionFiller {
  /** One pass; resolves how many versions became ready (0 once stopped). */
  fillOnce(): Promise<number>;
  /** Stops the timer and waits for the pass in flight; call before the ORM closes. */
  stop(): Promise<void>;
}

export function startBillVersionFiller(options: BillVersionFillerOptions): BillVersionFiller {
  const { orm, intervalMs, batchSize, logger } = options;
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new Error('bill version filler batchSize must be a positive integer');
  const loop = startPeriodicPass({
    pass: () => fillPendingBillVersions(orm.em.fork(), { shopIds: options.shopIds ?? null, limit: batchSize }),
    stoppedResult: 0,
    intervalMs,
    firstDelayMs: 0,
    backlog: (filled) => filled >= batchSize,
    // The rows stay pending and are retried on the next pass.
    onError: (error) => logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'bill version fill failed'),
  });
  return { fillOnce: loop.runOnce, stop: loop.stop };
}
