import type { BuildRunPickView, BuildRunView, BuildRunWarning } from '../../../src/modules/work-orders/build-run-view.ts';
import type {
  ItemConsumption, MaterialPlan, PlanConsumptionLine, PlanContribution, PlanCost, PlanMaterial,
} from '../../../src/modules/work-orders/material-plan.service.ts';
import type { WholeWorkOrder, WorkOrderItemView, WorkOrderWarning } from '../../../src/modules/work-orders/work-order-read.service.ts';
import type {
  DocumentPart, LifecyclePart, MessagePart, QcReviewItemPart, QcReviewPart, ReworkPart,
} from '../../../src/modules/work-orders/work-order.repository.ts';
import type { WorkOrderHeaderView } from '../../../src/modules/work-orders/work-order-view.ts';
import { TRANSITION_DIRECTIONS } from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { type TransitionMove } from '../../../src/modules/work-orders/work-order-states.ts';
import { builder, valueList } from '../../builder.ts';
import { BillOwnerTypeEnum } from '../boms/enums.ts';
import { StockKindEnum } from '../stock/enums.ts';
import {
  BuildRunStatusEnum, BuildRunTypeEnum, QcDecisionEnum, ReworkItemStatusEnum, TransitionDirectionEnum, WorkOrderContributionSourceEnum, WorkOrderPriorityEnum,
  WorkOrderSourceTypeEnum, WorkOrderStatusEnum, WorkOrderWarningCodeEnum,
} from './enums.ts';
import { adopt, parentOf } from './parent.ts';

/** The header fields, declared once: list rows (`WorkOrderRow`) and the whole read (`WorkOrder`) implement it. */
export const WorkOrderHeaderRef = builder.interfaceRef<WorkOrderHeaderView>('WorkOrderHeader').implement({
  description: 'The flat header fields of a work order.',
  resolveType: (value) => ('items' in value ? 'WorkOrder' : 'WorkOrderRow'),
  fields: (t) => ({
    workOrderId: t.exposeID('workOrderId', { description: '`wo_<uuid>`' }),
    shortId: t.exposeString('shortId', { description: 'Short human id, unique and stable per shop (`WO-0042`).' }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    notes: t.exposeString('notes', { nullable: true }),
    status: t.expose('status', { type: WorkOrderStatusEnum }),
    priority: t.expose('priority', { type: WorkOrderPriorityEnum }),
    dueDate: t.exposeString('dueDate', { nullable: true, description: 'Calendar date YYYY-MM-DD.' }),
    assigneeId: t.exposeString('assigneeId', { nullable: true }),
    assigneeName: t.exposeString('assigneeName', { nullable: true, description: 'The assignee\'s display name.' }),
    productionLocationId: t.exposeString('productionLocationId', { nullable: true }),
    productionLocationName: t.exposeString('productionLocationName', { nullable: true }),
    defaultConsumptionLocationId: t.exposeString('defaultConsumptionLocationId', { nullable: true }),
    sourceType: t.expose('sourceType', { type: WorkOrderSourceTypeEnum }),
    sourceFlowId: t.exposeString('sourceFlowId', { nullable: true }),
    sourceTodoId: t.exposeString('sourceTodoId', { nullable: true }),
    sourceOrderIds: t.exposeStringList('sourceOrderIds'),
    tags: t.exposeStringList('tags'),
    plannedLaborCost: t.expose('plannedLaborCost', { type: 'Decimal', nullable: true }),
    actualLaborCost: t.expose('actualLaborCost', { type: 'Decimal', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'The optimistic-lock token of every work-order write.' }),
  }),
});

export const WorkOrderRowRef = builder.objectRef<WorkOrderHeaderView>('WorkOrderRow').implement({
  description: 'A work order\'s header fields (list rows carry no items, materials or runs).',
  interfaces: [WorkOrderHeaderRef],
  fields: () => ({}),
});

export const WorkOrderItemRef = builder.objectRef<WorkOrderItemView>('WorkOrderItem').implement({
  fields: (t) => ({
    itemId: t.exposeID('itemId'),
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum }),
    ownerId: t.exposeString('ownerId'),
    name: t.exposeString('name', { nullable: true }),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    completedQuantity: t.expose('completedQuantity', { type: 'Decimal', description: 'Σ quantities of completed runs.' }),
    builtQuantity: t.expose('builtQuantity', { type: 'Decimal', description: 'Σ quantities of runs not reversed (started or completed).' }),
    remainingQuantity: t.expose('remainingQuantity', { type: 'Decimal', description: 'max(quantity − builtQuantity, 0).' }),
  }),
});

