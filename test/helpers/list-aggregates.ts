import { expect } from 'vitest';
import { exact } from '../../src/kernel/numbers/index.ts';
import type { TestApp } from './test-app.ts';

// The lists' stored per-shop aggregates (material_list_counts, bom_list_stats: kept by triggers,
// Migration20261202090000) against the same aggregates counted from scratch over the shop's rows.

type Row = Record<string, unknown>;
const query = (t: TestApp, text: string, params: unknown[]) => t.orm.em.fork().getConnection().execute<Row[]>(text, params);

/** The unfiltered materials list's count: stored, and recounted (both origins, archived ones left out). */
export async function materialCounts(t: TestApp, shopId: string): Promise<{ stored: number; fresh: number }> {
  const [row] = await query(t, `select coalesce((select listed from material_list_counts where shop_id = ?), 0) as stored,
    (select count(*) from materials where shop_id = ? and archived_at is null) as fresh`, [shopId, shopId]);
  return { stored: Number(row!.stored), fresh: Number(row!.fresh) };
}

export interface BomStatsFigures { active: number; inactive: number; platformLinked: number; totalValue: string }

const figures = (row: Row): BomStatsFigures => ({
  active: Number(row.active), inactive: Number(row.inactive), platformLinked: Number(row.platform_linked), totalValue: exact(String(row.total_value)).toFixed(),
});

/**
 * The BOM list's stats: stored, and recounted. `from: 'boms'` recounts from their definition (the
 * BOMs not archived, their finished-good variants, their roll-up totals); `'entries'` from the list
 * entries the triggers follow (for tests that write the entries directly).
 */
export async function bomStats(t: TestApp, shopId: string, from: 'boms' | 'entries' = 'boms'): Promise<{ stored: BomStatsFigures; fresh: BomStatsFigures }> {
  const [stored] = await query(t, `select coalesce(max(active), 0) as active, coalesce(max(inactive), 0) as inactive,
    coalesce(max(platform_linked), 0) as platform_linked, coalesce(max(total_value), 0)::text as total_value from bom_list_stats where shop_id = ?`, [shopId]);
  const [fresh] = from === 'boms'
    ? await query(t, `select count(*) filter (where b.status = 'active') as active, count(*) filter (where b.status = 'inactive') as inactive,
        count(b.variant_id) as platform_linked, coalesce(sum(c.total_cost), 0)::text as total_value
      from boms b left join bill_costs c on c.shop_id = b.shop_id and c.owner_type = 'bom' and c.owner_id = b.bom_id
      where b.shop_id = ? and b.archived_at is null`, [shopId])
    : await query(t, `select count(*) filter (where status = 'active') as active, count(*) filter (where status = 'inactive') as inactive,
        count(variant_id) as platform_linked, coalesce(sum(total_cost), 0)::text as total_value from bom_list_entries where shop_id = ?`, [shopId]);
  return { stored: figures(stored!), fresh: figures(fresh!) };
}

/** Asserts the stored materials count is the recount; returns it. */
export async function expectMaterialCountCurrent(t: TestApp, shopId: string): Promise<number> {
  const { stored, fresh } = await materialCounts(t, shopId);
  expect(stored, `stored materials count of ${shopId}`).toBe(fresh);
  return stored;
}

/** Asserts the stored BOM stats are the recount; returns them. */
export async function expectBomStatsCurrent(t: TestApp, shopId: string, from: 'boms' | 'entries' = 'boms'): Promise<BomStatsFigures> {
  const { stored, fresh } = await bomStats(t, shopId, from);
  expect(stored, `stored BOM stats of ${shopId}`).toEqual(fresh);
  return stored;
}
