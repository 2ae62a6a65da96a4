import { sql, type SqlBool } from 'kysely';
import { openWorkOrderSql } from './work-order-filters.ts';
import { workOrdersSql } from './tables.ts';

// What the people module reads of work orders, handed to it by its callers (people sit below work
// orders and import nothing of them; .dependency-cruiser.cjs).


/**
 * The open work orders (shop, assignee, id) as a derived table, for the assignees' usage counts
 * (people/assignees.service.ts joins it). A plain filtered select: PostgreSQL pulls it up into the
 * join, so the plan is that of a join on work_orders itself.
 */
export const openWorkOrdersForPeople = workOrdersSql.selectFrom('work_orders as w')
  .select(['w.shop_id', 'w.assignee_id', 'w.work_order_id'])
  .where(sql<SqlBool>`${sql.raw(openWorkOrderSql('w'))}`);
