import type { SortDirection } from '../../db/keyset.ts';
import { DomainError } from '../../domain-error.ts';
import { PAGE_LIMITS } from '../../limits.ts';
import type { ShopContext } from '../../shop-context.ts';
import { HEADER_COLUMNS, HEADER_FROM, normaliseRow, type WorkOrderRow } from './work-order.repository.ts';
import { headerView, type WorkOrderHeaderView } from './work-order-view.ts';
import { WORK_ORDER_SORT_KEYS, WORK_ORDER_TIE_KEY, workOrderFilter, type WorkOrderFilterParams, type WorkOrderSort } from './work-order-filters.ts';
import { WORK_ORDER_STATUSES, type WorkOrderStatus } from './work-order-vocabulary.ts';

export { WORK_ORDER_SORTS, type WorkOrderSort } from './work-order-filters.ts';

export interface WorkOrderListQuery extends WorkOrderFilterParams {
  sortBy: WorkOrderSort | null;
  sortDir: SortDirection | null;
  page: number;
  pageSize: number;
}

export interface FacetEntry { value: string | null; label: string; count: number }
export interface WorkOrderFacets { status: FacetEntry[]; location: FacetEntry[]; assignee: FacetEntry[]; tag: FacetEntry[] }
export interface WorkOrderListPage { rows: WorkOrderHeaderView[]; total: number; hasMore: boolean; page: number; pageSize: number; facets: WorkOrderFacets }

/**
 * One page of work orders with facets over the filtered, unpaged result. Three round trips
 * whatever the page size or shop size: the page, the facet counts (one grouped statement, which
 * also gives the total) and the location names.
 */
export async function listWorkOrders(ctx: ShopContext, query: WorkOrderListQuery): Promise<WorkOrderListPage> {
  if (!Number.isInteger(query.page) || query.page < 1) throw DomainError.invalid('page', 'must be an integer ≥ 1');
  if (!Number.isInteger(query.pageSize) || query.pageSize < 1 || query.pageSize > PAGE_LIMITS.workOrders) throw DomainError.invalid('pageSize', `must be between 1 and ${PAGE_LIMITS.workOrders}`);
  const where = workOrderFilter(ctx.shopId, query);
  const sort = WORK_ORDER_SORT_KEYS[query.sortBy ?? 'updatedAt'];
  const dir = query.sortDir ?? sort.defaultDir;
  const orderBy = `${sort.expression} ${dir}${sort.nullsLast ? ' nulls last' : ''}, ${WORK_ORDER_TIE_KEY} asc`;
  const [rows, facetRows, locations] = await Promise.all([
    ctx.em.execute<WorkOrderRow[]>(
      `select ${HEADER_COLUMNS} from ${HEADER_FROM} where ${where.sql} order by ${orderBy} limit ? offset ?`,
      [...where.args, query.pageSize, (query.page - 1) * query.pageSize],
    ),
    ctx.em.execute<{ facet: keyof WorkOrderFacets; value: string | null; label: string | null; count: string }[]>(
      `with f as (select w.status, w.production_location_id, w.assignee_id, a.display_name, w.tags from ${HEADER_FROM} where ${where.sql})
       select 'status' as facet, status::text as value, null as label, count(*) as count from f group by status
       union all select 'location', production_location_id, null, count(*) from f group by production_location_id
       union all select 'assignee', assignee_id, max(display_name), count(*) from f group by assignee_id
       union all select 'tag', t, null, count(*) from f cross join lateral unnest(f.tags) as t group by t`,
      where.args,
    ),
    ctx.platform.listLocations(),
  ]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  const facets: WorkOrderFacets = { status: [], location: [], assignee: [], tag: [] };
  for (const r of facetRows) {
    const label = r.facet === 'status' || r.facet === 'tag' ? r.value!
      : r.facet === 'location' ? (r.value ? names.get(r.value) ?? r.value : 'No location')
        : (r.value ? r.label ?? r.value : 'Unassigned');
    facets[r.facet].push({ value: r.value, label, count: Number(r.count) });
  }
  const byCount = (a: FacetEntry, b: FacetEntry) => b.count - a.count || a.label.localeCompare(b.label) || (a.value ?? '').localeCompare(b.value ?? '');
  facets.status.sort((a, b) => WORK_ORDER_STATUSES.indexOf(a.value as WorkOrderStatus) - WORK_ORDER_STATUSES.indexOf(b.value as WorkOrderStatus));
  facets.location.sort(byCount);
  facets.assignee.sort(byCount);
  facets.tag.sort(byCount);
  const total = facets.status.reduce((acc, f) => acc + f.count, 0);
  return {
    rows: rows.map((r) => headerView(normaliseRow(r), names)),
    total,
    hasMore: query.page * query.pageSize < total,
    page: query.page,
    pageSize: query.pageSize,
    facets,
  };
}
