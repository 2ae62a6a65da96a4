import { shelfAllocationOf, type ShelfAllocationView, type ShelfHolder, type ShelfLevel } from '../../../src/modules/stock/shelf-allocation.service.ts';
import {
  workOrderAllocationOf, type AllocationFigures, type AllocationLevel, type WorkOrderAllocationView, type WorkOrderHolder,
} from '../../../src/modules/work-orders/allocation.service.ts';
import { materialExistsSql } from '../../../src/modules/materials/for-stock.ts';
import { builder } from '../../builder.ts';
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
    locationName: t.exposeString('locationName', { nullable: true }),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    holders: t.field({ type: [ShelfHolderRef], resolve: (l) => l.holders }),
    otherHoldersCount: t.exposeInt('otherHoldersCount'),
    otherHoldersQuantity: t.expose('otherHoldersQuantity', { type: 'Decimal' }),
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
    status: t.expose('status', { type: WorkOrderStatusEnum }),
    picked: t.expose('picked', { type: 'Decimal' }),
    remaining: t.expose('remaining', { type: 'Decimal' }),
    allocated: t.expose('allocated', { type: 'Decimal' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: '= allocated.' }),
  }),
});
// Shared by a level and totals.unlocated; typed loosely (Pothos field builders are invariant in their parent).
const figureFields = (t: any): Record<string, any> => ({
  picked: t.expose('picked', { type: 'Decimal' }),
  remaining: t.expose('remaining', { type: 'Decimal' }),
  allocated: t.expose('allocated', { type: 'Decimal' }),
  holders: t.field({ type: [WoHolderRef], resolve: (l: AllocationFigures) => l.holders }),
  otherHoldersCount: t.exposeInt('otherHoldersCount'),
  otherHoldersQuantity: t.expose('otherHoldersQuantity', { type: 'Decimal' }),
});
export const WoLevelRef = builder.objectRef<AllocationLevel>('WorkOrderAllocationLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', { nullable: true }),
    ...figureFields(t),
  }),
});
const WoUnlocatedRef = builder.objectRef<AllocationFigures>('WorkOrderAllocationUnlocated').implement({
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
