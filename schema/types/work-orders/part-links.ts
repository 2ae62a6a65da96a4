import type { WholeWorkOrder, WorkOrderItemView } from '../../../src/modules/work-orders/work-order-read.service.ts';
import type { BuildRunView } from '../../../src/modules/work-orders/build-run-view.ts';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import type { Types } from '../common/connection.ts';
import { workOrderOf } from './parent.ts';
import {
  BuildRunRef, ItemConsumptionRef, PlanContributionRef, QcReviewItemRef, recordFields, RunItemRef, WarningRef, WorkOrderItemRef,
} from './work-order.ts';
import type { ObjectRef } from '@pothos/core';

// The parts of a work order name its items (itemId) and build runs (buildRunId) by id: each leads to
// the item or run of the work order it was read through (schema/types/work-orders/parent.ts), with
// no further read. A part read on its own (a mutation's result) has no work order at hand: null.

const item = (wo: WholeWorkOrder | null, itemId: string | null | undefined): WorkOrderItemView | null =>
  (itemId ? wo?.items.find((i) => i.itemId === itemId) ?? null : null);
const run = (wo: WholeWorkOrder | null, buildRunId: string | null | undefined): BuildRunView | null =>
  (buildRunId ? wo?.buildRuns.find((r) => r.buildRunId === buildRunId) ?? null : null);

function partLink<T extends object, L>(
  parent: ObjectRef<Types, T>, field: string, type: ObjectRef<Types, L>, description: string,
  find: (wo: WholeWorkOrder | null, part: T) => L | null,
): void {
  // Typed loosely: Pothos field builders are invariant in their parent type.
  builder.objectField(parent, field, (t: any) => t.field({
    type, nullable: true, description,
    resolve: async (part: T, _args: unknown, ctx: GraphQLContext) => find(await workOrderOf(ctx, part), part),
  }));
}

const ITEM = 'The work-order item of `itemId` (null when the part was not read through its work order).';
partLink(RunItemRef, 'item', WorkOrderItemRef, ITEM, (wo, i) => item(wo, i.itemId));
partLink(QcReviewItemRef, 'item', WorkOrderItemRef, ITEM, (wo, i) => item(wo, i.item_id));
partLink(PlanContributionRef, 'item', WorkOrderItemRef, 'The work-order item of `itemId`; null for a manual line.', (wo, c) => item(wo, c.itemId));
partLink(ItemConsumptionRef, 'item', WorkOrderItemRef, ITEM, (wo, c) => item(wo, c.itemId));
partLink(WarningRef, 'item', WorkOrderItemRef, 'The work-order item the warning is about; null when it names none.', (wo, w) => item(wo, w.itemId));

const RUN = 'The build run of `buildRunId`; null when it names none.';
partLink(recordFields.QcReview, 'buildRun', BuildRunRef, RUN, (wo, q) => run(wo, q.build_run_id));
partLink(recordFields.ReworkItem, 'buildRun', BuildRunRef, RUN, (wo, r) => run(wo, r.build_run_id));
