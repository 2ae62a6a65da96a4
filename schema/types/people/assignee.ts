import { listAssignees, type AssigneeView } from '../../../src/modules/people/assignees.service.ts';
import { openWorkOrdersForPeople } from '../../../src/modules/work-orders/for-people.ts';
import { builder } from '../../builder.ts';

export const AssigneeRef = builder.objectRef<AssigneeView>('Assignee').implement({
  description: 'A person work orders can be assigned to.',
  fields: (t) => ({
    assigneeId: t.exposeString('assigneeId'),
    displayName: t.exposeString('displayName'),
    active: t.exposeBoolean('active', { description: 'False once retired: still shown on work orders that name it.' }),
    usageCount: t.exposeInt('usageCount', { description: 'Number of live (open) work orders naming this assignee.' }),
  }),
});

builder.queryField('assignees', (t) =>
  t.field({
    type: [AssigneeRef],
    description: 'Assignees sorted by display name; retired ones only with includeInactive.',
    authScopes: { read: true },
    args: { includeInactive: t.arg.boolean({ required: false, defaultValue: false }) },
    resolve: (_root, args, ctx) => listAssignees(ctx, { includeInactive: args.includeInactive ?? false }, openWorkOrdersForPeople),
  }),
);
