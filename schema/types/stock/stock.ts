import { commitmentsOf, type CommitmentHolder, type CommitmentLevel, type CommitmentsView } from '../../../src/modules/stock/commitments.service.ts';
import { preassembledOf, residualsOf, type PreassembledLevel, type PreassembledView, type ResidualLevel, type ResidualView } from '../../../src/modules/stock/stock-reads.service.ts';
import { materialExistsSql } from '../../../src/modules/materials/for-stock.ts';
import { builder } from '../../builder.ts';
import { HOLDER_CAP } from '../../../src/modules/stock/holders.ts';
import { LOCATION_NAME, OTHER_HOLDERS_COUNT, OTHER_HOLDERS_QUANTITY } from './level-fields.ts';
import { StockCommitmentHolderTypeEnum, StockItemTypeEnum } from '../stock/enums.ts';

const SCOPE = { required: false, description: 'Bare numeric location ids; empty or absent: every location.' } as const;

export const ResidualLevelRef = builder.objectRef<ResidualLevel>('StockResidualLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', LOCATION_NAME),
    buildRun: t.expose('buildRun', { type: 'Decimal', description: 'Remainder carried by work orders and order execution.' }),
    safetyStock: t.expose('safetyStock', { type: 'Decimal', description: 'Remainder carried by safety-stock reservations.' }),
  }),
});
const ResidualTotalsRef = builder.objectRef<ResidualView['totals']>('StockResidualTotals').implement({
  fields: (t) => ({ buildRun: t.expose('buildRun', { type: 'Decimal' }), safetyStock: t.expose('safetyStock', { type: 'Decimal' }) }),
});
const ResidualRef = builder.objectRef<ResidualView>('StockResidual').implement({
  description: 'Fractional remainders per location (bookkeeping, never availability).',
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    levels: t.field({ type: [ResidualLevelRef], resolve: (v) => v.levels }),
    totals: t.field({ type: ResidualTotalsRef, resolve: (v) => v.totals }),
  }),
});

builder.queryField('rawMaterialResidual', (t) =>
  t.field({
    type: ResidualRef,
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }), locationIds: t.arg.idList(SCOPE) },
    resolve: (_root, args, ctx) => residualsOf(ctx, String(args.variantId), args.locationIds?.map(String) ?? null, materialExistsSql),
  }),
);

export const PreassembledLevelRef = builder.objectRef<PreassembledLevel>('StockPreassembledLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', LOCATION_NAME),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Units already built and on the shelf.' }),
  }),
});
const PreassembledTotalsRef = builder.objectRef<PreassembledView['totals']>('StockPreassembledTotals').implement({
  fields: (t) => ({ quantity: t.expose('quantity', { type: 'Decimal' }) }),
});
export const PreassembledRef = builder.objectRef<PreassembledView>('StockPreassembled').implement({
  description: 'Pre-assembled shelf stock per location: finished goods by variant id, assembly bills by assembly id.',
  fields: (t) => ({
    itemId: t.exposeString('itemId', { description: 'The variant id (finished good) or assembly id the shelf stock is kept under.' }),
    itemType: t.expose('itemType', { type: StockItemTypeEnum }),
    levels: t.field({ type: [PreassembledLevelRef], resolve: (v) => v.levels }),
    totals: t.field({ type: PreassembledTotalsRef, resolve: (v) => v.totals }),
  }),
});

builder.queryField('rawMaterialPreassembled', (t) =>
  t.field({
    type: PreassembledRef,
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }), locationIds: t.arg.idList(SCOPE) },
    resolve: (_root, args, ctx) => preassembledOf(ctx, 'variant', String(args.variantId), args.locationIds?.map(String) ?? null, materialExistsSql),
  }),
);

builder.queryField('assemblyBillPreassembled', (t) =>
  t.field({
    type: PreassembledRef,
    authScopes: { read: true },
    args: { assemblyId: t.arg.id({ required: true }), locationIds: t.arg.idList(SCOPE) },
    resolve: (_root, args, ctx) => preassembledOf(ctx, 'assemblyBill', String(args.assemblyId), args.locationIds?.map(String) ?? null, materialExistsSql),
  }),
);

export const CommitmentHolderRef = builder.objectRef<CommitmentHolder>('StockCommitmentHolder').implement({
  fields: (t) => ({
    holderType: t.expose('holderType', { type: StockCommitmentHolderTypeEnum }),
    holderId: t.exposeString('holderId', { description: 'Order id, BOM id or assembly id.' }),
    name: t.exposeString('name'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'What this holder contributes to the level (the list is ranked by it).' }),
  }),
});
export const CommitmentLevelRef = builder.objectRef<CommitmentLevel>('StockCommitmentLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', LOCATION_NAME),
    orders: t.expose('orders', { type: 'Decimal', description: 'Open quantity of order reservations (quantity − fulfilled).' }),
    safetyStock: t.expose('safetyStock', { type: 'Decimal', description: 'Held by active safety-stock reservations.' }),
    holders: t.field({ type: [CommitmentHolderRef], resolve: (l) => l.holders, description: `The ${HOLDER_CAP} largest holders.` }),
    otherHoldersCount: t.exposeInt('otherHoldersCount', OTHER_HOLDERS_COUNT),
    otherHoldersQuantity: t.expose('otherHoldersQuantity', OTHER_HOLDERS_QUANTITY),
  }),
});
const CommitmentTotalsRef = builder.objectRef<CommitmentsView['totals']>('StockCommitmentTotals').implement({
  fields: (t) => ({
    orders: t.expose('orders', { type: 'Decimal', description: 'Σ orders over the levels.' }),
    safetyStock: t.expose('safetyStock', { type: 'Decimal', description: 'Σ safetyStock over the levels.' }),
    unlocated: t.expose('unlocated', { type: 'Decimal', description: 'Open quantity of order reservations whose line has no fulfilment location yet (in no level; 0 when locationIds restricts the scope).' }),
  }),
});
const CommitmentsRef = builder.objectRef<CommitmentsView>('StockCommitments').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    levels: t.field({ type: [CommitmentLevelRef], resolve: (v) => v.levels }),
    totals: t.field({ type: CommitmentTotalsRef, resolve: (v) => v.totals }),
  }),
});

builder.queryField('rawMaterialCommitments', (t) =>
  t.field({
    type: CommitmentsRef,
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }), locationIds: t.arg.idList(SCOPE) },
    resolve: (_root, args, ctx) => commitmentsOf(ctx, String(args.variantId), args.locationIds?.map(String) ?? null, materialExistsSql),
  }),
);
