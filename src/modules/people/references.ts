import type { ShopContext } from '../../shop-context.ts';

export interface PeopleReferences {
  /** null: no such assignee. */
  assignee: { active: boolean } | null;
  flow: boolean;
  task: boolean;
}

/** Whether an assignee, a flow and a task exist (and whether the assignee is active), in one statement. */
export async function findPeopleReferences(ctx: ShopContext, ids: { assigneeId: string | null; flowId: string | null; taskId: string | null }): Promise<PeopleReferences> {
  const rows = await ctx.em.execute<{ kind: string; active: boolean | null }[]>(
    `select 'assignee' as kind, active from assignees where shop_id = ? and assignee_id = ?
     union all select 'flow', null from flows where shop_id = ? and flow_id = ?
     union all select 'task', null from tasks where shop_id = ? and task_id = ?`,
    [ctx.shopId, ids.assigneeId, ctx.shopId, ids.flowId, ctx.shopId, ids.taskId],
  );
  const assignee = rows.find((r) => r.kind === 'assignee');
  return { assignee: assignee ? { active: assignee.active === true } : null, flow: rows.some((r) => r.kind === 'flow'), task: rows.some((r) => r.kind === 'task') };
}
