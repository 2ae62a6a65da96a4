import { wholeWorkOrder } from '../../../src/modules/work-orders/work-order-read.service.ts';
import type { RecordWriteResult } from '../../../src/modules/work-orders/records.service.ts';
import { builder } from '../../builder.ts';
import { WorkOrderRef } from './work-order.ts';

// What the work-order writes answer: the new change token for the next write, the id of what was
// written, and the whole work order read after the write — resolved only when selected, so a
// client that needs just the token pays for no read.

export const CreatedWorkOrderRef = builder.objectRef<{ workOrderId: string; shortId: string; updatedAt: Date }>('CreatedWorkOrder').implement({
  description: 'A work order just created, in draft.',
  fields: (t) => ({
    workOrderId: t.exposeID('workOrderId', { description: 'The new work order\'s id (`wo_<uuid>`).' }),
    shortId: t.exposeString('shortId', { description: 'Its short human id, the shop\'s next (`WO-0042`).' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'The change token: send it as `expectedUpdatedAt` on the next write.' }),
    workOrder: t.field({
      type: WorkOrderRef,
      description: 'The whole work order as the `workOrder` query reads it.',
      resolve: (created, _args, ctx) => wholeWorkOrder(ctx, created.workOrderId),
    }),
  }),
});

export const RecordWriteResultRef = builder.objectRef<RecordWriteResult>('WorkOrderRecordWriteResult').implement({
  description: 'The outcome of adding or changing a record of a work order (QC review, rework item, document, message).',
  fields: (t) => ({
    workOrderId: t.exposeID('workOrderId', { description: 'The work order written to.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'The work order\'s new change token (also the record\'s time).' }),
    recordId: t.exposeID('recordId', { description: 'Id of the record written: a reviewId, reworkItemId, documentId or messageId.' }),
    workOrder: t.field({
      type: WorkOrderRef,
      description: 'The whole work order after the write, as the `workOrder` query reads it.',
      resolve: (result, _args, ctx) => wholeWorkOrder(ctx, result.workOrderId),
    }),
  }),
});
