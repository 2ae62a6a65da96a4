import type { CheckContext } from './check-context.ts';
import { addUniqueId, expectKnown, expectLocation, present, resolveOwner } from './check-context.ts';
import type { ProblemKind } from './problems.ts';
import { exact, ZERO, type Exact } from '../kernel/numbers/index.ts';
import type { DatasetWorkOrder } from './types.ts';

// Cross-record rules of work orders, one work order at a time. Item ids and build-run ids are
// unique within their work order (a build-run id is the idempotency key of a write "on that work
// order"); the ids of QC reviews, rework items, documents, messages and lifecycle events are
// unique shop-wide because the API hands them out on their own (e.g. `lifecycleEventId`).

type SubRecordList = 'qcReviews' | 'reworkItems' | 'documents' | 'conversation' | 'lifecycleEvents';

const SUB_RECORD_IDS: { list: SubRecordList; key: string; label: string; kind: ProblemKind }[] = [
  { list: 'qcReviews', key: 'reviewId', label: 'QC review', kind: 'workOrders:qcReviews' },
  { list: 'reworkItems', key: 'reworkItemId', label: 'rework item', kind: 'workOrders:reworkItems' },
  { list: 'documents', key: 'documentId', label: 'document', kind: 'workOrders:documents' },
  { list: 'conversation', key: 'messageId', label: 'message', kind: 'workOrders:conversation' },
  { list: 'lifecycleEvents', key: 'eventId', label: 'lifecycle event', kind: 'workOrders:lifecycleEvents' },
];

// Where a shop-wide id was first seen, as one number: work order index × 2^26 + record index.
const RECORD_SLOTS = 2 ** 26;

export class WorkOrderChecks {
  private readonly ctx: CheckContext;
  private readonly ids = new Map<string, number>();
  private readonly shopWide = SUB_RECORD_IDS.map(() => new Map<string, number>());
  /** createdAt and id of each work order, for numbering their short ids. */
  readonly createdAt: [string, string][] = [];

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
  }

  check(wo: DatasetWorkOrder, i: number): void {
    const ctx = this.ctx;
    addUniqueId(ctx.problems, 'workOrders:duplicates', this.ids, wo.workOrderId, i, (k) => `$.workOrders[${k}].workOrderId`, 'work order');
    if (typeof wo.workOrderId === 'string' && typeof wo.createdAt === 'string') this.createdAt.push([wo.createdAt, wo.workOrderId]);
    checkWorkOrder(ctx, wo, `$.workOrders[${i}]`);
    SUB_RECORD_IDS.forEach(({ list, key, label, kind }, n) => {
      const seen = this.shopWide[n]!;
      const pathOf = (at: number) => `$.workOrders[${Math.floor(at / RECORD_SLOTS)}].${list}[${at % RECORD_SLOTS}].${key}`;
      for (const [record, k] of present(wo[list] as unknown as readonly Record<string, unknown>[] | null)) {
        const id = record[key];
        if (typeof id !== 'string') continue;
        const at = i * RECORD_SLOTS + k;
        const first = seen.get(id);
        if (first !== undefined) ctx.problems.add(kind, pathOf(at), `duplicate ${label} "${id}" (first at ${pathOf(first)})`);
        else seen.set(id, at);
      }
    });
  }
}

function checkWorkOrder(ctx: CheckContext, wo: DatasetWorkOrder, path: string): void {
  const kind = 'workOrders';
  const report = (at: string, message: string) => ctx.problems.add(kind, at, message);
  expectKnown(ctx, kind, `${path}.assigneeId`, wo.assigneeId, ctx.assignees, 'assignee');
  expectLocation(ctx, kind, `${path}.productionLocationId`, wo.productionLocationId);
  expectLocation(ctx, kind, `${path}.defaultConsumptionLocationId`, wo.defaultConsumptionLocationId);
  expectKnown(ctx, kind, `${path}.sourceFlowId`, wo.sourceFlowId, ctx.flows, 'flow');
  expectKnown(ctx, kind, `${path}.sourceTodoId`, wo.sourceTodoId, ctx.tasks, 'task');
  for (const [orderId, k] of present(wo.sourceOrderIds)) expectKnown(ctx, kind, `${path}.sourceOrderIds[${k}]`, orderId, ctx.orders, 'order');
  // Both are fixed-width UTC ISO strings, so text order is time order.
  if (wo.createdAt && wo.updatedAt && wo.updatedAt < wo.createdAt) {
    report(`${path}.updatedAt`, `must not be before createdAt (${wo.createdAt}), got ${wo.updatedAt}`);
  }

  const items = new Map<string, number>();
  for (const [item, k] of present(wo.items)) addUniqueId(ctx.problems, kind, items, item.itemId, k, (n) => `${path}.items[${n}].itemId`, 'work-order item');
  for (const [item, k] of present(wo.items)) resolveOwner(ctx, kind, `${path}.items[${k}].ownerId`, item.ownerType, item.ownerId);

  for (const [manual, k] of present(wo.manualMaterials)) {
    expectKnown(ctx, kind, `${path}.manualMaterials[${k}].variantId`, manual.variantId, ctx.materials, 'material');
    expectLocation(ctx, kind, `${path}.manualMaterials[${k}].locationId`, manual.locationId);
  }

  const runs = new Map<string, number>();
  for (const [run, k] of present(wo.buildRuns)) addUniqueId(ctx.problems, kind, runs, run.buildRunId, k, (n) => `${path}.buildRuns[${n}].buildRunId`, 'build run');
  for (const [run, k] of present(wo.buildRuns)) {
    const runPath = `${path}.buildRuns[${k}]`;
    if (run.status === 'completed' && run.completedAt === null) report(`${runPath}.completedAt`, 'a completed build run needs completedAt');
    if (run.status === 'started' && run.completedAt !== null) report(`${runPath}.completedAt`, 'a started build run has no completedAt yet');
    if (run.startedAt && run.completedAt && run.completedAt < run.startedAt) {
      report(`${runPath}.completedAt`, `must not be before startedAt (${run.startedAt}), got ${run.completedAt}`);
    }
    for (const [runItem, m] of present(run.items)) {
      expectKnown(ctx, kind, `${runPath}.items[${m}].itemId`, runItem.itemId, items, 'work-order item');
    }
    for (const [pick, m] of present(run.picks)) {
      // A pick names a material level, or an assembly bill whose pre-assembled shelf the run used.
      if (!ctx.materials.has(pick.variantId) && !ctx.assemblyBills.has(pick.variantId)) {
        report(`${runPath}.picks[${m}].variantId`, `unknown material or assembly bill "${pick.variantId}"`);
      }
      expectLocation(ctx, kind, `${runPath}.picks[${m}].locationId`, pick.locationId);
    }
  }

  checkQcReviews(ctx, wo, path, runs, items);
  for (const [rework, k] of present(wo.reworkItems)) {
    const reworkPath = `${path}.reworkItems[${k}]`;
    expectKnown(ctx, kind, `${reworkPath}.buildRunId`, rework.buildRunId, runs, 'build run');
    if (rework.status === 'resolved' && rework.resolvedAt === null) report(`${reworkPath}.resolvedAt`, 'a resolved rework item needs resolvedAt');
    if (rework.status === 'open' && rework.resolvedAt !== null) report(`${reworkPath}.resolvedAt`, 'an open rework item has no resolvedAt');
  }
}