export const PlanMaterialRef = builder.objectRef<PlanMaterial>('WorkOrderPlanMaterial').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    name: t.exposeString('name', { nullable: true }),
    unit: t.exposeString('unit', { nullable: true }),
    locationId: t.exposeString('locationId', { nullable: true, description: 'Consumption location; null = unlocated.' }),
    locationName: t.exposeString('locationName', { nullable: true }),
    required: t.expose('required', { type: 'Decimal', description: 'picked + remaining (the allocation read\'s allocated).' }),
    picked: t.expose('picked', { type: 'Decimal', description: 'Σ picks of runs not reversed.' }),
    remaining: t.expose('remaining', { type: 'Decimal', description: 'What the units not yet started still need (shelves first, waste and rules included) plus manual lines × (Q − started) / Q.' }),
    unitCost: t.expose('unitCost', { type: 'Decimal', nullable: true }),
    isNonEssential: t.exposeBoolean('isNonEssential'),
  }),
});

export const PlanContributionRef = builder.objectRef<PlanContribution>('WorkOrderPlanContribution').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    locationId: t.exposeString('locationId', { nullable: true }),
    source: t.expose('source', { type: WorkOrderContributionSourceEnum }),
    itemId: t.exposeString('itemId', { nullable: true, description: 'The work-order item whose recipe gave it (recipe rows).' }),
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum, nullable: true }),
    ownerId: t.exposeString('ownerId', { nullable: true }),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    note: t.exposeString('note', { nullable: true, description: 'Manual lines\' note.' }),
  }),
});

export const PlanConsumptionRowRef = builder.objectRef<PlanConsumptionLine>('WorkOrderConsumptionRow').implement({
  description: 'What a run of the remaining quantities would take now from one shelf or material level.',
  fields: (t) => ({
    stock: t.expose('stock', { type: StockKindEnum }),
    itemId: t.exposeString('itemId', { description: 'Material variantId, or assemblyId of a pre-assembled shelf.' }),
    name: t.exposeString('name', { nullable: true }),
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', { nullable: true }),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    available: t.expose('available', { type: 'Decimal' }),
    short: t.expose('short', { type: 'Decimal', description: 'max(quantity − max(available, 0), 0).' }),
  }),
});

export const PlanCostRef = builder.objectRef<PlanCost>('WorkOrderCost').implement({
  fields: (t) => ({
    materialCost: t.expose('materialCost', { type: 'Decimal', description: 'Σ required × unitCost.' }),
    pickedMaterialCost: t.expose('pickedMaterialCost', { type: 'Decimal', description: 'Σ picked × unitCost.' }),
    plannedLaborCost: t.expose('plannedLaborCost', { type: 'Decimal', nullable: true }),
    actualLaborCost: t.expose('actualLaborCost', { type: 'Decimal', nullable: true }),
    plannedTotalCost: t.expose('plannedTotalCost', { type: 'Decimal', description: 'materialCost + plannedLaborCost.' }),
    actualTotalCost: t.expose('actualTotalCost', { type: 'Decimal', description: 'pickedMaterialCost + actualLaborCost.' }),
  }),
});

export const ItemConsumptionRef = builder.objectRef<ItemConsumption>('WorkOrderItemConsumption').implement({
  fields: (t) => ({
    itemId: t.exposeString('itemId'),
    remainingQuantity: t.expose('remainingQuantity', { type: 'Decimal' }),
    locationId: t.exposeString('locationId', { nullable: true }),
    rows: t.field({ type: [PlanConsumptionRowRef], resolve: (c) => c.rows }),
  }),
});

export const MaterialPlanRef = builder.objectRef<MaterialPlan>('WorkOrderMaterialPlan').implement({
  fields: (t) => ({
    workOrderId: t.exposeID('workOrderId'),
    materials: t.field({ type: [PlanMaterialRef], resolve: (p) => p.materials }),
    contributions: t.field({ type: [PlanContributionRef], resolve: (p) => adopt(p.workOrderId, p.contributions) }),
    consumptionPlan: t.field({ type: [PlanConsumptionRowRef], resolve: (p) => p.consumptionPlan }),
    cost: t.field({ type: PlanCostRef, resolve: (p) => p.cost }),
  }),
});

