import { bomWorkOrderWindow } from '../../../src/modules/work-orders/work-order-cursor.ts';
import { builder } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { BomRef } from './bom.ts';
import { WorkOrderConnectionRef, workOrderListArgs, workOrderListParams } from '../work-orders/connection.ts';

builder.objectField(BomRef, 'workOrders', (t) =>
  t.field({
    type: WorkOrderConnectionRef,
    description: 'The work orders with an item that builds this BOM, as a cursor connection with the filters and sorts of workOrderConnection '
      + '(`WorkOrderRow.workOrder` leads on to the whole work order and its build runs). Batched: the pages of every BOM of a list are one statement.',
    args: workOrderListArgs(t.arg),
    resolve: (bom, args, ctx) => {
      const params = workOrderListParams(args);
      bomWorkOrderWindow(params); // bad page arguments fail before any read
      return loadersOf(ctx).bomWorkOrders(params).load(bom.bomId);
    },
  }),
);
