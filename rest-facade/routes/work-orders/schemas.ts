import { Type, type TSchema } from '@sinclair/typebox';
import { EnumOf } from '../../graphql-enums.ts';
import { named, NullableNumber, NullableString, Num, strictObject as obj } from '../../schema-helpers.ts';
import { STRING_LIMITS } from '../../../src/limits.ts';

export { obj };

export const WorkOrderIdParams = obj({ id: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'The work order id (`wo_<uuid>`).' }) });

const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const NullableDateTime = (description?: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time', ...(description ? { description } : {}) });
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** The flat header of a work order (list rows and the top of the whole read). */
export const headerProperties = {
  workOrderId: Type.String({ description: '`wo_<uuid>`' }),
  shortId: Type.String({ description: 'Short human id, unique and stable per shop (`WO-0042`); searchable with `q`.' }),
  name: Type.String(),
  description: NullableString(),
  notes: NullableString(),
  status: EnumOf('WorkOrderStatus'),
  priority: EnumOf('WorkOrderPriority'),
  dueDate: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date', description: 'Calendar date YYYY-MM-DD.' }),
  assigneeId: NullableString(),
  assigneeName: NullableString('The assignee\'s display name.'),
  productionLocationId: NullableString(),
  productionLocationName: NullableString(),
  defaultConsumptionLocationId: NullableString(),
  sourceType: EnumOf('WorkOrderSourceType'),
  sourceFlowId: NullableString(),
  sourceTodoId: NullableString(),
  sourceOrderIds: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  plannedLaborCost: NullableNumber(),
  actualLaborCost: NullableNumber(),
  createdAt: DateTime(),
  updatedAt: DateTime('The optimistic-lock token: send it back as `expectedUpdatedAt` on every write.'),
};

export const Warning = named('WorkOrderWarning', obj({
  code: EnumOf('WorkOrderWarningCode', { description: 'What the warning is about; on runs NEGATIVE_INVENTORY or PREASSEMBLED_SHORT.' }),
  message: Type.String(),
  remedy: Type.String(),
  variantId: Opt(Type.String()),
  itemId: Opt(Type.String()),
  locationId: Opt(Type.String()),
  quantity: Opt(Type.Number()),
  count: Opt(Type.Integer()),
}, 'A condition worth acting on, with its remedy.'));

export const PlanMaterial = named('WorkOrderMaterial', obj({
  variantId: Type.String(), name: NullableString(), unit: NullableString(),
  locationId: NullableString('Consumption location; null = unlocated.'), locationName: NullableString(),
  required: Num('Items\' recipes at the consumption location (waste and rules included) plus manual lines.'),
  picked: Num('Σ picks of runs not reversed.'), remaining: Num('max(required − picked, 0).'),
  unitCost: NullableNumber(), isNonEssential: Type.Boolean(),
}));

export const PlanContribution = named('WorkOrderContribution', obj({
  variantId: Type.String(), locationId: NullableString(),
  source: EnumOf('WorkOrderContributionSource'),
  itemId: NullableString('The work-order item whose recipe gave it (recipe rows).'),
  ownerType: EnumOf('BillOwnerType', { nullable: true }), ownerId: NullableString(), quantity: Num(), note: NullableString('Manual lines\' note.'),
}));

export const ConsumptionRow = named('ConsumptionPlanRow', obj({
  stock: EnumOf('StockKind'),
  itemId: Type.String({ description: 'Material variantId, or the assemblyId of a pre-assembled shelf.' }),
  name: NullableString(), locationId: Type.String(), locationName: NullableString(),
  quantity: Num(), available: Num(), short: Num('max(quantity − max(available, 0), 0).'),
}));

export const Cost = named('WorkOrderCost', obj({
  materialCost: Num('Σ required × unitCost.'), pickedMaterialCost: Num('Σ picked × unitCost.'),
  plannedLaborCost: NullableNumber(), actualLaborCost: NullableNumber(),
  plannedTotalCost: Num('materialCost + plannedLaborCost.'), actualTotalCost: Num('pickedMaterialCost + actualLaborCost.'),
}));

export const BuildRun = named('BuildRun', obj({
  buildRunId: Type.String({ description: 'The client\'s idempotency key.' }),
  shortId: Type.String({ description: '`<work order shortId>-R<n>`' }),
  status: EnumOf('BuildRunStatus'),
  runType: EnumOf('BuildRunType'),
  note: NullableString(), actorUserId: NullableString(), actorDisplayName: NullableString(),
  reworkItemIds: Type.Array(Type.String()),
  startedAt: DateTime(), completedAt: NullableDateTime(), reversedAt: NullableDateTime(),
  updatedAt: DateTime('The run\'s own change time.'),
  workOrderUpdatedAt: DateTime('The work order\'s current change token (its new one after a start).'),
  items: Type.Array(obj({ itemId: Type.String(), quantity: Num() })),
  picks: Type.Array(obj({
    stock: EnumOf('StockKind'), itemId: Type.String(), locationId: Type.String(),
    quantity: Num('Consumed (what the residual carry received).'),
    deducted: NullableNumber('Whole units that left the level; null on runs loaded from a dataset.'),
  }), { description: 'Consumed quantities per (material or assembly bill, location).' }),
  warnings: Type.Array(Warning, { description: 'Warnings of the start (NEGATIVE_INVENTORY naming material, location and shortfall; PREASSEMBLED_SHORT).' }),
}));

export const ExpectedUpdatedAt = Type.String({ format: 'date-time', maxLength: STRING_LIMITS.date, description: 'The `updatedAt` last read (required): a stale value is 409 and nothing is written.' });
