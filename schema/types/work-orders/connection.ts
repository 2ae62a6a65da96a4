import type { ArgBuilder } from '@pothos/core';
import type { ConnectionArgs, SortDirection } from '../../../src/db/keyset.ts';
import { WORK_ORDER_PAGE_MAX, workOrderConnection, type WorkOrderConnectionParams } from '../../../src/modules/work-orders/work-order-cursor.ts';
import {
  WORK_ORDER_SORTS, type WorkOrderSort, type WorkOrderSourceType, type WorkOrderStatus,
} from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';
import { connectionArgs, connectionType, type Types } from '../common/connection.ts';
import { WorkOrderSortDirectionEnum, WorkOrderSortEnum, WorkOrderSourceTypeEnum, WorkOrderStatusEnum } from './enums.ts';
import { WorkOrderRowRef } from './work-order.ts';

// Work orders as a cursor connection: the filters and sorts of the paged list (`workOrders`),
// keyset-paged so a page costs the same wherever it lies. `Bom.workOrders` takes the same arguments.

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
