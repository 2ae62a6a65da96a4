import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';
import { QC_DECISIONS, REWORK_ITEM_STATUSES, type WorkOrderStatus } from './work-order-vocabulary.ts';

// The append-mostly records of a work order: reviews, rework, documents, messages and lifecycle.
const woChild = { shopId: p.text().primary(), workOrderId: p.text().primary() };

export const QcReview = defineEntity({
  name: 'QcReview',
  tableName: 'qc_reviews',
  filters: tenantFilter,
  properties: {
    ...woChild,
    reviewId: p.text().primary(),
    buildRunId: p.text().nullable(),
    decision: p.enum(QC_DECISIONS),
    note: p.text().nullable(),
    reviewerName: p.text().nullable(),
    createdAt: timestamp(),
  },
});

/**
 * What a QC review judged of one item of its build run: units approved and units failed. For each
 * run item, approved + failed over all reviews of the run never exceeds what the run built.
 */
export const QcReviewItem = defineEntity({
  name: 'QcReviewItem',
  tableName: 'qc_review_items',
  filters: tenantFilter,
  properties: {
    ...woChild,
    reviewId: p.text().primary(),
    itemId: p.text().primary(),
    approvedQuantity: decimal(),
    failedQuantity: decimal(),
  },
});

export const ReworkItem = defineEntity({
  name: 'ReworkItem',
  tableName: 'rework_items',
  filters: tenantFilter,
  properties: {
    ...woChild,
    reworkItemId: p.text().primary(),
    description: p.text(),
    quantity: decimal(),
    status: p.enum(REWORK_ITEM_STATUSES),
    buildRunId: p.text().nullable(),
    createdAt: timestamp(),
    resolvedAt: timestamp().nullable(),
  },
});

export const WorkOrderDocument = defineEntity({
  name: 'WorkOrderDocument',
  tableName: 'work_order_documents',
  filters: tenantFilter,
  properties: { ...woChild, documentId: p.text().primary(), name: p.text(), url: p.text(), createdAt: timestamp() },
});

export const WorkOrderMessage = defineEntity({
  name: 'WorkOrderMessage',
  tableName: 'work_order_messages',
  filters: tenantFilter,
  properties: {
    ...woChild,
    messageId: p.text().primary(),
    authorName: p.text().nullable(),
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
    eventId: p.text().primary(),
    fromStatus: p.text().$type<WorkOrderStatus>().nullable(),
    toStatus: p.text().$type<WorkOrderStatus>(),
    note: p.text().nullable(),
    actorUserId: p.text().nullable(),
    actorDisplayName: p.text().nullable(),
    createdAt: timestamp(),
  },
});
