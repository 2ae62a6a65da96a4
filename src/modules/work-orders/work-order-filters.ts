import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { workOrdersSql } from './tables.ts';
import type { SortDirection } from '../../db/keyset.ts';
import {
  CLOSED_STATUSES, WORK_ORDER_PRIORITIES, WORK_ORDER_SORTS, WORK_ORDER_STATUSES, type WorkOrderSort, type WorkOrderSourceType, type WorkOrderStatus,
} from './work-order-vocabulary.ts';

// The work-order list's filters and sort keys over `headerFrom` (work orders `w`, assignees `a`),
// shared by the paged list (work-order-list.service.ts) and the cursor connection.

export { WORK_ORDER_SORTS, type WorkOrderSort };

/** SQL condition "work order `alias` is open", for queries that join work_orders. */
export const openWorkOrderSql = (alias: string): string =>
  `${alias}.status not in (${CLOSED_STATUSES.map((s) => `'${s}'`).join(', ')})`;

export interface WorkOrderFilterParams {
  q: string | null;
  statuses: WorkOrderStatus[];
  tags: string[];
  locationId: string | null;
  assignedTo: string | null;
  sourceType: WorkOrderSourceType | null;
  /** Work orders with an item that builds this BOM (absent or null: any). */
  bomId?: string | null;
}

/** Rank expressions, so priority and status sort by meaning (urgent above low; the state table's order), not by spelling. */
const rank = (column: string, values: readonly string[]) => `array_position(array[${values.map((v) => `'${v}'`).join(', ')}]::text[], ${column}::text)`;

export interface WorkOrderSortKey { expression: string; defaultDir: SortDirection; nullsLast: boolean; cast: 'timestamptz' | 'date' | 'int' | 'text' }

/** Each sort's key and default direction; ties break on workOrderId ascending (WORK_ORDER_TIE_KEY). */
export const WORK_ORDER_SORT_KEYS: Record<WorkOrderSort, WorkOrderSortKey> = {
  updatedAt: { expression: 'w.updated_at', defaultDir: 'desc', nullsLast: false, cast: 'timestamptz' },
  createdAt: { expression: 'w.created_at', defaultDir: 'desc', nullsLast: false, cast: 'timestamptz' },
  dueDate: { expression: 'w.due_date', defaultDir: 'asc', nullsLast: true, cast: 'date' },
  priority: { expression: rank('w.priority', WORK_ORDER_PRIORITIES), defaultDir: 'desc', nullsLast: false, cast: 'int' },
  name: { expression: 'lower(w.name) collate "C"', defaultDir: 'asc', nullsLast: false, cast: 'text' },
  status: { expression: rank('w.status', WORK_ORDER_STATUSES), defaultDir: 'asc', nullsLast: false, cast: 'int' },
};
export const WORK_ORDER_TIE_KEY = 'w.work_order_id';

/**
 * Work orders (`w`) with an item that builds the BOM `bomId` names: a value, or a column of an
 * outer query (the BOM of a lateral page). Served by the (shop, owner type, owner id) item index.
 */
export const buildsBom = (bomId: Expression<string>) => sql<SqlBool>`exists (${workOrdersSql.selectFrom('work_order_items as i').select(sql.lit(1).as('one'))
  .whereRef('i.shop_id', '=', sql.ref('w.shop_id')).whereRef('i.work_order_id', '=', sql.ref('w.work_order_id')).where('i.owner_type', '=', sql.lit('bom'))
  .where('i.owner_id', '=', bomId)})`;

const likePattern = (text: string) => `%${text.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_')}%`;

/** The conditions the query's filters put on work orders `w` (none: every work order of the shop). */
function filterParts(query: WorkOrderFilterParams): RawBuilder<SqlBool>[] {
  const parts: RawBuilder<SqlBool>[] = [];
  if (query.q) {
    const pattern = likePattern(query.q);
    parts.push(sql<SqlBool>`(w.name ilike ${pattern} or w.short_id ilike ${pattern} or a.display_name ilike ${pattern})`);
  }
  if (query.statuses.length > 0) parts.push(sql<SqlBool>`w.status = any(${textArrayLiteral(query.statuses)}::text[])`);
  if (query.tags.length > 0) parts.push(sql<SqlBool>`w.tags && ${textArrayLiteral(query.tags)}::text[]`);
  if (query.locationId) parts.push(sql<SqlBool>`w.production_location_id = ${query.locationId}`);
  if (query.assignedTo) parts.push(sql<SqlBool>`w.assignee_id = ${query.assignedTo}`);
  if (query.sourceType) parts.push(sql<SqlBool>`w.source_type = ${query.sourceType}`);
  if (query.bomId) parts.push(buildsBom(sql.val(query.bomId)));
  return parts;
}

/** q: case-insensitive substring of the name, the short id or the assignee's name; the list filters are ANDed, their values ORed. */
export function workOrderFilter(shopId: string, query: WorkOrderFilterParams): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.join([sql<SqlBool>`w.shop_id = ${shopId}`, ...filterParts(query)], sql` and `)}`;
}

/** Whether the query's filters leave out any work order of the shop (an empty q or list filters nothing). */
export const narrowsWorkOrders = (query: WorkOrderFilterParams): boolean => filterParts(query).length > 0;
