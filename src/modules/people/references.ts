import type { ShopContext } from '../../shop-context.ts';

export interface PeopleReferences {
  /** null: no such assignee. */
  assignee: { active: boolean } | null;
  flow: boolean;
  task: boolean;
}

/**
 * Whether an assignee, a flow and a task exist (and whether the assignee is active), in one
 * statement. The assignee row is share-locked until the caller's transaction ends, so a retire
 * running at the same time either lands before (and this sees it) or waits for the caller to commit:
 * no new assignment to a retired assignee slips through.
 */
export async function findPeopleReferences(ctx: ShopContext, ids: { assigneeId: string | null; flowId: string | null; taskId: string | null }): Promise<PeopleReferences> {
  const [row] = await ctx.em.execute<{ assignee_active: boolean | null; flow: boolean; task: boolean }[]>(
    `select (select active from assignees where shop_id = ? and assignee_id = ? for share) as assignee_active,
            exists (select 1 from flows where shop_id = ? and flow_id = ?) as flow,
            exists (select 1 from tasks where shop_id = ? and task_id = ?) as task`,
    [ctx.shopId, ids.assigneeId, ctx.shopId, ids.flowId, ctx.shopId, ids.taskId],
  );
  const active = row?.assignee_active ?? null;
  return { assignee: active === null ? null : { active: active === true }, flow: row?.flow === true, task: row?.task === true };
}
