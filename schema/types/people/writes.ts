import { createAssignee, retireAssignee } from '../../../src/modules/people/assignees.service.ts';
import { openWorkOrdersForPeople } from '../../../src/modules/work-orders/for-people.ts';
import { builder } from '../../builder.ts';
import { payloadField } from '../common/payload.ts';
import { AssigneeRef } from './assignee.ts';

builder.mutationFields((t) => ({
  createAssignee: payloadField(t, 'createAssignee', {
    type: AssigneeRef,
    description: 'Adds an active assignee. An assigneeId the shop already has (active or retired) is CONFLICT: ids are never reused.',
    args: {
      displayName: t.arg.string({ required: true, description: 'The name shown on work orders (1–200 characters).' }),
      assigneeId: t.arg.string({ description: 'Your id for them (1–128 characters of [A-Za-z0-9._:-]); default `asg_<uuid>`.' }),
    },
    resolve: (_root, a, ctx) => createAssignee(ctx, { displayName: a.displayName, assigneeId: a.assigneeId }),
  }),
  retireAssignee: payloadField(t, 'retireAssignee', {
    type: AssigneeRef,
    description: 'Retires an assignee: no new work order may name them; the work orders that do keep them, with a RETIRED_ASSIGNEE warning while open. ' +
      'Retiring a retired assignee changes nothing.',
    args: { assigneeId: t.arg.string({ required: true, description: 'The assignee to retire.' }) },
    resolve: (_root, a, ctx) => retireAssignee(ctx, a.assigneeId, openWorkOrdersForPeople),
  }),
}));
