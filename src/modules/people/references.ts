import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { peopleSql } from './tables.ts';

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
  const [row] = await runSql(ctx.em, peopleSql.selectNoFrom((eb) => [
    eb.selectFrom('assignees').select('active').where('shop_id', '=', ctx.shopId).where('assignee_id', '=', ids.assigneeId).forShare().as('assignee_active'),
    eb.exists(eb.selectFrom('flows').select(eb.lit(1).as('one')).where('shop_id', '=', ctx.shopId).where('flow_id', '=', ids.flowId)).as('flow'),
    eb.exists(eb.selectFrom('tasks').select(eb.lit(1).as('one')).where('shop_id', '=', ctx.shopId).where('task_id', '=', ids.taskId)).as('task'),
  ]));
  const active = row?.assignee_active ?? null;
  return { assignee: active === null ? null : { active: active === true }, flow: row?.flow === true, task: row?.task === true };
}
