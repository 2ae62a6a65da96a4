import { PAGE_DEFAULTS, PAGE_LIMITS } from '../../../src/kernel/limits.ts';
import { completeBuildRun, listBuildRuns, reverseBuildRun, startBuildRun } from '../../../src/modules/work-orders/build-run.service.ts';
import { updateWorkOrderHeader } from '../../../src/modules/work-orders/header-update.service.ts';
import { materialPlanOf, workOrdersForest } from '../../../src/modules/work-orders/material-plan.service.ts';
import { transitionWorkOrder, type TransitionResult } from '../../../src/modules/work-orders/transition.service.ts';
import { listWorkOrders, type FacetEntry, type WorkOrderFacets, type WorkOrderListPage } from '../../../src/modules/work-orders/work-order-list.service.ts';
import { requireWorkOrder, wholeWorkOrder } from '../../../src/modules/work-orders/work-order-read.service.ts';
import { loadParts } from '../../../src/modules/work-orders/work-order.repository.ts';
import type { BuildRunView } from '../../../src/modules/work-orders/build-run-view.ts';
import { WORK_ORDER_FACETS } from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { builder } from '../../builder.ts';
import { payloadField } from '../common/payload.ts';
import {
  BuildRunModeEnum, BuildRunTypeEnum, TransitionDirectionEnum, WorkOrderPriorityEnum, WorkOrderSortDirectionEnum, WorkOrderSortEnum,
  WorkOrderSourceTypeEnum, WorkOrderStatusEnum,
} from './enums.ts';
import { adopt } from './parent.ts';
import { BuildRunRef, MaterialPlanRef, WorkOrderRef, WorkOrderRowRef } from './work-order.ts';

const FacetRef = builder.objectRef<FacetEntry>('WorkOrderFacetEntry').implement({
  fields: (t) => ({
    value: t.exposeString('value', { nullable: true, description: 'null: work orders with no location / no assignee.' }),
    label: t.exposeString('label'),
    count: t.exposeInt('count'),
  }),
});

const FacetsRef = builder.objectRef<WorkOrderFacets>('WorkOrderFacets').implement({
  description: 'Counts over the filtered, unpaged result.',
  // One field per facet of the vocabulary, in its order.
  fields: (t) => Object.fromEntries(WORK_ORDER_FACETS.map((facet) => [facet, t.field({
    type: [FacetRef], resolve: (f) => f[facet], description: facet === 'location' ? 'By productionLocationId.' : undefined,
  })])),
});

const ListRef = builder.objectRef<WorkOrderListPage>('WorkOrderListPage').implement({
  fields: (t) => ({
    rows: t.field({ type: [WorkOrderRowRef], resolve: (p) => p.rows }),
    total: t.exposeInt('total'),
    hasMore: t.exposeBoolean('hasMore', { description: 'page × pageSize < total' }),
    page: t.exposeInt('page'),
    pageSize: t.exposeInt('pageSize'),
    facets: t.field({ type: FacetsRef, resolve: (p) => p.facets }),
  }),
});

const RunHistoryRef = builder.objectRef<{ workOrderId: string; buildRuns: BuildRunView[] }>('WorkOrderBuildRunHistory').implement({
  fields: (t) => ({ workOrderId: t.exposeID('workOrderId'), buildRuns: t.field({ type: [BuildRunRef], resolve: (h) => adopt(h.workOrderId, h.buildRuns) }) }),
});

