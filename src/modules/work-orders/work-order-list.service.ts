import { sql, type SqlBool } from 'kysely';
import type { SortDirection } from '../../db/keyset.ts';
import { pageOf, type PageRequest } from '../../kernel/limits.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { runSql } from '../../db/typed-sql.ts';
import { assigneesAs } from '../people/for-work-orders.ts';
import { headerFrom, normaliseHeader, selectHeader } from './work-order.repository.ts';
import { workOrdersSql } from './tables.ts';
import { headerView, type WorkOrderHeaderView } from './work-order-view.ts';
import {
  narrowsWorkOrders, WORK_ORDER_SORT_KEYS, WORK_ORDER_TIE_KEY, workOrderFilter, type WorkOrderFilterParams, type WorkOrderSort,
} from './work-order-filters.ts';
import { WORK_ORDER_STATUSES, type WorkOrderFacet, type WorkOrderStatus } from './work-order-vocabulary.ts';

export { WORK_ORDER_SORTS, type WorkOrderSort } from './work-order-filters.ts';

export interface WorkOrderListQuery extends WorkOrderFilterParams, PageRequest {
  sortBy: WorkOrderSort | null;
  sortDir: SortDirection | null;
}

export interface FacetEntry { value: string | null; label: string; count: number }
export type WorkOrderFacets = Record<WorkOrderFacet, FacetEntry[]>;
export interface WorkOrderListPage { rows: WorkOrderHeaderView[]; total: number; hasMore: boolean; page: number; pageSize: number; facets: WorkOrderFacets }

/** A facet row as the list reads it: a value (null: no location / unassigned), the assignee's name for an assignee, its count. */
interface FacetRow { facet: keyof WorkOrderFacets; value: string | null; label: string | null; count: string | number }

/**
 * The facet counts of the work orders `where` selects (count(*) per value: O(matches)), one grouped
 * statement, which also gives the total.
 */
function countedFacets(where: ReturnType<typeof workOrderFilter>) {
  const facet = (name: keyof WorkOrderFacets) => sql<keyof WorkOrderFacets>`${sql.lit(name)}`.as('facet');
  return workOrdersSql
    .with('f', (db) => headerFrom(db).select(['w.status', 'w.production_location_id', 'w.assignee_id', 'a.display_name', 'w.tags']).where(where))
    .selectFrom('f').select([facet('status'), sql<string | null>`status::text`.as('value'), sql<string | null>`null`.as('label'), sql<string>`count(*)`.as('count')])
    .groupBy('status')
    .unionAll((eb) => eb.selectFrom('f').select([facet('location'), 'production_location_id as value', sql<string | null>`null`.as('label'), sql<string>`count(*)`.as('count')])
      .groupBy('production_location_id'))
    .unionAll((eb) => eb.selectFrom('f').select([facet('assignee'), 'assignee_id as value', sql<string | null>`max(display_name)`.as('label'), sql<string>`count(*)`.as('count')])
      .groupBy('assignee_id'))
    .unionAll((eb) => eb.selectFrom('f').crossJoinLateral(sql<{ t: string }>`unnest(f.tags)`.as('t'))
      .select([facet('tag'), 't as value', sql<string | null>`null`.as('label'), sql<string>`count(*)`.as('count')]).groupBy('t'));
}

/**
 * The shop's stored facet counts (work_order_facet_counts, kept by triggers on every write:
 * O(facet values), whatever the number of work orders), assignee names joined for the assignee values.
 */
const storedFacets = (shopId: string) => workOrdersSql.selectFrom('work_order_facet_counts as c')
  .leftJoin(assigneesAs('a'), (j) => j.on(sql<SqlBool>`c.facet = 'assignee'`).onRef('a.shop_id', '=', 'c.shop_id').onRef('a.assignee_id', '=', 'c.value'))
  .select(['c.facet', 'c.value', 'a.display_name as label', 'c.count'])
  .where('c.shop_id', '=', shopId);

/**
 * The stored counts with the work orders that have no location or no assignee: the shop's total
 * (the sum of the status counts, one status each) minus the counted ones. A count of 0 is no value.
 */
function withNoneCounted(rows: readonly FacetRow[]): FacetRow[] {
  const sum = (facet: keyof WorkOrderFacets) => rows.reduce((acc, r) => acc + (r.facet === facet ? Number(r.count) : 0), 0);
  const total = sum('status');
  const none = (['location', 'assignee'] as const).map((facet): FacetRow => ({ facet, value: null, label: null, count: total - sum(facet) }));
  return [...rows, ...none.filter((r) => Number(r.count) > 0)];
}

/**
 * One page of work orders with facets over the filtered, unpaged result. Three round trips
 * whatever the page size or shop size: the page, the facets (which also give the total) and the
 * location names. Without a filter that narrows the set the facets are the shop's stored counts;
 * with one they are counted over the matching work orders.
 */
export async function listWorkOrders(ctx: ShopContext, query: WorkOrderListQuery): Promise<WorkOrderListPage> {
  const { page, pageSize } = pageOf(query, 'workOrders');
  const where = workOrderFilter(ctx.shopId, query);
  const sort = WORK_ORDER_SORT_KEYS[query.sortBy ?? 'updatedAt'];
  const dir = query.sortDir ?? sort.defaultDir;
  const orderBy = sql.raw(`${sort.expression} ${dir}${sort.nullsLast ? ' nulls last' : ''}, ${WORK_ORDER_TIE_KEY} asc`);
  const [rows, facetRows, locations] = await Promise.all([
    runSql(ctx.em, selectHeader(headerFrom()).where(where).orderBy(orderBy).limit(pageSize).offset((page - 1) * pageSize)),
    narrowsWorkOrders(query) ? runSql(ctx.em, countedFacets(where)) as Promise<FacetRow[]> : runSql(ctx.em, storedFacets(ctx.shopId)).then(withNoneCounted),
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
    rows: rows.map((r) => headerView(normaliseHeader(r), names)),
    total,
    hasMore: page * pageSize < total,
    page,
    pageSize,
    facets,
  };
}
