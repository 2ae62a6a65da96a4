import type { ShopContext } from '../../shop-context.ts';
import { openWorkOrderSql } from '../work-orders/work-order-vocabulary.ts';

export interface AssigneeView { assigneeId: string; displayName: string; active: boolean; usageCount: number }

/**
 * Assignees sorted by display name (ties by id), each with the number of live (open) work orders
 * naming it. One query: the count is a grouped left join, not one query per assignee.
 */
export async function listAssignees(ctx: ShopContext, options: { includeInactive: boolean }): Promise<AssigneeView[]> {
  const rows = await ctx.em.execute<{ assignee_id: string; display_name: string; active: boolean; usage_count: string }[]>(
    `select a.assignee_id, a.display_name, a.active, count(w.work_order_id) as usage_count
       from assignees a
       left join work_orders w on w.shop_id = a.shop_id and w.assignee_id = a.assignee_id
                              and ${openWorkOrderSql('w')}
      where a.shop_id = ? ${options.includeInactive ? '' : 'and a.active'}
      group by a.shop_id, a.assignee_id
      order by a.display_name, a.assignee_id`,
    [ctx.shopId],
  );
  return rows.map((r) => ({ assigneeId: r.assignee_id, displayName: r.display_name, active: r.active, usageCount: Number(r.usage_count) }));
}
