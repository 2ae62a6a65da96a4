import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';

// The append-mostly records of a work order: reviews, rework, documents, messages and lifecycle.
const woChild = { shopId: p.string().primary(), workOrderId: p.string().primary() };

export const QcReview = defineEntity({
  name: 'QcReview',
  tableName: 'qc_reviews',
  filters: tenantFilter,
  properties: {
    ...woChild,
    reviewId: p.string().primary(),
    buildRunId: p.string().nullable(),
    decision: p.enum(['approved', 'rejected']),
    note: p.text().nullable(),
    reviewerName: p.string().nullable(),
    createdAt: timestamp(),
  },
});

export const ReworkItem = defineEntity({
  name: 'ReworkItem',
  tableName: 'rework_items',
  filters: tenantFilter,
  properties: {
    ...woChild,
    reworkItemId: p.string().primary(),
    description: p.text(),
    quantity: decimal(),
    status: p.enum(['open', 'resolved']),
    buildRunId: p.string().nullable(),
    createdAt: timestamp(),
    resolvedAt: timestamp().nullable(),
  },
});

export const WorkOrderDocument = defineEntity({
  name: 'WorkOrderDocument',
  tableName: 'work_order_documents',
  filters: tenantFilter,
  properties: { ...woChild, documentId: p.string().primary(), name: p.string(), url: p.text(), createdAt: timestamp() },
});

export const WorkOrderMessage = defineEntity({
  name: 'WorkOrderMessage',
  tableName: 'work_order_messages',
  filters: tenantFilter,
  properties: {
    ...woChild,
    messageId: p.string().primary(),
    authorName: p.string().nullable(),
    body: p.text(),
    createdAt: timestamp(),
  },
});

export const LifecycleEvent = defineEntity({
  name: 'LifecycleEvent',
  tableName: 'lifecycle_events',
  filters: tenantFilter,
  properties: {
    ...woChild,
    eventId: p.string().primary(),
    fromStatus: p.string().nullable(),
    toStatus: p.string(),
    note: p.text().nullable(),
    actorUserId: p.string().nullable(),
    actorDisplayName: p.string().nullable(),
    createdAt: timestamp(),
  },
});
