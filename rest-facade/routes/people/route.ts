import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../define-route.ts';

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
  operation: new URL('./assignees.graphql', import.meta.url),
  dataField: null,
  dataOverrides: { 'assignees': { title: 'Assignee' }, 'assignees.usageCount': { minimum: 0 } },
  variables: ({ query }) => ({ includeInactive: query.includeInactive }),
});
