import type { NewEvent } from '../events/event-log.ts';
import { jsonDecimal } from '../events/event-log.ts';
import { exact, type Exact } from '../../kernel/numbers/index.ts';
import type { AdjustmentRecord, MovementSource } from './movements.ts';
import type { LevelChangeSource } from './stock-vocabulary.ts';

// The stock module's events: what the ledger tells integrators about each level it moved.

/** One `inventory.level_changed` per record whose level moved (a change clamped to nothing moved none). */
export function inventoryLevelEvents(records: readonly AdjustmentRecord[], ids: readonly string[], by: MovementSource): NewEvent[] {
  return records.flatMap((r, i): NewEvent[] => (r.applied.isZero() ? [] : [{
    type: 'inventory.level_changed',
    resource: `inventory:${r.stock}:${r.itemId}@${r.locationId}`,
    data: {
      stock: r.stock,
      // A material level is a variant's; a pre-assembled shelf holds an assembly (or a finished good's variant).
      ...(r.stock === 'material' ? { variantId: r.itemId } : { itemId: r.itemId }),
      locationId: r.locationId,
      before: jsonDecimal(r.before.toFixed()),
      after: jsonDecimal(r.after.toFixed()),
      delta: jsonDecimal(r.applied.toFixed()),
      source: by.source,
      adjustmentId: ids[i],
      workOrderId: by.workOrderId,
      buildRunId: by.buildRunId,
      orderId: by.orderId ?? null,
      fulfilmentId: by.fulfilmentId ?? null,
      // A shelf adjusted by hand says why.
      ...(by.reason ? { reason: by.reason, note: by.note ?? null } : {}),
    },
  }]));
}

/**
 * `inventory.level_changed` of a platform-linked material's level that moved without a movement of
 * the ledger (source `platform`): `before` and `after` are bomcore's view (the platform's level plus
 * pending pushes), as every read shows it.
 */
export function platformLevelEvent(variantId: string, locationId: string, before: Exact, after: Exact): NewEvent {
  const source: LevelChangeSource = 'platform';
  return {
    type: 'inventory.level_changed',
    resource: `inventory:material:${variantId}@${locationId}`,
    data: {
      stock: 'material', variantId, locationId,
      before: jsonDecimal(before.toFixed()), after: jsonDecimal(after.toFixed()), delta: jsonDecimal(after.minus(before).toFixed()),
      source, adjustmentId: null, workOrderId: null, buildRunId: null, orderId: null, fulfilmentId: null,
    },
  };
}

/** The columns of a marked push its events need. */
export const PUSH_EVENT_COLUMNS = ['push_id', 'variant_id', 'location_id', 'delta', 'work_order_id', 'build_run_id', 'attempts', 'last_error'] as const;
export interface PushEventRow {
  push_id: string; variant_id: string; location_id: string; delta: string; work_order_id: string | null; build_run_id: string | null;
  attempts: number | string; last_error: string | null;
}

/**
 * After a mark: a push whose first attempt failed (attempts now 1) is stuck; one pushed after
 * failures (attempts now above 1) recovered. Later failures of a stuck push say nothing new.
 */
export function pushEvents(rows: readonly PushEventRow[], outcome: 'failed' | 'stopped' | 'pushed'): NewEvent[] {
  return rows.flatMap((r): NewEvent[] => {
    const attempts = Number(r.attempts);
    const stuck = outcome !== 'pushed' && attempts === 1;
    const recovered = outcome === 'pushed' && attempts > 1;
    if (!stuck && !recovered) return [];
    return [{
      type: stuck ? 'platform.push_stuck' : 'platform.push_recovered',
      resource: `platform_push:${r.push_id}`,
      data: {
        pushId: r.push_id, variantId: r.variant_id, locationId: r.location_id, delta: jsonDecimal(exact(r.delta).toFixed()),
        workOrderId: r.work_order_id, buildRunId: r.build_run_id, attempts,
        ...(stuck ? { error: r.last_error, stopped: outcome === 'stopped' } : {}),
      },
    }];
  });
}
