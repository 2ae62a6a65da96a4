import type { Orm } from '../../src/db/orm.ts';

// What the tests of platform level changes read of a shop's events: where its sequence stands, and the
// `inventory.level_changed` events committed after that, oldest first, with their `data` parsed.

export interface LevelEvent { resource: string; data: Record<string, unknown> & { source: string; before: number; after: number } }

/** The shop's last event sequence ("0" before its first event). */
export async function lastEventSequence(orm: Orm, shopId: string): Promise<string> {
  const [row] = await orm.em.fork().execute<{ last: string }[]>('select coalesce(max(sequence), 0)::text as last from events where shop_id = ?', [shopId]);
  return row!.last;
}

/** `inventory.level_changed` events after sequence `since`, of one `resource` when given. */
export async function levelEventsSince(orm: Orm, shopId: string, since: string, resource?: string): Promise<LevelEvent[]> {
  const rows = await orm.em.fork().execute<{ resource: string; data: string }[]>(
    `select resource, data from events where shop_id = ? and type = 'inventory.level_changed' and sequence > ?${resource ? ' and resource = ?' : ''} order by sequence`,
    resource ? [shopId, since, resource] : [shopId, since]);
  return rows.map((r) => ({ resource: r.resource, data: JSON.parse(r.data) as LevelEvent['data'] }));
}
