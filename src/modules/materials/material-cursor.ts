import type { ShopContext } from '../../shop-context.ts';
import { keysetStatement, pageWindow, toConnection, type Connection, type ConnectionArgs, type KeysetRow, type SortColumn, type SortDirection } from '../../db/keyset.ts';
import { PAGE_LIMITS } from '../../limits.ts';
import {
  MATERIAL_SORT_KEYS, MATERIAL_TIE_KEY, MATERIALS_WITH_QUANTITY, materialFilter, materialSortOf, type MaterialFilterParams, type MaterialSort,
} from './material-filters.ts';
import { MATERIAL_COLUMNS, toMaterialView, type MaterialView } from './material-view.ts';

/** The REST list's page-size limit (api-v1: up to 1000). */
export const MATERIAL_PAGE_MAX = PAGE_LIMITS.rows;

export interface MaterialConnectionParams extends MaterialFilterParams, ConnectionArgs {
  sortBy: string | null;
  sortOrder: SortDirection;
}

function sortColumns(sort: MaterialSort, dir: SortDirection): SortColumn[] {
  return [
    ...MATERIAL_SORT_KEYS[sort].map((k): SortColumn => ({ sql: k.sql, dir, cast: k.numeric ? 'numeric' : 'text', nullable: k.nullable })),
    { sql: MATERIAL_TIE_KEY, dir: 'asc', cast: 'text' },
  ];
}

/**
 * A cursor page of the shop's raw materials with the REST list's filters and sorts (ties on
 * variantId ascending). One statement: the page seeks from its cursor and stops at the page's end
 * (O(page) on the name sorts); the total count reads every matching row, as the REST list does,
 * and the quantity sort sums the virtual levels once.
 */
export async function materialConnection(ctx: ShopContext, params: MaterialConnectionParams): Promise<Connection<MaterialView>> {
  const sort = materialSortOf(params.sortBy);
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const columns = sortColumns(sort, dir);
  const tag = `materials:${sort}:${dir}`;
  const window = pageWindow(params, MATERIAL_PAGE_MAX, tag, columns.length);
  const quantitySort = sort === 'inventoryQuantity';
  const statement = keysetStatement({
    from: quantitySort ? MATERIALS_WITH_QUANTITY : 'materials m',
    fromArgs: quantitySort ? [ctx.shopId] : [],
    countFrom: 'materials m',
    filter: materialFilter(ctx.shopId, params),
    pageColumns: 'm.*',
    alias: 'm',
    rowColumns: MATERIAL_COLUMNS,
    columns,
  }, window);
  const rows = await ctx.em.execute<KeysetRow[]>(statement.sql, statement.args);
  return toConnection(rows, window, tag, columns.length, (row) => toMaterialView(row));
}
