import { BOM_PAGE_MAX, bomConnection } from '../../../src/modules/recipes/bom-cursor.ts';
import { MATERIAL_PAGE_MAX, materialConnection } from '../../../src/modules/materials/material-cursor.ts';
import type { ArgBuilder } from '@pothos/core';
import type { ConnectionArgs, SortDirection } from '../../../src/db/keyset.ts';
import { WORK_ORDER_PAGE_MAX, workOrderConnection, type WorkOrderConnectionParams } from '../../../src/modules/work-orders/work-order-cursor.ts';
import { MATERIAL_SORTS } from '../../../src/modules/materials/material-vocabulary.ts';
import { BOM_SORTS, BOM_STATUS_FILTERS } from '../../../src/modules/recipes/recipe-vocabulary.ts';
import {
  WORK_ORDER_SORTS, type WorkOrderSort, type WorkOrderSourceType, type WorkOrderStatus,
} from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { BomRef } from '../boms/bom.ts';
import { BomSortOrderEnum, BomStatusFilterEnum } from '../boms/enums.ts';
import { MaterialOriginFilterEnum, MaterialSortOrderEnum, MaterialUsageFilterEnum } from '../materials/enums.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';
import { WorkOrderSortDirectionEnum, WorkOrderSortEnum, WorkOrderSourceTypeEnum, WorkOrderStatusEnum } from '../work-orders/enums.ts';
import { WorkOrderRowRef } from '../work-orders/work-order.ts';
import { connectionArgs, connectionType, type Types } from './connection.ts';

// Cursor connections over the three lists: the same filters and sorts as the paged lists
// (`rawMaterials`, `boms`, `workOrders`), keyset-paged so a page costs the same wherever it lies.

const RawMaterialConnectionRef = connectionType('RawMaterials', RawMaterialRef, 'raw material');
const BomConnectionRef = connectionType('Boms', BomRef, 'BOM');
export const WorkOrderConnectionRef = connectionType('WorkOrders', WorkOrderRowRef, 'work order');


/** The filters, sorts and page arguments of the work-order connections (`workOrderConnection`, `Bom.workOrders`). */
export function workOrderListArgs(arg: ArgBuilder<Types>) {
  return {
    q: arg.string({ required: false, description: 'Case-insensitive substring of the name, the short id or the assignee\'s display name.' }),
    status: arg({ type: [WorkOrderStatusEnum], required: false, description: 'Any of (OR).' }),
    tags: arg.stringList({ required: false, description: 'Any of (OR).' }),
    locationId: arg.string({ required: false, description: 'productionLocationId.' }),
    assignedTo: arg.string({ required: false, description: 'An assigneeId.' }),
    sourceType: arg({ type: WorkOrderSourceTypeEnum, required: false, description: 'What the work order was made from.' }),
    sortBy: arg({ type: WorkOrderSortEnum, required: false, description: `${valueList(WORK_ORDER_SORTS, true)}.` }),
    sortDir: arg({ type: WorkOrderSortDirectionEnum, required: false, description: 'Default: desc for updatedAt, createdAt and priority; asc otherwise. Work orders without a due date come last either way.' }),
    ...connectionArgs(arg, WORK_ORDER_PAGE_MAX),
  };
}

/** What a resolver receives for `workOrderListArgs`. */
interface WorkOrderListArgs extends ConnectionArgs {
  q?: string | null;
  status?: readonly WorkOrderStatus[] | null;
  tags?: readonly string[] | null;
  locationId?: string | null;
  assignedTo?: string | null;
  sourceType?: WorkOrderSourceType | null;
  sortBy?: WorkOrderSort | null;
  sortDir?: SortDirection | null;
}

/** The service parameters of `workOrderListArgs` as a resolver receives them. */
export function workOrderListParams(a: WorkOrderListArgs): WorkOrderConnectionParams {
  return {
    q: a.q ?? null, statuses: [...(a.status ?? [])], tags: [...(a.tags ?? [])], locationId: a.locationId ?? null,
    assignedTo: a.assignedTo ?? null, sourceType: a.sourceType ?? null, sortBy: a.sortBy ?? null, sortDir: a.sortDir ?? null,
    first: a.first, after: a.after, last: a.last, before: a.before,
  };
}

builder.queryFields((t) => ({
  rawMaterialConnection: t.field({
    type: RawMaterialConnectionRef,
    description: 'Raw materials (both origins) as a cursor connection: the filters and sorts of rawMaterials; ties break on variantId.',
    authScopes: { read: true },
    args: {
      search: t.arg.string({ required: false, description: 'Case-insensitive substring of the product name, variant name, SKU or vendor.' }),
      usageFilter: t.arg({ type: MaterialUsageFilterEnum, required: false, description: 'used: named by a recipe line of a BOM or assembly bill; unused: by none.' }),
      originFilter: t.arg({ type: MaterialOriginFilterEnum, required: false, description: 'platform-linked or virtual materials only.' }),
      vendorFilter: t.arg.stringList({ required: false, description: 'Any of these vendors (OR).' }),
      sortBy: t.arg.string({ required: false, description: `${valueList(MATERIAL_SORTS, true)}; other values sort by ${MATERIAL_SORTS[0]}.` }),
      sortOrder: t.arg({ type: MaterialSortOrderEnum, required: false, description: 'asc (default) | desc.' }),
      ...connectionArgs(t.arg, MATERIAL_PAGE_MAX),
    },
    resolve: (_root, args, ctx) => materialConnection(ctx, {
      search: args.search ?? null, usageFilter: args.usageFilter ?? 'all', originFilter: args.originFilter ?? 'all', vendorFilter: args.vendorFilter ?? [],
      sortBy: args.sortBy ?? null, sortOrder: args.sortOrder ?? 'asc', first: args.first, after: args.after, last: args.last, before: args.before,
    }),
  }),
  bomConnection: t.field({
    type: BomConnectionRef,
    description: `BOMs as a cursor connection: the filters and sorts of boms (${valueList(BOM_SORTS)}); ties break on bomId.`,
    authScopes: { read: true },
    args: {
      search: t.arg.string({ required: false, description: 'Case-insensitive substring of the name, SKU or bomId.' }),
      statusFilter: t.arg({ type: BomStatusFilterEnum, required: false, description: `${valueList(BOM_STATUS_FILTERS, true)}.` }),
      sortBy: t.arg.string({ required: false, description: `${valueList(BOM_SORTS, true)}; other values sort by ${BOM_SORTS[0]}.` }),
      sortOrder: t.arg({ type: BomSortOrderEnum, required: false, description: 'asc (default) | desc; empty SKUs and prices come last either way.' }),
      ...connectionArgs(t.arg, BOM_PAGE_MAX),
    },
    resolve: (_root, args, ctx) => bomConnection(ctx, {
      search: args.search ?? null, statusFilter: args.statusFilter ?? 'all', sortBy: args.sortBy ?? null, sortOrder: args.sortOrder ?? 'asc',
      first: args.first, after: args.after, last: args.last, before: args.before,
    }),
  }),
  workOrderConnection: t.field({
    type: WorkOrderConnectionRef,
    description: 'Work orders as a cursor connection: the filters and sorts of workOrders; ties break on workOrderId.',
    authScopes: { read: true },
    args: {
      ...workOrderListArgs(t.arg),
      bomId: t.arg.string({ required: false, description: 'Only work orders with an item that builds this BOM (what `Bom.workOrders` lists).' }),
    },
    resolve: (_root, a, ctx) => workOrderConnection(ctx, { ...workOrderListParams(a), bomId: a.bomId ?? null }),
  }),
}));
