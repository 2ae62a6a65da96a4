import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';
import { BILL_OWNER_TYPES } from '../boms/recipe-vocabulary.ts';
import type { StockKind } from '../stock/stock-vocabulary.ts';
import {
  BUILD_RUN_STATUSES, BUILD_RUN_TYPES, WORK_ORDER_FACETS, WORK_ORDER_PRIORITIES, WORK_ORDER_SOURCE_TYPES, WORK_ORDER_STATUSES,
} from './work-order-vocabulary.ts';


export const WorkOrder = defineEntity({
  name: 'WorkOrder',
  tableName: 'work_orders',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    workOrderId: p.text().primary(),
    /** Short human id, unique and stable per shop (`WO-0042`). */
    shortId: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    notes: p.text().nullable(),
    status: p.enum(WORK_ORDER_STATUSES),
    priority: p.enum(WORK_ORDER_PRIORITIES).default('normal'),
    dueDate: p.text().columnType('date').nullable(),
    assigneeId: p.text().nullable(),
    productionLocationId: p.text().nullable(),
    defaultConsumptionLocationId: p.text().nullable(),
    sourceType: p.enum(WORK_ORDER_SOURCE_TYPES),
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
  uniques: [{ properties: ['shopId', 'shortId'] }],
});

/**
 * How many work orders of a shop have a facet value (a status, a production location, an assignee,
 * a tag), for the work-order list without a narrowing filter. Only values with work orders have a
 * row. Kept by the triggers on `work_orders` (Migration20261202100000) in the transaction of every
 * write; no code writes it.
 */
export const WorkOrderFacetCount = defineEntity({
  name: 'WorkOrderFacetCount',
  tableName: 'work_order_facet_counts',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    facet: p.enum(WORK_ORDER_FACETS).primary(),
    value: p.text().primary(),
    count: p.integer(),
  },
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
    ownerType: p.enum(BILL_OWNER_TYPES),
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
    status: p.enum(BUILD_RUN_STATUSES),
    runType: p.enum(BUILD_RUN_TYPES),
    /** `<work order shortId>-R<n>`, n counting the work order's runs. */
    shortId: p.text(),
    note: p.text().nullable(),
    actorUserId: p.text().nullable(),
    actorDisplayName: p.text().nullable(),
    reworkItemIds: p.array().default([]),
    /** Warnings of the start (negative inventory, shelf shortfalls), returned again on a replay. */
    warnings: p.json().default('[]'),
    startedAt: timestamp(),
    completedAt: timestamp().nullable(),
    reversedAt: timestamp().nullable(),
    /** The run's own change token. */
    updatedAt: timestamp(),
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
    /** `material` (a material level) or `preassembled` (an assembly bill's shelf; variantId holds the assemblyId). */
    stock: p.text().$type<StockKind>().default('material'),
    variantId: p.text(),
    locationId: p.text(),
    /** Consumed, exact (what the residual carry received). */
    quantity: decimal(),
    /** Whole units the carry took from stock; null on runs loaded from a dataset. */
    carriedWhole: decimal().nullable(),
    /** What actually left the level (less than carriedWhole when clamping at zero cut it). */
    deducted: decimal().nullable(),
  },
  indexes: [{ properties: ['shopId', 'variantId', 'locationId'] }],
});
