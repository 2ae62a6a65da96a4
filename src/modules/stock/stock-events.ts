import type { Em } from '../../db/orm.ts';
import type { NewEvent } from '../events/event-log.ts';
import { jsonDecimal, recordEvents } from '../events/event-log.ts';
import { exact } from '../../numbers/index.ts';
import type { PlatformLevelChange } from '../../platform/gateway.ts';
import { levelKey } from '../../platform/pending-aware-gateway.ts';
import type { AdjustmentRecord, MovementSource } from './ledger.ts';
import { pendingLevelDeltas } from './platform-push.repository.ts';
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
    },
  }]));
}

/**
 * `inventory.level_changed` of levels the platform moved (source `platform`), for the platform-linked
 * materials among them: bomcore's view, as every read shows it, so before and after include the
 * outbox's pending pushes (which the platform's change left as they were). A level the platform
 * dropped reads as 0 plus what is pending. Three round trips at most, in the caller's transaction.
 */
export async function recordPlatformLevelEvents(em: Em, shopId: string, changes: readonly PlatformLevelChange[]): Promise<void> {
  if (changes.length === 0) return;
  const pending = await pendingLevelDeltas(em, shopId, changes.map((c) => c.variantId), [...new Set(changes.map((c) => c.locationId))]);
  const source: LevelChangeSource = 'platform';
  await recordEvents({ shopId, em }, changes.map((c): NewEvent => {
    const held = exact(pending.get(levelKey(c.variantId, c.locationId)) ?? '0');
    const before = held.plus(c.before ?? '0');
    const after = held.plus(c.after ?? '0');
    return {
      type: 'inventory.level_changed',
      resource: `inventory:material:${c.variantId}@${c.locationId}`,
      data: {
        stock: 'material', variantId: c.variantId, locationId: c.locationId,
        before: jsonDecimal(before.toFixed()), after: jsonDecimal(after.toFixed()), delta: jsonDecimal(after.minus(before).toFixed()),
        source, adjustmentId: null, workOrderId: null, buildRunId: null, orderId: null, fulfilmentId: null,
      },
    };
  }));
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
