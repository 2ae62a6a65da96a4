import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter } from '../../db/columns.ts';

export const Assignee = defineEntity({
  name: 'Assignee',
  tableName: 'assignees',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    assigneeId: p.text().primary(),
    displayName: p.text(),
    active: p.boolean().default(true),
  },
  indexes: [{ properties: ['shopId', 'displayName', 'assigneeId'] }],
});

export const Flow = defineEntity({
  name: 'Flow',
  tableName: 'flows',
  filters: tenantFilter,
  properties: { shopId: p.text().primary(), flowId: p.text().primary(), name: p.text() },
});

export const Task = defineEntity({
  name: 'Task',
  tableName: 'tasks',
  filters: tenantFilter,
  properties: { shopId: p.text().primary(), taskId: p.text().primary(), title: p.text() },
});
