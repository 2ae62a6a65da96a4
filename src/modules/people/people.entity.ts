import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter } from '../../db/columns.ts';

export const Assignee = defineEntity({
  name: 'Assignee',
  tableName: 'assignees',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    assigneeId: p.string().primary(),
    displayName: p.string(),
    active: p.boolean().default(true),
  },
  indexes: [{ properties: ['shopId', 'displayName', 'assigneeId'] }],
});

export const Flow = defineEntity({
  name: 'Flow',
  tableName: 'flows',
  filters: tenantFilter,
  properties: { shopId: p.string().primary(), flowId: p.string().primary(), name: p.string() },
});

export const Task = defineEntity({
  name: 'Task',
  tableName: 'tasks',
  filters: tenantFilter,
  properties: { shopId: p.string().primary(), taskId: p.string().primary(), title: p.string() },
});
