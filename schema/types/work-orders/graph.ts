import { DomainError } from '../../../src/kernel/domain-error.ts';
import { builder } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { WorkOrderRef, WorkOrderRowRef } from './work-order.ts';

builder.objectField(WorkOrderRowRef, 'workOrder', (t) =>
  t.field({
    type: WorkOrderRef,
    description: 'The whole work order of this row: items, material plan, build runs, QC reviews, rework, documents, conversation, '
      + 'lifecycle events, transitions and warnings (what workOrder(workOrderId) returns). The rows of a page are read together, '
      + 'in the statements of one work order.',
    resolve: async (row, _args, ctx) => {
      const whole = await loadersOf(ctx).workOrder.load(row.workOrderId);
      // The row was just listed in this shop: only a concurrent delete makes it disappear.
      if (!whole) throw DomainError.notFound('work order', row.workOrderId);
      return whole;
    },
  }),
);
