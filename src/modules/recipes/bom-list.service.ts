import type { SortDirection } from '../../db/keyset.ts';
import { pageOf, type PageRequest } from '../../limits.ts';
import type { ShopContext } from '../../shop-context.ts';
import type { BomStatusFilter } from './recipe-vocabulary.ts';
import { BOM_SORT_KEYS, bomFilter, bomSortOf } from './bom-filters.ts';
import { BOM_ROW_JOINS, bomRowColumns, bomRowJoinArgs, toBomView, type BomRow } from './bom-rows.ts';
import type { BomView } from './bom-views.ts';

export { BOM_SORTS, type BomSort } from './bom-filters.ts';

export interface BomListInput extends PageRequest {
  search: string | null; statusFilter: BomStatusFilter; sortBy: string | null; sortOrder: SortDirection;
}
export interface BomStats { total: number; active: number; inactive: number; totalValue: string; avgCost: string; platformLinked: number }
export interface BomListPage { items: BomView[]; totalCount: number; page: number; pageSize: number; totalPages: number; stats: BomStats }

interface ListRow extends BomRow {
  total: string | number; active: string | number; inactive: string | number; platform_linked: string | number; total_value: string; avg_cost: string;
  total_count: string | number | null;
}

/**
 * The BOM list in ONE SQL statement whatever the page size or the size of the shop: the page
 * (filtered, sorted, limited in SQL over the BOM list entries), the filtered count (with a search),
 * the stats over every BOM of the shop, and the page's lines (with their materials and cost factors)
 * and finished-good shelves. Nothing here computes a cost: `refreshCostRollup` keeps the roll-up
 * current on every write.
 *
 * search: case-insensitive literal substring of name, sku or bomId (lower-cased when the keys are
 * written, so it matches exactly as `toLowerCase().includes` does). Sort keys: name (default),
 * bomId (by its number), sku, price, totalCost, status; nulls last in both directions; ties by
 * bomId ascending. Costs are exact; the Decimal scalar rounds them half-up to 6 places.
 */
export async function listBoms(ctx: ShopContext, input: BomListInput): Promise<BomListPage> {
  const { page, pageSize } = pageOf(input, 'rows');
  const where = bomFilter(ctx.shopId, input);
  const dir = input.sortOrder === 'desc' ? 'desc' : 'asc';
  const order = BOM_SORT_KEYS[bomSortOf(input.sortBy)]
    .map((k) => `${k.sql} ${k.fixedAsc ? 'asc' : dir}${k.nullable ? ' nulls last' : ''}`).join(', ');
  const searching = (input.search ?? '') !== '';
  const s = ctx.shopId;
  const rowColumns = bomRowColumns(ctx.catalog, s);

  // Every part reads one table, or probes by primary key for the page's rows (lateral, offset 0),
  // so the plan stays cheap even before the planner has statistics (right after a load).
  const rows = await ctx.em.execute<ListRow[]>(
    `with page as (
       select e.bom_id, e.product_id, e.sku, e.price, row_number() over (order by ${order}) as ord
         from bom_list_entries e
        where ${where.sql}
        order by ${order}
        limit ? offset ?
     ),
     counts as (
       select count(*) as total, count(*) filter (where status = 'active') as active, count(*) filter (where status = 'inactive') as inactive,
              count(variant_id) as platform_linked
         from boms where shop_id = ? and archived_at is null
     ),
     value as (select coalesce(sum(total_cost), 0) as total_value from bom_list_entries where shop_id = ?)
     select n.total, n.active, n.inactive, n.platform_linked, trim_scale(v.total_value)::text as total_value,
            -- avgCost = totalValue / total rounded half-up to 6 places, exactly (no intermediate rounding)
            case when n.total = 0 then '0'
                 else trim_scale(sign(v.total_value) * div(abs(v.total_value) * 2000000 + n.total, n.total * 2) / 1000000)::text end as avg_cost,
            ${searching ? `(select count(*) from bom_list_entries e where ${where.sql})` : 'null'} as total_count,
            ${rowColumns.sql}
       from counts n cross join value v
       left join page p on true
       ${BOM_ROW_JOINS}
      order by p.ord`,
    [...where.args, pageSize, (page - 1) * pageSize, s, s, ...(searching ? where.args : []), ...rowColumns.args, ...bomRowJoinArgs(s)],
  );

  const first = rows[0]!;
  // Without a search the filtered count is one of the stats.
  const totalCount = Number(first.total_count ?? (input.statusFilter === 'all' ? first.total : first[input.statusFilter]));
  return {
    items: rows.filter((r) => r.bom_id !== null).map(toBomView),
    totalCount, page, pageSize, totalPages: Math.ceil(totalCount / pageSize),
    stats: {
      total: Number(first.total), active: Number(first.active), inactive: Number(first.inactive),
      totalValue: first.total_value, avgCost: first.avg_cost, platformLinked: Number(first.platform_linked),
    },
  };
}