builder.queryFields((t) => ({
  workOrders: t.field({
    type: ListRef,
    authScopes: { read: true },
    description: 'Work orders, filtered, sorted and paged, with facets over the filtered result.',
    args: {
      q: t.arg.string({ description: 'Case-insensitive substring of the name, the short id or the assignee\'s display name.' }),
      status: t.arg({ type: [WorkOrderStatusEnum], description: 'Any of (OR).' }),
      tags: t.arg.stringList({ description: 'Any of (OR).' }),
      locationId: t.arg.string({ description: 'productionLocationId.' }),
      assignedTo: t.arg.string({ description: 'An assigneeId.' }),
      sourceType: t.arg({ type: WorkOrderSourceTypeEnum }),
      sortBy: t.arg({ type: WorkOrderSortEnum }),
      sortDir: t.arg({ type: WorkOrderSortDirectionEnum }),
      page: t.arg.int({ defaultValue: 1, description: '1-based page number (default 1); below 1 is INVALID_INPUT.' }),
      pageSize: t.arg.int({ defaultValue: PAGE_DEFAULTS.workOrders, description: `Work orders per page, 1–${PAGE_LIMITS.workOrders} (default ${PAGE_DEFAULTS.workOrders}); outside that range is INVALID_INPUT.` }),
    },
    resolve: (_root, a, ctx) => listWorkOrders(ctx, {
      q: a.q ?? null, statuses: a.status ?? [], tags: a.tags ?? [], locationId: a.locationId ?? null, assignedTo: a.assignedTo ?? null,
      sourceType: a.sourceType ?? null, sortBy: a.sortBy ?? null, sortDir: a.sortDir ?? null, page: a.page, pageSize: a.pageSize,
    }),
  }),
  workOrder: t.field({
    type: WorkOrderRef,
    authScopes: { read: true },
    args: { workOrderId: t.arg.id({ required: true }) },
    resolve: (_root, a, ctx) => wholeWorkOrder(ctx, String(a.workOrderId)),
  }),
  workOrderMaterialPlan: t.field({
    type: MaterialPlanRef,
    authScopes: { read: true },
    args: { workOrderId: t.arg.id({ required: true }) },
    // The header, the parts and the recipe walk of the items at once (none needs another), then the plan's reads.
    resolve: async (_root, a, ctx) => {
      const id = String(a.workOrderId);
      const [header, parts, forest] = await Promise.all([
        requireWorkOrder(ctx, id),
        loadParts(ctx.em, ctx.shopId, id, ['items', 'manual', 'runs', 'runItems', 'picks'] as const),
        workOrdersForest(ctx, [id]),
      ]);
      return materialPlanOf(ctx, { header, ...parts }, forest);
    },
  }),
  workOrderBuildRuns: t.field({
    type: RunHistoryRef,
    authScopes: { read: true },
    description: 'The build-run history of a work order, oldest first.',
    args: { workOrderId: t.arg.id({ required: true }) },
    resolve: (_root, a, ctx) => listBuildRuns(ctx, String(a.workOrderId)),
  }),
}));

const WriteResultRef = builder.objectRef<{ workOrderId: string; updatedAt: Date }>('WorkOrderWriteResult').implement({
  fields: (t) => ({ workOrderId: t.exposeID('workOrderId'), updatedAt: t.expose('updatedAt', { type: 'DateTime' }) }),
});

const TransitionResultRef = builder.objectRef<TransitionResult>('WorkOrderTransitionResult').implement({
  fields: (t) => ({
    workOrderId: t.exposeID('workOrderId'),
    status: t.expose('status', { type: WorkOrderStatusEnum }),
    previousStatus: t.expose('previousStatus', { type: WorkOrderStatusEnum }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    lifecycleEventId: t.exposeID('lifecycleEventId'),
  }),
});

const HeaderInput = builder.inputType('WorkOrderHeaderInput', {
  description: 'Editable header fields: absent = unchanged, null = cleared (name and priority cannot be cleared).',
  fields: (t) => ({
    expectedUpdatedAt: t.field({ type: 'DateTime', required: true }),
    name: t.string(), description: t.string(), notes: t.string(),
    priority: t.field({ type: WorkOrderPriorityEnum }),
    dueDate: t.string({ description: 'YYYY-MM-DD' }),
    assigneeId: t.string(), productionLocationId: t.string(), defaultConsumptionLocationId: t.string(),
    sourceFlowId: t.string(), sourceTodoId: t.string(), sourceOrderIds: t.stringList(), tags: t.stringList(),
    plannedLaborCost: t.field({ type: 'Decimal' }), actualLaborCost: t.field({ type: 'Decimal' }),
  }),
});

const RunItemInput = builder.inputType('BuildRunItemInput', {
  fields: (t) => ({ itemId: t.string({ required: true }), quantity: t.field({ type: 'Decimal', required: true }) }),
});

const RunChangeArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  workOrderId: t.arg.id({ required: true }),
  buildRunId: t.arg.id({ required: true }),
  expectedUpdatedAt: t.arg({
    type: 'DateTime', required: true,
    description: 'The work order\'s `updatedAt` last read (a run\'s `workOrderUpdatedAt`), not the run\'s own `updatedAt`; a stale one is CONFLICT.',
  }),
});

