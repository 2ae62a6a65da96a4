import { addDocument, addMessage, addQcReview, addReworkItem, resolveReworkItem } from '../../../src/modules/work-orders/records.service.ts';
import { builder } from '../../builder.ts';
import { QcDecisionEnum } from './enums.ts';
import { payloadField } from '../common/payload.ts';
import { RecordWriteResultRef } from './write-results.ts';

const QcReviewItemInput = builder.inputType('QcReviewItemInput', {
  description: 'What a QC review judged of one item of its build run.',
  fields: (t) => ({
    itemId: t.id({ required: true, description: 'A work-order item the run built.' }),
    approvedQuantity: t.field({ type: 'Decimal', required: true, description: 'Units that pass QC; 0 or more.' }),
    failedQuantity: t.field({ type: 'Decimal', required: true, description: 'Units that fail QC (make them good with a rework run); 0 or more.' }),
  }),
});

// Every record write is a work-order write: it names the work order and the token last read.
type FieldBuilder = Parameters<Parameters<typeof builder.mutationFields>[0]>[0];
const writeArgs = (t: FieldBuilder) => ({
  workOrderId: t.arg.id({ required: true, description: 'The work order (`wo_<uuid>`).' }),
  expectedUpdatedAt: t.arg({ type: 'DateTime', required: true, description: 'The work order\'s `updatedAt` last read; a stale one is CONFLICT.' }),
});

builder.mutationFields((t) => ({
  addQcReview: payloadField(t, 'addQcReview', {
    type: RecordWriteResultRef,
    description: 'Records a QC review of one live (not reversed) build run of an open work order: for each item of the run, units ' +
      'approved and units failed. Give `items` to judge per item (part now, the rest in a later review), or only `decision` to ' +
      'approve or fail every unit of the run not reviewed yet. For every item, approved + failed over all reviews of the run never ' +
      'exceeds what the run built: more is CONFLICT naming the item; an item the run did not build is INVALID_INPUT.',
    args: {
      ...writeArgs(t),
      buildRunId: t.arg.id({ required: true, description: 'The build run reviewed (on this work order).' }),
      decision: t.arg({
        type: QcDecisionEnum,
        description: 'The whole run\'s verdict, for every unit not reviewed yet. Required without `items`; with `items` it may be left ' +
          'out, and if given must agree with them (rejected when any unit failed).',
      }),
      items: t.arg({ type: [QcReviewItemInput], description: 'Per item: units approved and failed (1–200 entries, each item once).' }),
      note: t.arg.string({ description: 'What was found (up to 10,000 characters).' }),
      reviewerName: t.arg.string({ description: 'Who reviewed (up to 200 characters).' }),
    },
    resolve: (_root, a, ctx) => addQcReview(ctx, String(a.workOrderId), {
      expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), buildRunId: String(a.buildRunId), decision: a.decision, note: a.note, reviewerName: a.reviewerName,
      items: a.items?.map((i) => ({ itemId: String(i.itemId), approvedQuantity: i.approvedQuantity, failedQuantity: i.failedQuantity })),
    }),
  }),
  addReworkItem: payloadField(t, 'addReworkItem', {
    type: RecordWriteResultRef,
    description: 'Opens a rework item on an open work order. Open rework items block completion (OPEN_REWORK) until resolved; ' +
      'a rework run names the items it addresses.',
    args: {
      ...writeArgs(t),
      description: t.arg.string({ required: true, description: 'What must be redone (up to 10,000 characters).' }),
      quantity: t.arg({ type: 'Decimal', required: true, description: 'Units to redo: greater than 0 and at most what the live runs (or the named run) built.' }),
      buildRunId: t.arg.id({ description: 'The build run whose units need rework.' }),
    },
    resolve: (_root, a, ctx) => addReworkItem(ctx, String(a.workOrderId), {
      expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), description: a.description, quantity: a.quantity,
      buildRunId: a.buildRunId === null || a.buildRunId === undefined ? null : String(a.buildRunId),
    }),
  }),
  resolveReworkItem: payloadField(t, 'resolveReworkItem', {
    type: RecordWriteResultRef,
    description: 'Resolves an open rework item; resolving one twice is CONFLICT.',
    args: { ...writeArgs(t), reworkItemId: t.arg.id({ required: true, description: 'The rework item to resolve.' }) },
    resolve: (_root, a, ctx) => resolveReworkItem(ctx, String(a.workOrderId), {
      expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), reworkItemId: String(a.reworkItemId),
    }),
  }),
  addWorkOrderDocument: payloadField(t, 'addWorkOrderDocument', {
    type: RecordWriteResultRef,
    description: 'Attaches a document to a work order by link (the name and an http(s) URL; the file stays where it is).',
    args: {
      ...writeArgs(t),
      name: t.arg.string({ required: true, description: 'The document\'s name.' }),
      url: t.arg.string({ required: true, description: 'An http(s) URL (up to 2,000 characters).' }),
    },
    resolve: (_root, a, ctx) => addDocument(ctx, String(a.workOrderId), { expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), name: a.name, url: a.url }),
  }),
  addWorkOrderMessage: payloadField(t, 'addWorkOrderMessage', {
    type: RecordWriteResultRef,
    description: 'Adds a message to a work order\'s conversation.',
    args: {
      ...writeArgs(t),
      body: t.arg.string({ required: true, description: 'The message (up to 10,000 characters).' }),
      authorName: t.arg.string({ description: 'Who wrote it (up to 200 characters).' }),
    },
    resolve: (_root, a, ctx) => addMessage(ctx, String(a.workOrderId), { expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), body: a.body, authorName: a.authorName }),
  }),
}));