/**
 * QC reviews name a build run of the work order; their items are items that run built, and for
 * each run item approved + failed over all reviews stays within what it built. A review's decision
 * is `rejected` exactly when one of its items failed units.
 */
function checkQcReviews(ctx: CheckContext, wo: DatasetWorkOrder, path: string, runs: Map<string, number>, items: Map<string, number>): void {
  const kind = 'workOrders:qcReviews';
  const built = new Map<string, Exact>();
  for (const [run] of present(wo.buildRuns)) {
    for (const [x] of present(run.items)) if (typeof x.quantity === 'string') built.set(`${run.buildRunId}|${x.itemId}`, exact(x.quantity));
  }
  const judged = new Map<string, { total: Exact; at: string }>();
  for (const [review, k] of present(wo.qcReviews)) {
    const reviewPath = `${path}.qcReviews[${k}]`;
    expectKnown(ctx, kind, `${reviewPath}.buildRunId`, review.buildRunId, runs, 'build run');
    let anyFailed = false;
    let judgedAll = true;
    const wholeRun = (review.items?.length ?? 0) === 0 && review.buildRunId !== null
      ? (wo.buildRuns ?? []).find((r) => r?.buildRunId === review.buildRunId)?.items ?? [] : [];
    // A review without items judged every unit each item of its run built.
    const reviewItems = (review.items?.length ?? 0) > 0 ? review.items
      : wholeRun.filter((x) => x && typeof x.quantity === 'string').map((x) => ({ itemId: x.itemId, approvedQuantity: x.quantity, failedQuantity: '0' }));
    for (const [x, m] of present(reviewItems)) {
      const itemPath = reviewItems === review.items ? `${reviewPath}.items[${m}]` : reviewPath;
      if (typeof x.approvedQuantity !== 'string' || typeof x.failedQuantity !== 'string') continue;
      const total = exact(x.approvedQuantity).plus(x.failedQuantity);
      anyFailed ||= !exact(x.failedQuantity).isZero();
      if (total.isZero()) {
        ctx.problems.add(kind, itemPath, 'approvedQuantity + failedQuantity must be greater than 0');
        judgedAll = false;
        continue;
      }
      if (review.buildRunId === null || !runs.has(review.buildRunId)) {
        expectKnown(ctx, kind, `${itemPath}.itemId`, x.itemId, items, 'work-order item');
        continue;
      }
      const key = `${review.buildRunId}|${x.itemId}`;
      const made = built.get(key);
      if (made === undefined) {
        ctx.problems.add(kind, `${itemPath}.itemId`, `item "${x.itemId}" is not one build run "${review.buildRunId}" built`);
        continue;
      }
      const sum = (judged.get(key)?.total ?? ZERO).plus(total);
      judged.set(key, { total: sum, at: `${itemPath}` });
      if (sum.gt(made)) {
        ctx.problems.add(kind, itemPath,
          `approved + failed of item "${x.itemId}" over the reviews of build run "${review.buildRunId}" is ${sum.toFixed()}, more than the ${made.toFixed()} it built`);
      }
    }
    if (judgedAll && (review.items?.length ?? 0) > 0 && review.decision === (anyFailed ? 'approved' : 'rejected')) {
      ctx.problems.add(kind, `${reviewPath}.decision`, `must be ${anyFailed ? 'rejected' : 'approved'}: ${anyFailed ? 'some items failed units' : 'no item failed units'}`);
    }
  }
}
