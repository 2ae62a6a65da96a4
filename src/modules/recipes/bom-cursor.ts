import type { ShopContext } from '../../shop-context.ts';
import { keysetStatement, pageWindow, toConnection, type Connection, type ConnectionArgs, type KeysetRow, type SortColumn, type SortDirection } from '../../db/keyset.ts';
import { PAGE_LIMITS } from '../../limits.ts';
import { BOM_SORT_KEYS, bomFilter, bomSortOf, type BomFilterParams } from './bom-filters.ts';
import { BOM_ROW_JOINS, bomRowColumns, bomRowJoinArgs, toBomView, type BomRow } from './bom-rows.ts';
import type { BomView } from './bom-views.ts';

function currentRank(shopId: string, column: string, bomId: string | null) {
  return { sql: `select ${column.replace('e.', 'x.')} from bom_list_entries x where x.shop_id = ? and x.bom_id = ?`, args: [shopId, bomId] };
}

/** The REST list's page-size limit (api-v1: up to 1000). */
export const BOM_PAGE_MAX = PAGE_LIMITS.rows;

export interface BomConnectionParams extends BomFilterParams, ConnectionArgs { sortBy: string | null; sortOrder: SortDirection }

/**
 * A cursor page of BOMs with the paged list's filters and sorts (ties on bomId ascending), each
 * row as the list gives it (lines, costs, shelves). One statement whatever the page size: the page
 * seeks on the list entries from its cursor; the total count reads every matching entry.
 */
export async function bomConnection(ctx: ShopContext, params: BomConnectionParams): Promise<Connection<BomView>> {
  const sort = bomSortOf(params.sortBy);
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const columns = BOM_SORT_KEYS[sort].map((k): SortColumn => ({
    sql: k.sql, dir: k.fixedAsc ? 'asc' : dir, cast: k.cast, nullable: k.nullable,
    // Ranks are dense and shift when BOMs are added or renamed: a cursor seeks from its row's
    // current rank (the bomId, its last key, names the row), so a write between pages skips nothing.
    ...(k.sql.endsWith('_rank') ? { current: (values: readonly (string | null)[]) => currentRank(ctx.shopId, k.sql, values.at(-1) ?? null) } : {}),
  }));
  const tag = `boms:${sort}:${dir}`;
  const window = pageWindow(params, BOM_PAGE_MAX, tag, columns.length);
  const rowColumns = bomRowColumns(ctx.catalog, ctx.shopId);
  const statement = keysetStatement({
    from: 'bom_list_entries e',
    filter: bomFilter(ctx.shopId, params),
    pageColumns: 'e.bom_id, e.product_id, e.sku, e.price',
    alias: 'p',
    rowColumns: rowColumns.sql,
    rowArgs: rowColumns.args,
    joins: BOM_ROW_JOINS,
    joinArgs: bomRowJoinArgs(ctx.shopId),
    columns,
  }, window);
  const rows = await ctx.em.execute<KeysetRow[]>(statement.sql, statement.args);
  return toConnection(rows, window, tag, columns.length, (row) => toBomView(row as unknown as BomRow));
}
