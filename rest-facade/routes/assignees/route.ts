import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';

const Assignee = Type.Object(
  {
    assigneeId: Type.String(),
    displayName: Type.String(),
    active: Type.Boolean({ description: 'False for retired assignees (listed only with includeInactive=true).' }),
    usageCount: Type.Integer({ minimum: 0, description: 'Live (open) work orders naming this assignee.' }),
  },
  { additionalProperties: false, title: 'Assignee' },
);

export const listAssigneesRoute = defineRoute({
  method: 'GET',
  url: '/assignees',
  scope: 'read',
  operationId: 'listAssignees',
  summary: 'List assignees',
  description: 'Assignees sorted by display name (ties by id). Retired assignees are added with includeInactive=true.',
  tag: 'assignees',
  querystring: Type.Object(
    { includeInactive: Type.Boolean({ default: false, description: '`true` adds retired assignees.' }) },
    { additionalProperties: false },
  ),
  data: Type.Object({ assignees: Type.Array(Assignee) }, { additionalProperties: false }),
  operation: new URL('./assignees.graphql', import.meta.url),
  dataField: null,
  variables: ({ query }) => ({ includeInactive: query.includeInactive }),
});
