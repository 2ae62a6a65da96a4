import { shelfAllocationOf, type ShelfAllocationView, type ShelfHolder, type ShelfLevel } from '../../../src/modules/stock/shelf-allocation.service.ts';
import {
  workOrderAllocationOf, type AllocationFigures, type AllocationLevel, type WorkOrderAllocationView, type WorkOrderHolder,
} from '../../../src/modules/work-orders/allocation.service.ts';
import { materialExistsSql } from '../../../src/modules/materials/for-stock.ts';
import { builder } from '../../builder.ts';
import { HOLDER_CAP } from '../../../src/modules/stock/holders.ts';
import { LOCATION_NAME, OTHER_HOLDERS_COUNT, OTHER_HOLDERS_QUANTITY } from './level-fields.ts';
import { BillOwnerTypeEnum } from '../boms/enums.ts';
import { WorkOrderAllocationHolderTypeEnum, WorkOrderStatusEnum } from '../work-orders/enums.ts';

const SCOPE = { required: false, description: 'Bare numeric location ids; empty or absent: every location.' } as const;

export const ShelfHolderRef = builder.objectRef<ShelfHolder>('StockShelfAllocationHolder').implement({
  description: 'A parent (BOM finished good or assembly bill) whose available shelf units embed the material.',
  fields: (t) => ({
    holderType: t.expose('holderType', { type: BillOwnerTypeEnum }),
    holderId: t.exposeString('holderId'),
    name: t.exposeString('name'),
    shelfUnits: t.expose('shelfUnits', { type: 'Decimal', description: 'Available pre-assembled units: on the shelf minus committed, never below 0.' }),
    quantityPerUnit: t.expose('quantityPerUnit', { type: 'Decimal', description: 'Material per unit of the parent at this location, every depth, waste included.' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'shelfUnits × quantityPerUnit.' }),
  }),
});
export const ShelfLevelRef = builder.objectRef<ShelfLevel>('StockShelfAllocationLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', LOCATION_NAME),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Units of the material embedded in available shelf stock at this location.' }),
    holders: t.field({ type: [ShelfHolderRef], resolve: (l) => l.holders }),
    otherHoldersCount: t.exposeInt('otherHoldersCount', OTHER_HOLDERS_COUNT),
    otherHoldersQuantity: t.expose('otherHoldersQuantity', OTHER_HOLDERS_QUANTITY),
  }),
});
const ShelfTotalsRef = builder.objectRef<ShelfAllocationView['totals']>('StockShelfAllocationTotals').implement({
  fields: (t) => ({ quantity: t.expose('quantity', { type: 'Decimal' }) }),
});
const ShelfRef = builder.objectRef<ShelfAllocationView>('StockShelfAllocation').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    levels: t.field({ type: [ShelfLevelRef], resolve: (v) => v.levels }),
    totals: t.field({ type: ShelfTotalsRef, resolve: (v) => v.totals }),
  }),
});

builder.queryField('rawMaterialShelfAllocation', (t) =>
  t.field({
    type: ShelfRef,
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }), locationIds: t.arg.idList(SCOPE) },
    resolve: (_root, args, ctx) => shelfAllocationOf(ctx, String(args.variantId), args.locationIds?.map(String) ?? null, materialExistsSql),
  }),
);

export const WoHolderRef = builder.objectRef<WorkOrderHolder>('WorkOrderAllocationHolder').implement({
  fields: (t) => ({
    holderType: t.expose('holderType', { type: WorkOrderAllocationHolderTypeEnum }),
    holderId: t.exposeString('holderId', { description: 'The work order id.' }),
    name: t.exposeString('name'),
    status: t.expose('status', { type: WorkOrderStatusEnum, description: 'Work-order status (open statuses only).' }),
    picked: t.expose('picked', { type: 'Decimal', description: 'Σ picks of this work order\'s build runs that were not reversed.' }),
    remaining: t.expose('remaining', { type: 'Decimal', description: 'What this work order\'s units not yet started still need (shelves first) plus its manual lines × (Q − started) / Q.' }),
    allocated: t.expose('allocated', { type: 'Decimal', description: '= picked + remaining = quantity.' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: '= allocated.' }),
  }),
});
// Shared by a level and totals.unlocated; typed loosely (Pothos field builders are invariant in their parent).
const figureFields = (t: any): Record<string, any> => ({
  picked: t.expose('picked', { type: 'Decimal', description: 'Σ picks of build runs that were not reversed.' }),
  remaining: t.expose('remaining', { type: 'Decimal', description: 'Σ per work order of what its units not yet started still need plus its manual lines not yet consumed.' }),
  allocated: t.expose('allocated', { type: 'Decimal', description: 'picked + remaining.' }),
  holders: t.field({ type: [WoHolderRef], resolve: (l: AllocationFigures) => l.holders, description: `The ${HOLDER_CAP} largest work orders by allocated.` }),
  otherHoldersCount: t.exposeInt('otherHoldersCount', OTHER_HOLDERS_COUNT),
  otherHoldersQuantity: t.expose('otherHoldersQuantity', OTHER_HOLDERS_QUANTITY),
});
export const WoLevelRef = builder.objectRef<AllocationLevel>('WorkOrderAllocationLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', LOCATION_NAME),
    ...figureFields(t),
  }),
});
const WoUnlocatedRef = builder.objectRef<AllocationFigures>('WorkOrderAllocationUnlocated').implement({
  description: 'Demand of work-order lines with no location (zero when locationIds restricts the scope).',
  fields: (t) => ({ ...figureFields(t) }),
});
const WoTotalsRef = builder.objectRef<WorkOrderAllocationView['totals']>('WorkOrderAllocationTotals').implement({
  fields: (t) => ({
    picked: t.expose('picked', { type: 'Decimal' }),
    remaining: t.expose('remaining', { type: 'Decimal' }),
    allocated: t.expose('allocated', { type: 'Decimal' }),
    unlocated: t.field({ type: WoUnlocatedRef, resolve: (v) => v.unlocated }),
  }),
});
const WoRef = builder.objectRef<WorkOrderAllocationView>('WorkOrderAllocation').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    levels: t.field({ type: [WoLevelRef], resolve: (v) => v.levels }),
    totals: t.field({ type: WoTotalsRef, resolve: (v) => v.totals }),
  }),
});

builder.queryField('rawMaterialWorkOrderAllocation', (t) =>
  t.field({
    type: WoRef,
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }), locationIds: t.arg.idList(SCOPE) },
    resolve: (_root, args, ctx) => workOrderAllocationOf(ctx, String(args.variantId), args.locationIds?.map(String) ?? null),
  }),
);