export const PickRef = builder.objectRef<BuildRunPickView>('BuildRunPick').implement({
  fields: (t) => ({
    stock: t.expose('stock', { type: StockKindEnum }),
    itemId: t.exposeString('itemId', { description: 'Material variantId, or assemblyId of the shelf.' }),
    locationId: t.exposeString('locationId'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Consumed (what the residual carry received).' }),
    deducted: t.expose('deducted', { type: 'Decimal', nullable: true, description: 'Whole units that left the level (null on runs loaded from a dataset).' }),
  }),
});

export const WarningRef = builder.objectRef<WorkOrderWarning | BuildRunWarning>('WorkOrderWarning').implement({
  description: 'A condition worth acting on, with its remedy. Work-order warnings are recomputed on every read.',
  fields: (t) => ({
    code: t.expose('code', { type: WorkOrderWarningCodeEnum, description: 'What the warning is about; on runs NEGATIVE_INVENTORY or PREASSEMBLED_SHORT.' }),
    message: t.exposeString('message'),
    remedy: t.exposeString('remedy'),
    variantId: t.string({ nullable: true, resolve: (w) => w.variantId ?? null }),
    itemId: t.string({ nullable: true, resolve: (w) => w.itemId ?? null }),
    locationId: t.string({ nullable: true, resolve: (w) => w.locationId ?? null }),
    quantity: t.field({ type: 'Decimal', nullable: true, resolve: (w) => w.quantity ?? null }),
    count: t.int({ nullable: true, resolve: (w) => ('count' in w ? w.count ?? null : null) }),
  }),
});

export const RunItemRef = builder.objectRef<{ itemId: string; quantity: string }>('BuildRunItem').implement({
  fields: (t) => ({ itemId: t.exposeString('itemId'), quantity: t.expose('quantity', { type: 'Decimal' }) }),
});

export const BuildRunRef = builder.objectRef<BuildRunView>('BuildRun').implement({
  fields: (t) => ({
    buildRunId: t.exposeID('buildRunId', { description: 'The client\'s idempotency key.' }),
    shortId: t.exposeString('shortId', { description: '`<work order shortId>-R<n>`' }),
    status: t.expose('status', { type: BuildRunStatusEnum }),
    runType: t.expose('runType', { type: BuildRunTypeEnum }),
    note: t.exposeString('note', { nullable: true }),
    actorUserId: t.exposeString('actorUserId', { nullable: true }),
    actorDisplayName: t.exposeString('actorDisplayName', { nullable: true }),
    reworkItemIds: t.exposeStringList('reworkItemIds'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    reversedAt: t.expose('reversedAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'The run\'s own change time.' }),
    workOrderUpdatedAt: t.expose('workOrderUpdatedAt', { type: 'DateTime', description: 'The work order\'s current change token.' }),
    items: t.field({ type: [RunItemRef], resolve: (r) => adopt(parentOf(r), r.items) }),
    picks: t.field({ type: [PickRef], resolve: (r) => r.picks, description: 'Consumed quantities per (material or assembly bill, location).' }),
    warnings: t.field({ type: [WarningRef], resolve: (r) => adopt(parentOf(r), r.warnings), description: 'Warnings of the start (stored, so a replay returns them too).' }),
  }),
});

const TransitionMoveRef = builder.objectRef<TransitionMove>('WorkOrderTransitionMove').implement({
  fields: (t) => ({
    to: t.expose('to', { type: WorkOrderStatusEnum }),
    direction: t.expose('direction', { type: TransitionDirectionEnum, nullable: true, description: `${valueList(TRANSITION_DIRECTIONS)} where the move is one; null for the other moves.` }),
  }),
});

export const QcReviewItemRef = builder.objectRef<QcReviewItemPart>('QcReviewItem').implement({
  description: 'What a QC review judged of one item of its build run.',
  fields: (t) => ({
    itemId: t.exposeID('item_id'),
    approvedQuantity: t.expose('approved_quantity', { type: 'Decimal', description: 'Units that passed.' }),
    failedQuantity: t.expose('failed_quantity', { type: 'Decimal', description: 'Units that failed.' }),
  }),
});

export const recordFields = {
  QcReview: builder.objectRef<QcReviewPart>('QcReview').implement({
    description: 'A QC review of a build run: per item, units approved and failed.',
    fields: (t) => ({
      reviewId: t.exposeID('review_id'), buildRunId: t.exposeString('build_run_id', { nullable: true }),
      decision: t.expose('decision', { type: QcDecisionEnum, description: 'rejected when any unit failed, else approved.' }),
      items: t.field({ type: [QcReviewItemRef], description: 'What the review judged of each item of its run.', resolve: (q) => adopt(parentOf(q), q.items) }),
      note: t.exposeString('note', { nullable: true }), reviewerName: t.exposeString('reviewer_name', { nullable: true }), createdAt: t.expose('created_at', { type: 'DateTime' }),
    }),
  }),
  ReworkItem: builder.objectRef<ReworkPart>('ReworkItem').implement({
    fields: (t) => ({
      reworkItemId: t.exposeID('rework_item_id'), description: t.exposeString('description'), quantity: t.expose('quantity', { type: 'Decimal' }),
      status: t.expose('status', { type: ReworkItemStatusEnum }), buildRunId: t.exposeString('build_run_id', { nullable: true }),
      createdAt: t.expose('created_at', { type: 'DateTime' }), resolvedAt: t.expose('resolved_at', { type: 'DateTime', nullable: true }),
    }),
  }),
  Document: builder.objectRef<DocumentPart>('WorkOrderDocument').implement({
    fields: (t) => ({ documentId: t.exposeID('document_id'), name: t.exposeString('name'), url: t.exposeString('url'), createdAt: t.expose('created_at', { type: 'DateTime' }) }),
  }),
  Message: builder.objectRef<MessagePart>('WorkOrderMessage').implement({
    fields: (t) => ({
      messageId: t.exposeID('message_id'), authorName: t.exposeString('author_name', { nullable: true }), body: t.exposeString('body'),
      createdAt: t.expose('created_at', { type: 'DateTime' }),
    }),
  }),
  Lifecycle: builder.objectRef<LifecyclePart>('LifecycleEvent').implement({
    fields: (t) => ({
      eventId: t.exposeID('event_id'), fromStatus: t.expose('from_status', { type: WorkOrderStatusEnum, nullable: true }), toStatus: t.expose('to_status', { type: WorkOrderStatusEnum }),
      note: t.exposeString('note', { nullable: true }), actorUserId: t.exposeString('actor_user_id', { nullable: true }),
      actorDisplayName: t.exposeString('actor_display_name', { nullable: true }), createdAt: t.expose('created_at', { type: 'DateTime' }),
    }),
  }),
};

export const WorkOrderRef = builder.objectRef<WholeWorkOrder>('WorkOrder').implement({
  description: 'A whole work order: header fields beside its parts. Warnings and available transitions are recomputed on every read.',
  interfaces: [WorkOrderHeaderRef],
  fields: (t) => ({
    items: t.field({ type: [WorkOrderItemRef], resolve: (w) => w.items }),
    materials: t.field({ type: [PlanMaterialRef], resolve: (w) => w.plan.materials }),
    contributions: t.field({ type: [PlanContributionRef], resolve: (w) => adopt(w, w.plan.contributions) }),
    consumptionPlan: t.field({ type: [PlanConsumptionRowRef], resolve: (w) => w.plan.consumptionPlan }),
    itemConsumption: t.field({ type: [ItemConsumptionRef], resolve: (w) => adopt(w, w.plan.itemConsumption), description: 'Per-item consumption plans of the remaining quantities.' }),
    cost: t.field({ type: PlanCostRef, resolve: (w) => w.plan.cost }),
    buildRuns: t.field({ type: [BuildRunRef], resolve: (w) => adopt(w, w.buildRuns) }),
    qcReviews: t.field({ type: [recordFields.QcReview], resolve: (w) => adopt(w, w.qcReviews) }),
    reworkItems: t.field({ type: [recordFields.ReworkItem], resolve: (w) => adopt(w, w.reworkItems) }),
    documents: t.field({ type: [recordFields.Document], resolve: (w) => w.documents }),
    conversation: t.field({ type: [recordFields.Message], resolve: (w) => w.conversation }),
    lifecycleEvents: t.field({ type: [recordFields.Lifecycle], resolve: (w) => w.lifecycleEvents }),
    availableTransitions: t.field({ type: [TransitionMoveRef], resolve: (w) => w.availableTransitions, description: 'Exactly the moves that would succeed now.' }),
    warnings: t.field({ type: [WarningRef], resolve: (w) => adopt(w, w.warnings) }),
  }),
});
