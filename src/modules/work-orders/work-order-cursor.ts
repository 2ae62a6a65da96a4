import { sql, type Expression, type QueryCreator, type SqlBool } from 'kysely';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import {
  keysetTotals, pageWindow, toConnection, windowSql, type Connection, type ConnectionArgs, type LeftJoined, type PageWindow, type SortColumn, type SortDirection, type WindowSql,
} from '../../db/keyset.ts';
import { runSql } from '../../db/typed-sql.ts';
import { PAGE_LIMITS } from '../../kernel/limits.ts';
import { buildsBom, WORK_ORDER_SORT_KEYS, WORK_ORDER_TIE_KEY, workOrderFilter, type WorkOrderFilterParams } from './work-order-filters.ts';
import type { WorkOrderSort } from './work-order-filters.ts';
import { headerFrom, normaliseHeader, selectHeader, type WorkOrderHeader } from './work-order.repository.ts';
import { workOrdersSql, type WorkOrdersTables } from './tables.ts';
import { headerView, type WorkOrderHeaderView } from './work-order-view.ts';

/** The REST list's page-size limit (api-v1: max 100). */
export const WORK_ORDER_PAGE_MAX = PAGE_LIMITS.workOrders;

export interface WorkOrderConnectionParams extends WorkOrderFilterParams, ConnectionArgs { sortBy: WorkOrderSort | null; sortDir: SortDirection | null }

interface Keyset { columns: SortColumn[]; tag: string; window: PageWindow }

/** The sort columns (each sort's default direction; ties on workOrderId ascending) and the checked page window of a list. */
function workOrderKeyset(params: WorkOrderConnectionParams, list: string): Keyset {
  const sortBy = params.sortBy ?? 'updatedAt';
  const key = WORK_ORDER_SORT_KEYS[sortBy];
  const dir = params.sortDir ?? key.defaultDir;
  const columns: SortColumn[] = [
    { key: sql.raw(key.expression), dir, cast: key.cast, nullable: key.nullsLast },
    { key: sql.raw(WORK_ORDER_TIE_KEY), dir: 'asc', cast: 'text' },
  ];
  const tag = `${list}:${sortBy}:${dir}`;
  return { columns, tag, window: pageWindow(params, WORK_ORDER_PAGE_MAX, tag, columns.length) };
}

/** The window's page of the headers matching `filter`: its rows with their sort keys and their place (`ord_`). */
const pageOf = (db: QueryCreator<WorkOrdersTables>, filter: Expression<SqlBool>, w: WindowSql) =>
  selectHeader(headerFrom(db)).select(w.keys).where(filter).where(w.bounds).orderBy(w.order).limit(w.limit);

/** The filtered total, and whether rows lie on the far side of the cursor the page starts from. */
const countAndOutside = (filter: Expression<SqlBool>, w: WindowSql) => keysetTotals(() => headerFrom().where(filter), w);

/** A row that carries a page entry holds the header as `selectHeader` types it (the left join only makes it nullable). */
const pageNode = (names: ReadonlyMap<string, string>) => (row: LeftJoined<WorkOrderHeader>) => headerView(normaliseHeader(row as WorkOrderHeader), names);

/**
 * A cursor page of work-order headers with the paged list's filters and sorts. Two round trips
 * whatever the page size: the page with its total (one statement: the page, the filtered count
 * and the far-side test, as db/keyset.ts shapes it), and the location names.
 */
export async function workOrderConnection(ctx: ShopContext, params: WorkOrderConnectionParams): Promise<Connection<WorkOrderHeaderView>> {
  const { columns, tag, window } = workOrderKeyset(params, 'workOrders');
  const w = windowSql(columns, window);
  const filter = workOrderFilter(ctx.shopId, params);
  const [rows, locations] = await Promise.all([
    runSql(ctx.em, workOrdersSql.with('page', (db) => pageOf(db, filter, w))
      .selectFrom(sql<{ one: number }>`(select 1)`.as('one')).leftJoin('page as p', (j) => j.onTrue())
      .select(countAndOutside(filter, w)).selectAll('p').orderBy('p.ord_')),
    ctx.platform.listLocations(),
  ]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  return toConnection(rows, window, tag, columns.length, pageNode(names));
}

/** Validates a BOM's work-order page arguments once, before any read (INVALID_INPUT naming the argument). */
export function bomWorkOrderWindow(params: WorkOrderConnectionParams): void {
  workOrderKeyset(params, 'bomWorkOrders');
}

/**
 * For each of `bomIds`, the same cursor page of the work orders that build it (the filters and
 * sorts of the list; a cursor of one BOM's page seeks in any BOM's list). Two round trips whatever
 * the number of BOMs or the page size: one statement of a lateral page per BOM, each with its
 * total, and the location names.
 */
export async function bomWorkOrderConnections(
  ctx: ShopContext, bomIds: readonly string[], params: WorkOrderConnectionParams,
): Promise<Connection<WorkOrderHeaderView>[]> {
  const { columns, tag, window } = workOrderKeyset(params, 'bomWorkOrders');
  const w = windowSql(columns, window);
  const scope = sql<SqlBool>`${workOrderFilter(ctx.shopId, { ...params, bomId: null })} and ${buildsBom(sql.ref('b.bom_id'))}`;
  const [rows, locations] = await Promise.all([
    runSql(ctx.em, workOrdersSql
      .selectFrom(sql<{ bom_id: string; n: number }>`unnest(${textArrayLiteral(bomIds)}::text[]) with ordinality`.as<'b'>(sql`b(bom_id, n)`))
      .leftJoinLateral(pageOf(workOrdersSql, scope, w).as('p'), (j) => j.onTrue())
      .select('b.bom_id as owner').select(countAndOutside(scope, w)).selectAll('p')
      .orderBy('b.n').orderBy('p.ord_')),
    ctx.platform.listLocations(),
  ]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  const byBom = new Map<string, typeof rows>(bomIds.map((id) => [id, []]));
  for (const row of rows) byBom.get(row.owner)?.push(row);
  return bomIds.map((id) => toConnection(byBom.get(id)!, window, tag, columns.length, pageNode(names)));
}
