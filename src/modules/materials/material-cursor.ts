import type { ShopContext } from '../../kernel/shop-context.ts';
import {
  keysetTotals, pageKeys, pageWindow, toConnection, windowSql, type Connection, type ConnectionArgs, type SortColumn, type SortDirection,
} from '../../db/keyset.ts';
import { runSql } from '../../db/typed-sql.ts';
import { PAGE_LIMITS } from '../../kernel/limits.ts';
import { sql } from 'kysely';
import {
  MATERIAL_SORT_KEYS, materialCount, materialFilter, materialsFrom, materialSortOf, materialTieKey, type MaterialFilterParams, type MaterialSort,
} from './material-filters.ts';
import { materialColumns, toMaterialView, type MaterialView } from './material-view.ts';
import { materialsSql } from './tables.ts';

/** The REST list's page-size limit (api-v1: up to 1000). */
export const MATERIAL_PAGE_MAX = PAGE_LIMITS.rows;

export interface MaterialConnectionParams extends MaterialFilterParams, ConnectionArgs {
  sortBy: string | null;
  sortOrder: SortDirection;
}

function sortColumns(sort: MaterialSort, dir: SortDirection): SortColumn[] {
  return [
    ...MATERIAL_SORT_KEYS[sort].map((k): SortColumn => ({ key: k.key, dir, cast: k.numeric ? 'numeric' : 'text', nullable: k.nullable })),
    { key: materialTieKey(sort), dir: 'asc', cast: 'text' },
  ];
}

/**
 * A cursor page of the shop's raw materials with the REST list's filters and sorts (ties on
 * variantId ascending). One statement: the page seeks from its cursor and stops at the page's end
 * (O(page) on every sort: the quantity sort reads the stored quantity); the total count is the
 * REST list's (`materialCount`: stored without a filter, counted over the matches with one).
 */
export async function materialConnection(ctx: ShopContext, params: MaterialConnectionParams): Promise<Connection<MaterialView>> {
  const sort = materialSortOf(params.sortBy);
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const columns = sortColumns(sort, dir);
  const tag = `materials:${sort}:${dir}`;
  const window = pageWindow(params, MATERIAL_PAGE_MAX, tag, columns.length);
  const w = windowSql(columns, window);
  const filter = materialFilter(ctx.shopId, params);
  const rows = await runSql(ctx.em, materialsSql
    .with('page', () => materialsFrom(sort).selectAll('m').select(w.keys).where(filter).where(w.bounds).orderBy(w.order).limit(w.limit))
    .selectFrom(sql`(select 1)`.as('one'))
    .leftJoin('page as m', (join) => join.onTrue())
    .select((eb) => [
      ...keysetTotals(() => materialsFrom(sort).where(filter), w, materialCount(ctx.shopId, params)),
      ...materialColumns(eb), ...pageKeys('m', w),
    ])
    .orderBy('m.ord_'));
  return toConnection(rows, window, tag, columns.length, toMaterialView);
}