builder.mutationFields((t) => ({
  updateWorkOrder: payloadField(t, 'updateWorkOrder', {
    type: WriteResultRef,
    description: 'Edits header fields (PATCH /work-orders/{id}): absent fields stay, null clears; a stale expectedUpdatedAt is CONFLICT.',
    args: { workOrderId: t.arg.id({ required: true }), input: t.arg({ type: HeaderInput, required: true }) },
    resolve: (_root, a, ctx) => {
      // Keep absent fields absent: only keys the client sent reach the service.
      const { expectedUpdatedAt, ...fields } = a.input as Record<string, unknown> & { expectedUpdatedAt: Date };
      return updateWorkOrderHeader(ctx, String(a.workOrderId), { expectedUpdatedAt: expectedUpdatedAt.toISOString(), ...fields });
    },
  }),
  transitionWorkOrder: payloadField(t, 'transitionWorkOrder', {
    type: TransitionResultRef,
    description: 'Moves a work order to another status (PATCH /work-orders/{id}/transition); a refused move is CONFLICT with its blockers.',
    args: {
      workOrderId: t.arg.id({ required: true }),
      expectedUpdatedAt: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: WorkOrderStatusEnum }),
      direction: t.arg({ type: TransitionDirectionEnum }),
      note: t.arg.string(), actorUserId: t.arg.string(), actorDisplayName: t.arg.string(),
    },
    resolve: (_root, a, ctx) => transitionWorkOrder(ctx, String(a.workOrderId), {
      expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), to: a.to ?? null, direction: a.direction ?? null,
      note: a.note ?? null, actorUserId: a.actorUserId ?? null, actorDisplayName: a.actorDisplayName ?? null,
    }),
  }),
  startBuildRun: payloadField(t, 'startBuildRun', {
    type: BuildRunRef,
    description: 'Starts a build run: consumes stock at once. Idempotent by buildRunId. An enhanced-plan operation: on a shop of the standard plan it is the error PLAN_REQUIRED (extensions.plan names the plan needed and the shop\'s plan; REST 403) and nothing moves.',
    args: {
      workOrderId: t.arg.id({ required: true }),
      expectedUpdatedAt: t.arg({ type: 'DateTime', required: true }),
      buildRunId: t.arg.id({ required: true }),
      items: t.arg({ type: [RunItemInput], required: true }),
      mode: t.arg({ type: BuildRunModeEnum }),
      runType: t.arg({ type: BuildRunTypeEnum }),
      reworkItemIds: t.arg.stringList(),
      note: t.arg.string(), actorUserId: t.arg.string(), actorDisplayName: t.arg.string(),
    },
    resolve: (_root, a, ctx): Promise<BuildRunView> => startBuildRun(ctx, String(a.workOrderId), {
      expectedUpdatedAt: a.expectedUpdatedAt.toISOString(), buildRunId: String(a.buildRunId), items: a.items, mode: a.mode ?? 'start',
      runType: a.runType ?? 'production', reworkItemIds: a.reworkItemIds ?? [], note: a.note ?? null, actorUserId: a.actorUserId ?? null,
      actorDisplayName: a.actorDisplayName ?? null,
    }),
  }),
  completeBuildRun: payloadField(t, 'completeBuildRun', {
    type: BuildRunRef,
    description: 'Completes a started run: its quantities join the items\' completedQuantity and the pre-assembled stock of what was built.',
    args: RunChangeArgs(t),
    resolve: (_root, a, ctx) => completeBuildRun(ctx, String(a.workOrderId), { buildRunId: String(a.buildRunId), expectedUpdatedAt: a.expectedUpdatedAt.toISOString() }),
  }),
  reverseBuildRun: payloadField(t, 'reverseBuildRun', {
    type: BuildRunRef,
    description: 'Reverses a run: every pick returns where it came from (residuals included) and a completed run\'s output is taken back.',
    args: RunChangeArgs(t),
    resolve: (_root, a, ctx) => reverseBuildRun(ctx, String(a.workOrderId), { buildRunId: String(a.buildRunId), expectedUpdatedAt: a.expectedUpdatedAt.toISOString() }),
  }),
}));
