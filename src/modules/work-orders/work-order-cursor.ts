import type { ShopContext } from '../../shop-context.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import {
  keysetStatement, pageWindow, toConnection, windowSql, type Connection, type ConnectionArgs, type KeysetRow, type PageWindow, type SortColumn, type SortDirection,
} from '../../db/keyset.ts';
import { PAGE_LIMITS } from '../../limits.ts';
import { buildsBomSql, WORK_ORDER_SORT_KEYS, WORK_ORDER_TIE_KEY, workOrderFilter, type WorkOrderFilterParams } from './work-order-filters.ts';
import type { WorkOrderSort } from './work-order-filters.ts';
import { HEADER_COLUMNS, HEADER_FROM, normaliseRow, type WorkOrderRow } from './work-order.repository.ts';
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
    { sql: key.expression, dir, cast: key.cast, nullable: key.nullsLast },
    { sql: WORK_ORDER_TIE_KEY, dir: 'asc', cast: 'text' },
  ];
  const tag = `${list}:${sortBy}:${dir}`;
  return { columns, tag, window: pageWindow(params, WORK_ORDER_PAGE_MAX, tag, columns.length) };
}

/**
 * A cursor page of work-order headers with the paged list's filters and sorts. Two round trips
 * whatever the page size: the page with its total, and the location names.
 */
export async function workOrderConnection(ctx: ShopContext, params: WorkOrderConnectionParams): Promise<Connection<WorkOrderHeaderView>> {
  const { columns, tag, window } = workOrderKeyset(params, 'workOrders');
  const statement = keysetStatement({
    from: HEADER_FROM, filter: workOrderFilter(ctx.shopId, params), pageColumns: HEADER_COLUMNS, alias: 'p', rowColumns: 'p.*', columns,
  }, window);
  const [rows, locations] = await Promise.all([ctx.em.execute<KeysetRow[]>(statement.sql, statement.args), ctx.platform.listLocations()]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  return toConnection(rows, window, tag, columns.length, (row) => headerView(normaliseRow(row as unknown as WorkOrderRow), names));
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
  const filter = workOrderFilter(ctx.shopId, { ...params, bomId: null });
  const scope = `${filter.sql} and ${buildsBomSql('b.bom_id')}`;
  const [rows, locations] = await Promise.all([
    ctx.em.execute<(KeysetRow & { owner: string })[]>(
      `select b.bom_id as owner,
              (select count(*) from ${HEADER_FROM} where ${scope}) as total_count,
              ${w.outside ? `exists (select 1 from ${HEADER_FROM} where ${scope} and (${w.outside.sql}))` : 'false'} as outside,
              p.*
         from unnest(?::text[]) with ordinality as b(bom_id, n)
         left join lateral (
           select ${HEADER_COLUMNS}, ${w.keys}, row_number() over (order by ${w.order}) as ord_
             from ${HEADER_FROM}
            where ${scope} and ${w.bounds.sql}
            order by ${w.order} limit ?) p on true
        order by b.n, p.ord_`,
      [...filter.args, ...(w.outside ? [...filter.args, ...w.outside.args] : []), textArrayLiteral(bomIds), ...filter.args, ...w.bounds.args, w.limit],
    ),
    ctx.platform.listLocations(),
  ]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  const byBom = new Map<string, KeysetRow[]>(bomIds.map((id) => [id, []]));
  for (const row of rows) byBom.get(row.owner)?.push(row);
  return bomIds.map((id) => toConnection(byBom.get(id)!, window, tag, columns.length,
    (row) => headerView(normaliseRow(row as unknown as WorkOrderRow), names)));
}
