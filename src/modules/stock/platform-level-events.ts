import type { Em } from '../../db/orm.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ConfirmedPush, PlatformLevelChange, PlatformLevelInfo } from '../../kernel/platform-port/gateway.ts';
import { recordEvents } from '../events/event-log.ts';
import { levelKey, pendingLevelDeltas } from './platform-push.repository.ts';
import { platformLevelEvent, type PushEventRow } from './stock-events.ts';

// Levels of platform-linked materials that moved without a movement of bomcore's ledger, told as
// `inventory.level_changed` events with source `platform`: a change the platform made itself (taken
// from its webhook or a reconciliation read), and the rare confirmation of a push that moved
// bomcore's view of a level (its answer was lost and the push's own webhook came first). Each event
// is bomcore's view, as every read shows it: the platform's level plus the pushes still pending.

/**
 * Events of levels the platform moved, for the caller's platform-linked materials among them. Two
 * round trips (pending pushes, the events), in the caller's transaction; none when nothing moved.
 */
export async function recordPlatformLevelEvents(em: Em, shopId: string, changes: readonly PlatformLevelChange[]): Promise<void> {
  if (changes.length === 0) return;
  // The platform's change left the pending pushes as they were: they are in the view before and after.
  const pending = await pendingLevelDeltas(em, shopId, changes.map((c) => c.variantId), [...new Set(changes.map((c) => c.locationId))]);
  await recordEvents({ shopId, em }, changes.map((c) => {
    const held = exact(pending.get(levelKey(c.variantId, c.locationId)) ?? '0');
    return platformLevelEvent(c.variantId, c.locationId, held.plus(c.before ?? '0'), held.plus(c.after ?? '0'));
  }));
}

/**
 * After pushes were marked pushed (in that transaction): a push leaving the outbox takes its delta
 * out of the view, and writing the platform's answer moved the platform's level by `levelChange`.
 * Usually the two cancel (the answer is the level plus the delta) and nothing is told. When they do
 * not — the push's own webhook had already moved the level, or the answer folded in another change —
 * the view moved by the difference, which is told as a platform change from (level − difference) to
 * the level. Round trips only then: the platform's levels, then `recordPlatformLevelEvents`.
 */
export async function recordPushConfirmationEvents(
  em: Em, shopId: string, marked: readonly PushEventRow[], confirmed: readonly ConfirmedPush[],
  platformLevels: (variantIds: readonly string[], locationIds: readonly string[]) => Promise<PlatformLevelInfo[]>,
): Promise<void> {
  const change = new Map(confirmed.map((c) => [c.pushId, c.levelChange]));
  const moved = new Map<string, { variantId: string; locationId: string; by: Exact }>();
  for (const row of marked) {
    const levelChange = change.get(row.push_id);
    if (levelChange === undefined) continue;
    const key = levelKey(row.variant_id, row.location_id);
    const entry = moved.get(key) ?? { variantId: row.variant_id, locationId: row.location_id, by: ZERO };
    entry.by = entry.by.plus(levelChange).minus(row.delta);
    moved.set(key, entry);
  }
  const told = [...moved.values()].filter((m) => !m.by.isZero());
  if (told.length === 0) return;
  const levels = await platformLevels(told.map((m) => m.variantId), [...new Set(told.map((m) => m.locationId))]);
  const platform = new Map(levels.map((l) => [levelKey(l.variantId, l.locationId), l.available]));
  await recordPlatformLevelEvents(em, shopId, told.map((m) => {
    const now = exact(platform.get(levelKey(m.variantId, m.locationId)) ?? '0');
    return { variantId: m.variantId, locationId: m.locationId, before: now.minus(m.by).toFixed(), after: now.toFixed() };
  }));
}
