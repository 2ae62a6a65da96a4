import { sql } from 'kysely';
import type { ShopContext } from '../../kernel/shop-context.ts';
import {
  keysetTotals, pageKeys, pageWindow, toConnection, windowSql, type Connection, type ConnectionArgs, type SortColumn, type SortDirection,
} from '../../db/keyset.ts';
import { runSql } from '../../db/typed-sql.ts';
import { PAGE_LIMITS } from '../../kernel/limits.ts';
import { BOM_SORT_KEYS, bomCount, bomFilter, bomSortExpression, bomSortOf, currentRank, type BomFilterParams } from './bom-filters.ts';
import { bomRows } from './bom-rows.ts';
import type { BomView } from './bom-views.ts';
import { recipesSql } from './tables.ts';

/** The REST list's page-size limit (api-v1: up to 1000). */
export const BOM_PAGE_MAX = PAGE_LIMITS.rows;

export interface BomConnectionParams extends BomFilterParams, ConnectionArgs { sortBy: string | null; sortOrder: SortDirection }

/**
 * A cursor page of BOMs with the paged list's filters and sorts (ties on bomId ascending), each
 * row as the list gives it (lines, costs, shelves). One statement whatever the page size: the page
 * seeks on the list entries from its cursor; the total count is `bomCount`'s (stored without a
 * search, counted over the matches with one).
 */
export async function bomConnection(ctx: ShopContext, params: BomConnectionParams): Promise<Connection<BomView>> {
  const sort = bomSortOf(params.sortBy);
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const columns = BOM_SORT_KEYS[sort].map((k): SortColumn => {
    // Ranks are dense and shift when BOMs are added or renamed: a cursor seeks from its row's
    // current rank (the bomId, its last key, names the row), so a write between pages skips nothing.
    const rank = currentRank(ctx.shopId, k);
    return {
      key: bomSortExpression(k), dir: k.fixedAsc ? 'asc' : dir, cast: k.cast, nullable: k.nullable,
      ...(rank ? { current: (values: readonly (string | null)[]) => rank(values.at(-1) ?? null) } : {}),
    };
  });
  const tag = `boms:${sort}:${dir}`;
  const window = pageWindow(params, BOM_PAGE_MAX, tag, columns.length);
  const w = windowSql(columns, window);
  const filter = bomFilter(ctx.shopId, params);
  const entries = () => recipesSql.selectFrom('bom_list_entries as e').where(filter);
  const boms = bomRows(ctx.catalog, ctx.shopId);
  const rows = await runSql(ctx.em, recipesSql
    .with('page', () => entries().select(['e.bom_id', 'e.product_id', 'e.sku', 'e.price', ...w.keys]).where(w.bounds).orderBy(w.order).limit(w.limit))
    .selectFrom(sql`(select 1)`.as('one'))
    .leftJoin(boms.query.select(pageKeys('p', w)).as('r'), (j) => j.onTrue())
    .select(keysetTotals(entries, w, bomCount(ctx.shopId, params)))
    .selectAll('r')
    .orderBy('r.ord_'));
  return toConnection(rows, window, tag, columns.length, boms.toView);
}
