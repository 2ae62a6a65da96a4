import type { ShopContext } from '../../shop-context.ts';
import { keysetStatement, pageWindow, toConnection, type Connection, type ConnectionArgs, type KeysetRow, type SortColumn } from '../../db/keyset.ts';
import { WORK_ORDER_SORT_KEYS, WORK_ORDER_TIE_KEY, workOrderFilter, type WorkOrderFilterParams } from './work-order-filters.ts';
import type { WorkOrderSort } from './work-order-filters.ts';
import { HEADER_COLUMNS, HEADER_FROM, normaliseRow, type WorkOrderRow } from './work-order.repository.ts';
import { headerView, type WorkOrderHeaderView } from './work-order-view.ts';

/** The REST list's page-size limit (api-v1: max 100). */
export const WORK_ORDER_PAGE_MAX = 100;

export interface WorkOrderConnectionParams extends WorkOrderFilterParams, ConnectionArgs { sortBy: WorkOrderSort | null; sortDir: 'asc' | 'desc' | null }

/**
 * A cursor page of work-order headers with the paged list's filters and sorts (each sort's default
 * direction; ties on workOrderId ascending). Two round trips whatever the page size: the page with
 * its total, and the location names.
 */
export async function workOrderConnection(ctx: ShopContext, params: WorkOrderConnectionParams): Promise<Connection<WorkOrderHeaderView>> {
  const sortBy = params.sortBy ?? 'updatedAt';
  const key = WORK_ORDER_SORT_KEYS[sortBy];
  const dir = params.sortDir ?? key.defaultDir;
  const columns: SortColumn[] = [
    { sql: key.expression, dir, cast: key.cast, nullable: key.nullsLast },
    { sql: WORK_ORDER_TIE_KEY, dir: 'asc', cast: 'text' },
  ];
  const tag = `workOrders:${sortBy}:${dir}`;
  const window = pageWindow(params, WORK_ORDER_PAGE_MAX, tag, columns.length);
  const statement = keysetStatement({
    from: HEADER_FROM, filter: workOrderFilter(ctx.shopId, params), pageColumns: HEADER_COLUMNS, alias: 'p', rowColumns: 'p.*', columns,
  }, window);
  const [rows, locations] = await Promise.all([ctx.em.execute<KeysetRow[]>(statement.sql, statement.args), ctx.platform.listLocations()]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  return toConnection(rows, window, tag, columns.length, (row) => headerView(normaliseRow(row as unknown as WorkOrderRow), names));
}
