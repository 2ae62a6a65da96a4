import { sql } from 'kysely';
import type { SortDirection } from '../../db/keyset.ts';
import { runSql } from '../../db/typed-sql.ts';
import { pageOf, type PageRequest } from '../../kernel/limits.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { BomStatusFilter } from './recipe-vocabulary.ts';
import { BOM_SORT_KEYS, bomCount, bomFilter, bomSortExpression, bomSortOf } from './bom-filters.ts';
import { bomRows } from './bom-rows.ts';
import type { BomView } from './bom-views.ts';
import { recipesSql } from './tables.ts';

export { BOM_SORTS, type BomSort } from './bom-filters.ts';

export interface BomListInput extends PageRequest {
  search: string | null; statusFilter: BomStatusFilter; sortBy: string | null; sortOrder: SortDirection;
}
export interface BomStats { total: number; active: number; inactive: number; totalValue: string; avgCost: string; platformLinked: number }
export interface BomListPage { items: BomView[]; totalCount: number; page: number; pageSize: number; totalPages: number; stats: BomStats }

/**
 * The BOM list in ONE SQL statement whatever the page size or the size of the shop: the page
 * (filtered, sorted, limited in SQL over the BOM list entries), the filtered count (with a search),
 * the stats over every BOM of the shop, and the page's lines (with their materials and cost factors)
 * and finished-good shelves. Nothing here computes a cost: `refreshCostRollup` keeps the roll-up
 * current on every write. Nothing here aggregates the shop either: the stats are the stored row the
 * database keeps with the entries (`bom_list_stats`), so without a search the list is O(page); with
 * one, its count reads every entry that matches (a substring search has no index that counts).
 *
 * search: case-insensitive literal substring of name, sku or bomId (lower-cased when the keys are
 * written, so it matches exactly as `toLowerCase().includes` does). Sort keys: BOM_SORTS (the
 * first is the default; bomId by its number), their keys in bom-filters.ts; nulls last in both
 * directions; ties by bomId ascending. Costs are exact; the Decimal scalar rounds them half-up to 6 places.
 */
export async function listBoms(ctx: ShopContext, input: BomListInput): Promise<BomListPage> {
  const { page, pageSize } = pageOf(input, 'rows');
  const filter = bomFilter(ctx.shopId, input);
  const dir = input.sortOrder === 'desc' ? 'desc' : 'asc';
  const order = sql.join(BOM_SORT_KEYS[bomSortOf(input.sortBy)]
    .map((k) => sql`${bomSortExpression(k)} ${sql.raw(`${k.fixedAsc ? 'asc' : dir}${k.nullable ? ' nulls last' : ''}`)}`));
  const s = ctx.shopId;

  // Every part reads one table, or probes by primary key for the page's rows (bom-rows.ts).
  const boms = bomRows(ctx.catalog, ctx.shopId);
  const rows = await runSql(ctx.em, recipesSql
    .with('page', (db) => db.selectFrom('bom_list_entries as e')
      .select(['e.bom_id', 'e.product_id', 'e.sku', 'e.price', sql<string>`row_number() over (order by ${order})`.as('ord_')])
      .where(filter).orderBy(order).limit(pageSize).offset((page - 1) * pageSize))
    // The stored stats row (none yet: a shop without BOMs), read by primary key.
    .with('n', (db) => db.selectFrom(sql`(select 1)`.as('one')).leftJoin('bom_list_stats as st', (j) => j.on('st.shop_id', '=', s)).select([
      sql<number>`coalesce(st.active, 0) + coalesce(st.inactive, 0)`.as('total'), sql<number>`coalesce(st.active, 0)`.as('active'),
      sql<number>`coalesce(st.inactive, 0)`.as('inactive'), sql<number>`coalesce(st.platform_linked, 0)`.as('platform_linked'),
      sql<string>`coalesce(st.total_value, 0)`.as('total_value'),
    ]))
    .selectFrom('n')
    .leftJoin(boms.query.select(sql.ref<string>('p.ord_').as('ord_')).as('r'), (j) => j.onTrue())
    .select([
      'n.total', 'n.active', 'n.inactive', 'n.platform_linked', sql<string>`trim_scale(n.total_value)::text`.as('total_value'),
      // avgCost = totalValue / total rounded half-up to 6 places, exactly (no intermediate rounding)
      sql<string>`case when n.total = 0 then '0'
        else trim_scale(sign(n.total_value) * div(abs(n.total_value) * 2000000 + n.total, n.total * 2) / 1000000)::text end`.as('avg_cost'),
      bomCount(s, input).as('total_count'),
    ])
    .selectAll('r')
    .orderBy('r.ord_'));

  const first = rows[0]!;
  const totalCount = Number(first.total_count);
  return {
    // The row of an empty page has no BOM (the left join finds none).
    items: rows.filter((r) => r.ord_ !== null).map(boms.toView),
    totalCount, page, pageSize, totalPages: Math.ceil(totalCount / pageSize),
    stats: {
      total: Number(first.total), active: Number(first.active), inactive: Number(first.inactive),
      totalValue: first.total_value, avgCost: first.avg_cost, platformLinked: Number(first.platform_linked),
    },
  };
}
