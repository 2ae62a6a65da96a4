import type { Orm } from '../../src/db/orm.ts';

/**
 * Every stock figure of a shop, read straight from the database as exact decimal text: virtual
 * levels, platform levels, pending outbox pushes, residuals and pre-assembled shelves. Zero rows
 * are dropped, so "no row" and "0" compare equal.
 */
export async function stockSnapshot(orm: Orm, shopId: string): Promise<Record<string, string>> {
  const rows = await orm.em.fork().execute<{ k: string; q: string }[]>(
    `select 'level|' || variant_id || '|' || location_id as k, available::text as q from material_levels where shop_id = ?
     union all select 'platform|' || variant_id || '|' || location_id, available::text from platform_levels where shop_id = ?
     union all select 'pending|' || variant_id || '|' || location_id, sum(delta)::text from platform_pushes where shop_id = ? and status = 'pending' group by variant_id, location_id
     union all select 'residual|' || kind || '|' || item_id || '|' || location_id, quantity::text from residuals where shop_id = ?
     union all select 'shelf|' || item_id || '|' || location_id, quantity::text from preassembled_stock where shop_id = ?`,
    [shopId, shopId, shopId, shopId, shopId],
  );
  const normalise = (q: string) => (q.includes('.') ? q.replace(/0+$/, '').replace(/\.$/, '') : q);
  return Object.fromEntries(rows.map((r) => [r.k, normalise(r.q)]).filter(([, q]) => q !== '0' && q !== '-0').sort(([a], [b]) => (a! < b! ? -1 : 1)));
}

/** Live level of a platform-linked material: platform level + pending pushes (what reads show). */
export function liveLevel(snapshot: Record<string, string>, variantId: string, locationId: string): number {
  return Number(snapshot[`platform|${variantId}|${locationId}`] ?? 0) + Number(snapshot[`pending|${variantId}|${locationId}`] ?? 0);
}
