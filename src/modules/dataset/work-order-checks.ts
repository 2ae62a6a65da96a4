import type { CheckContext } from './check-context.ts';
import { expectKnown, expectLocation, indexUnique, present, report, resolveOwner } from './check-context.ts';
import type { DatasetWorkOrder } from './types.ts';

// Cross-record rules of work orders. Item ids and build-run ids are unique within their work
// order (a build-run id is the idempotency key of a write "on that work order"); the ids of QC
// reviews, rework items, documents, messages and lifecycle events are unique shop-wide because
// the API hands them out on their own (e.g. `lifecycleEventId`).

type SubRecordList = 'qcReviews' | 'reworkItems' | 'documents' | 'conversation' | 'lifecycleEvents';

const SUB_RECORD_IDS: { list: SubRecordList; key: string; label: string }[] = [
  { list: 'qcReviews', key: 'reviewId', label: 'QC review' },
  { list: 'reworkItems', key: 'reworkItemId', label: 'rework item' },
  { list: 'documents', key: 'documentId', label: 'document' },
  { list: 'conversation', key: 'messageId', label: 'message' },
  { list: 'lifecycleEvents', key: 'eventId', label: 'lifecycle event' },
];

export function checkWorkOrders(ctx: CheckContext): void {
  const workOrders = ctx.dataset.workOrders;
  indexUnique(ctx.errors, workOrders, (w) => w.workOrderId, (i) => `$.workOrders[${i}].workOrderId`, 'work order');
  for (const [workOrder, i] of present(workOrders)) checkWorkOrder(ctx, workOrder, `$.workOrders[${i}]`);
  for (const { list, key, label } of SUB_RECORD_IDS) checkShopWideIds(ctx, list, key, label);
}

function checkWorkOrder(ctx: CheckContext, wo: DatasetWorkOrder, path: string): void {
  expectKnown(ctx, `${path}.assigneeId`, wo.assigneeId, ctx.assignees, 'assignee');
  expectLocation(ctx, `${path}.productionLocationId`, wo.productionLocationId);
  expectLocation(ctx, `${path}.defaultConsumptionLocationId`, wo.defaultConsumptionLocationId);
  expectKnown(ctx, `${path}.sourceFlowId`, wo.sourceFlowId, ctx.flows, 'flow');
  expectKnown(ctx, `${path}.sourceTodoId`, wo.sourceTodoId, ctx.tasks, 'task');
  for (const [orderId, k] of present(wo.sourceOrderIds)) expectKnown(ctx, `${path}.sourceOrderIds[${k}]`, orderId, ctx.orders, 'order');
  // Both are fixed-width UTC ISO strings, so text order is time order.
  if (wo.createdAt && wo.updatedAt && wo.updatedAt < wo.createdAt) {
    report(ctx, `${path}.updatedAt`, `must not be before createdAt (${wo.createdAt}), got ${wo.updatedAt}`);
  }

  const items = indexUnique(ctx.errors, wo.items, (item) => item.itemId, (k) => `${path}.items[${k}].itemId`, 'work-order item');
  for (const [item, k] of present(wo.items)) resolveOwner(ctx, `${path}.items[${k}].ownerId`, item.ownerType, item.ownerId);

  for (const [manual, k] of present(wo.manualMaterials)) {
    expectKnown(ctx, `${path}.manualMaterials[${k}].variantId`, manual.variantId, ctx.materials, 'material');
    expectLocation(ctx, `${path}.manualMaterials[${k}].locationId`, manual.locationId);
  }

  const runs = indexUnique(ctx.errors, wo.buildRuns, (run) => run.buildRunId, (k) => `${path}.buildRuns[${k}].buildRunId`, 'build run');
  for (const [run, k] of present(wo.buildRuns)) {
    const runPath = `${path}.buildRuns[${k}]`;
    if (run.status === 'completed' && run.completedAt === null) report(ctx, `${runPath}.completedAt`, 'a completed build run needs completedAt');
    if (run.status === 'started' && run.completedAt !== null) report(ctx, `${runPath}.completedAt`, 'a started build run has no completedAt yet');
    if (run.startedAt && run.completedAt && run.completedAt < run.startedAt) {
      report(ctx, `${runPath}.completedAt`, `must not be before startedAt (${run.startedAt}), got ${run.completedAt}`);
    }
    for (const [runItem, m] of present(run.items)) {
      expectKnown(ctx, `${runPath}.items[${m}].itemId`, runItem.itemId, items, 'work-order item');
    }
    for (const [pick, m] of present(run.picks)) {
      // A pick names a material level, or an assembly bill whose pre-assembled shelf the run used.
      if (!ctx.materials.has(pick.variantId) && !ctx.assemblyBills.has(pick.variantId)) {
        report(ctx, `${runPath}.picks[${m}].variantId`, `unknown material or assembly bill "${pick.variantId}"`);
      }
      expectLocation(ctx, `${runPath}.picks[${m}].locationId`, pick.locationId);
    }
  }

  for (const [review, k] of present(wo.qcReviews)) {
    expectKnown(ctx, `${path}.qcReviews[${k}].buildRunId`, review.buildRunId, runs, 'build run');
  }
  for (const [rework, k] of present(wo.reworkItems)) {
    const reworkPath = `${path}.reworkItems[${k}]`;
    expectKnown(ctx, `${reworkPath}.buildRunId`, rework.buildRunId, runs, 'build run');
    if (rework.status === 'resolved' && rework.resolvedAt === null) report(ctx, `${reworkPath}.resolvedAt`, 'a resolved rework item needs resolvedAt');
    if (rework.status === 'open' && rework.resolvedAt !== null) report(ctx, `${reworkPath}.resolvedAt`, 'an open rework item has no resolvedAt');
  }
}

function checkShopWideIds(ctx: CheckContext, list: SubRecordList, key: string, label: string): void {
  const seen = new Map<string, string>();
  for (const [workOrder, i] of present(ctx.dataset.workOrders)) {
    const records = workOrder[list] as unknown as readonly Record<string, unknown>[] | null;
    for (const [record, k] of present(records)) {
      const id = record[key];
      if (typeof id !== 'string') continue;
      const path = `$.workOrders[${i}].${list}[${k}].${key}`;
      const first = seen.get(id);
      if (first) report(ctx, path, `duplicate ${label} "${id}" (first at ${first})`);
      else seen.set(id, path);
    }
  }
}
