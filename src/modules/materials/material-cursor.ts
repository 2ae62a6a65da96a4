import type { ShopContext } from '../../shop-context.ts';
import { keysetStatement, pageWindow, toConnection, type Connection, type ConnectionArgs, type KeysetRow, type SortColumn, type SortDirection } from '../../db/keyset.ts';
import { PAGE_LIMITS } from '../../limits.ts';
import { expressionBuilder, sql, type OperationNodeSource } from 'kysely';
import {
  MATERIAL_SORT_KEYS, MATERIAL_TIE_KEY, materialFilter, materialSortOf, materialsWithQuantity, type MaterialFilterParams, type MaterialSort,
} from './material-filters.ts';
import { materialColumns, toMaterialView, type MaterialRow, type MaterialView } from './material-view.ts';
import { materialsSql } from './tables.ts';

/** The REST list's page-size limit (api-v1: up to 1000). */
export const MATERIAL_PAGE_MAX = PAGE_LIMITS.rows;

export interface MaterialConnectionParams extends MaterialFilterParams, ConnectionArgs {
  sortBy: string | null;
  sortOrder: SortDirection;
}

/** A built fragment as the text and arguments `keysetStatement` (shared with other lists) puts together. */
function piece(fragment: OperationNodeSource | readonly OperationNodeSource[]): { sql: string; args: unknown[] } {
  const compiled = (Array.isArray(fragment) ? sql.join(fragment) : sql`${fragment}`).compile(materialsSql);
  return { sql: compiled.sql, args: [...compiled.parameters] };
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
  // Sorting by quantity needs every matching row's quantity: virtual levels summed in one pass.
  const from = sort === 'inventoryQuantity' ? piece(materialsWithQuantity(ctx.shopId)) : null;
  const rowColumns = piece(materialColumns(expressionBuilder()));
  const statement = keysetStatement({
    from: from ? `(${from.sql}) m` : 'materials m',
    fromArgs: from?.args ?? [],
    countFrom: 'materials m',
    filter: piece(materialFilter(ctx.shopId, params)),
    pageColumns: 'm.*',
    alias: 'm',
    rowColumns: rowColumns.sql,
    rowArgs: rowColumns.args,
    columns,
  }, window);
  // The statement is put together by the shared keyset builder from the fragments above; its rows
  // are the keyset columns and `materialColumns`.
  const rows = await ctx.em.execute<(KeysetRow & MaterialRow)[]>(statement.sql, statement.args);
  return toConnection(rows, window, tag, columns.length, (row) => toMaterialView(row as KeysetRow & MaterialRow));
}
