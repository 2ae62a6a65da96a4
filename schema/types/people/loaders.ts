import DataLoader from 'dataloader';
import { assigneesByIds, type AssigneeView } from '../../../src/modules/people/assignees.service.ts';
import { openWorkOrdersForPeople } from '../../../src/modules/work-orders/for-people.ts';
import { inKeyOrder, type LoaderFactory } from '../common/loader-part.ts';

export interface PeopleLoaders {
  /** Assignees (retired ones included) by assigneeId. */
  assignee: DataLoader<string, AssigneeView | null>;
}

export const peopleLoaders: LoaderFactory<PeopleLoaders> = (ctx) => {
  const assignee = new DataLoader<string, AssigneeView | null>(async (ids) =>
    inKeyOrder(ids, new Map((await assigneesByIds(ctx, ids, openWorkOrdersForPeople)).map((a) => [a.assigneeId, a]))));
  return { loaders: { assignee }, clear: () => assignee.clearAll() };
};
