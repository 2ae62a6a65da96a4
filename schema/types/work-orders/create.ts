import { createWorkOrder } from '../../../src/modules/work-orders/create.service.ts';
import { builder } from '../../builder.ts';
import { WorkOrderPriorityEnum, WorkOrderSourceTypeEnum } from './enums.ts';
import { payloadField } from '../common/payload.ts';
import { CreatedWorkOrderRef } from './write-results.ts';

const NewItemInput = builder.inputType('NewWorkOrderItemInput', {
  description: 'Something the work order builds: a BOM\'s finished good or an assembly bill. Name exactly one of bomId and assemblyId.',
  fields: (t) => ({
    bomId: t.string({ description: 'A BOM of the shop: the item builds its finished good.' }),
    assemblyId: t.string({ description: 'An assembly bill of the shop: the item builds pre-assembled units of it.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'How many to build; greater than 0, at most 6 fractional digits.' }),
  }),
});

const NewManualMaterialInput = builder.inputType('NewWorkOrderManualMaterialInput', {
  description: 'A material the work order needs beyond its items\' recipes.',
  fields: (t) => ({
    variantId: t.string({ required: true, description: 'A material of the shop (platform variant id or `VMAT-VAR-…`).' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Quantity needed; greater than 0.' }),
    locationId: t.string({ description: 'Where it is consumed; default: the work order\'s consumption, else production, location.' }),
    note: t.string({ description: 'Why it is needed (up to 10,000 characters).' }),
  }),
});

const CreateInput = builder.inputType('CreateWorkOrderInput', {
  description: 'A new work order. It starts in draft with a new id and the shop\'s next short id.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Not empty.' }),
    sourceType: t.field({
      type: WorkOrderSourceTypeEnum, required: true,
      description: 'What it was made from: bom (items are BOMs, at least one), sa (items are assembly bills, at least one), ' +
        'orders (names sourceOrderIds; without items, it builds the BOMs the orders contain), flow (names sourceFlowId), empty (nothing yet).',
    }),
    description: t.string({ description: 'Up to 10,000 characters.' }),
    notes: t.string({ description: 'Up to 10,000 characters.' }),
    priority: t.field({ type: WorkOrderPriorityEnum, description: 'Default normal.' }),
    dueDate: t.string({ description: 'Calendar date YYYY-MM-DD.' }),
    assigneeId: t.string({ description: 'An active assignee (a retired one is refused).' }),
    productionLocationId: t.string({ description: 'Where it is built (bare numeric location id); needed to start it.' }),
    defaultConsumptionLocationId: t.string({ description: 'Where materials are taken from, when not the production location.' }),
    sourceFlowId: t.string({ description: 'The flow it came from.' }),
    sourceTodoId: t.string({ description: 'The task it came from.' }),
    sourceOrderIds: t.stringList({ description: 'Up to 100 platform order ids it fulfils.' }),
    tags: t.stringList({ description: 'Up to 50 tags of 1–100 characters.' }),
    plannedLaborCost: t.field({ type: 'Decimal', description: '≥ 0.' }),
    actualLaborCost: t.field({ type: 'Decimal', description: '≥ 0.' }),
    items: t.field({ type: [NewItemInput], description: 'What it builds, in order (up to 500); item ids are woi_1, woi_2, …' }),
    manualMaterials: t.field({ type: [NewManualMaterialInput], description: 'Extra materials beyond the recipes (up to 500 lines).' }),
    actorUserId: t.string({ description: 'Who creates it, recorded on the first lifecycle event.' }),
    actorDisplayName: t.string({ description: 'Their display name, recorded on the first lifecycle event.' }),
  }),
});

builder.mutationField('createWorkOrder', (t) =>
  payloadField(t, 'createWorkOrder', {
    type: CreatedWorkOrderRef,
    description: 'Creates a work order in draft with its items and manual materials. Every reference is checked first: ' +
      'an unknown or archived BOM, assembly bill or material, an unknown location, order, flow or task, or an unknown or retired assignee is INVALID_INPUT naming the field.',
    args: { input: t.arg({ type: CreateInput, required: true, description: 'The work order to create.' }) },
    resolve: (_root, a, ctx) => createWorkOrder(ctx, a.input),
  }),
);
