import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';

export const WORK_ORDER_STATUSES = [
  'draft', 'ready', 'in_progress', 'paused', 'quality_control', 'qc_approved', 'completed', 'cancelled',
] as const;
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number];
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const SOURCE_TYPES = ['flow', 'bom', 'sa', 'empty', 'orders'] as const;

export const WorkOrder = defineEntity({
  name: 'WorkOrder',
  tableName: 'work_orders',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    workOrderId: p.text().primary(),
    name: p.text(),
    description: p.text().nullable(),
    notes: p.text().nullable(),
    status: p.enum(WORK_ORDER_STATUSES),
    priority: p.enum(PRIORITIES).default('normal'),
    dueDate: p.text().columnType('date').nullable(),
    assigneeId: p.text().nullable(),
    productionLocationId: p.text().nullable(),
    defaultConsumptionLocationId: p.text().nullable(),
    sourceType: p.enum(SOURCE_TYPES),
    sourceFlowId: p.text().nullable(),
    sourceTodoId: p.text().nullable(),
    sourceOrderIds: p.array().default([]),
    tags: p.array().default([]),
    plannedLaborCost: decimal().nullable(),
    actualLaborCost: decimal().nullable(),
    createdAt: timestamp(),
    /** Optimistic-lock token: strictly increasing per work order. */
    updatedAt: timestamp(),
  },
  indexes: [
    { properties: ['shopId', 'updatedAt', 'workOrderId'] },
    { properties: ['shopId', 'createdAt', 'workOrderId'] },
    { properties: ['shopId', 'dueDate', 'workOrderId'] },
    { properties: ['shopId', 'name', 'workOrderId'] },
    { properties: ['shopId', 'status'] },
    { properties: ['shopId', 'priority'] },
    { properties: ['shopId', 'assigneeId'] },
    { properties: ['shopId', 'productionLocationId'] },
    { properties: ['shopId', 'sourceType'] },
    { name: 'work_orders_tags_gin', expression: 'create index "work_orders_tags_gin" on "work_orders" using gin ("tags")' },
  ],
});

const woChild = { shopId: p.text().primary(), workOrderId: p.text().primary() };

export const WorkOrderItem = defineEntity({
  name: 'WorkOrderItem',
  tableName: 'work_order_items',
  filters: tenantFilter,
  properties: {
    ...woChild,
    itemId: p.text().primary(),
    position: p.integer(),
    ownerType: p.enum(['bom', 'sub_assembly']),
    ownerId: p.text(),
    quantity: decimal(),
    completedQuantity: decimal().default('0'),
  },
  indexes: [{ properties: ['shopId', 'ownerType', 'ownerId'] }],
});

export const WorkOrderManualMaterial = defineEntity({
  name: 'WorkOrderManualMaterial',
  tableName: 'work_order_manual_materials',
  filters: tenantFilter,
  properties: {
    ...woChild,
    position: p.integer().primary(),
    variantId: p.text(),
    quantity: decimal(),
    locationId: p.text().nullable(),
    note: p.text().nullable(),
  },
  indexes: [{ properties: ['shopId', 'variantId'] }],
});

export const BuildRun = defineEntity({
  name: 'BuildRun',
  tableName: 'build_runs',
  filters: tenantFilter,
  properties: {
    ...woChild,
    buildRunId: p.text().primary(),
    status: p.enum(['started', 'completed', 'reversed']),
    runType: p.enum(['production', 'rework']),
    note: p.text().nullable(),
    startedAt: timestamp(),
    completedAt: timestamp().nullable(),
  },
});

export const BuildRunItem = defineEntity({
  name: 'BuildRunItem',
  tableName: 'build_run_items',
  filters: tenantFilter,
  properties: { ...woChild, buildRunId: p.text().primary(), itemId: p.text().primary(), quantity: decimal() },
});

export const BuildRunPick = defineEntity({
  name: 'BuildRunPick',
  tableName: 'build_run_picks',
  filters: tenantFilter,
  properties: {
    ...woChild,
    buildRunId: p.text().primary(),
    position: p.integer().primary(),
    variantId: p.text(),
    locationId: p.text(),
    quantity: decimal(),
  },
  indexes: [{ properties: ['shopId', 'variantId', 'locationId'] }],
});
