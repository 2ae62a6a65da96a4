import { adjustMaterialInventory, type InventoryBatchResult, type InventoryRowResult } from '../../../src/modules/materials/inventory-batch.service.ts';
import { materialInventory, type InventoryLevelView, type InventoryView } from '../../../src/modules/materials/inventory.service.ts';
import { builder } from '../../builder.ts';
import { payloadField, UserErrorCodeEnum } from '../common/payload.ts';
import { MaterialOriginEnum } from '../materials/enums.ts';

export const LevelRef = builder.objectRef<InventoryLevelView>('RawMaterialInventoryLevel').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName', { nullable: true, description: 'Platform-linked levels only (null for virtual levels).' }),
    available: t.expose('available', { type: 'Decimal' }),
  }),
});

const InventoryRef = builder.objectRef<InventoryView>('RawMaterialInventory').implement({
  description: 'Per-location stock of a material: live platform levels for platform-linked materials, the service\'s own levels for virtual ones.',
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    origin: t.expose('origin', { type: MaterialOriginEnum }),
    totalAvailable: t.expose('totalAvailable', { type: 'Decimal', description: 'Sum of the levels in scope (0 when the scope matches nothing).' }),
    cachedQuantity: t.expose('cachedQuantity', { type: 'Decimal', description: 'The material row\'s inventoryQuantity (not scoped).' }),
    levels: t.field({ type: [LevelRef], resolve: (v) => v.levels }),
  }),
});

builder.queryField('rawMaterialInventory', (t) =>
  t.field({
    type: InventoryRef,
    authScopes: { read: true },
    args: { variantId: t.arg.id({ required: true }), locationIds: t.arg.idList({ required: false, description: 'Empty or absent: every location.' }) },
    resolve: (_root, args, ctx) => materialInventory(ctx, String(args.variantId), args.locationIds?.map(String) ?? null),
  }),
);

const UpdateInput = builder.inputType('RawMaterialInventoryUpdateInput', {
  description: 'One level change: exactly one of delta (relative) or absolute (target level, >= 0).',
  fields: (t) => ({
    locationId: t.id({ required: true }),
    delta: t.field({ type: 'Decimal' }),
    absolute: t.field({ type: 'Decimal' }),
    variantId: t.id({ description: 'Optional; must equal the material\'s id.' }),
  }),
});

const RowErrorRef = builder.objectRef<NonNullable<InventoryRowResult['error']>>('RawMaterialInventoryRowError').implement({
  fields: (t) => ({ code: t.expose('code', { type: UserErrorCodeEnum }), message: t.exposeString('message') }),
});

export const RowRef = builder.objectRef<InventoryRowResult>('RawMaterialInventoryRowResult').implement({
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the row in `updates`.' }),
    ok: t.exposeBoolean('ok'),
    id: t.exposeString('id', { nullable: true, description: 'Adjustment-history id of the applied change.' }),
    locationId: t.exposeString('locationId'),
    skipped: t.exposeBoolean('skipped', { description: 'True when the row changes nothing (delta 0 or absolute equal to the level): nothing recorded.' }),
    previousAvailable: t.expose('previousAvailable', { type: 'Decimal', nullable: true, description: 'Level before this row.' }),
    available: t.expose('available', { type: 'Decimal', nullable: true, description: 'Level after this row.' }),
    requestedDelta: t.expose('requestedDelta', { type: 'Decimal', nullable: true, description: 'The delta asked for (absolute − previous level for an absolute row).' }),
    appliedDelta: t.expose('appliedDelta', { type: 'Decimal', nullable: true, description: 'The delta applied (differs when clamping at zero truncated it).' }),
    truncated: t.exposeBoolean('truncated', { description: 'True when clamping at zero cut the change short.' }),
    error: t.field({ type: RowErrorRef, nullable: true, resolve: (r) => r.error }),
  }),
});

const BatchRef = builder.objectRef<InventoryBatchResult>('RawMaterialInventoryBatch').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    results: t.field({ type: [RowRef], resolve: (b) => b.results }),
    okCount: t.exposeInt('okCount'),
    failedCount: t.exposeInt('failedCount'),
    skippedCount: t.exposeInt('skippedCount'),
  }),
});

builder.mutationField('adjustRawMaterialInventory', (t) =>
  payloadField(t, 'adjustRawMaterialInventory', {
    type: BatchRef,
    description: 'Applies level changes to a virtual material in one transaction; per-row results, every change recorded in the adjustment history.',
    args: { variantId: t.arg.id({ required: true }), updates: t.arg({ type: [UpdateInput], required: true }) },
    resolve: (_root, args, ctx) => adjustMaterialInventory(ctx, String(args.variantId), args.updates.map((u) => ({
      locationId: String(u.locationId), delta: u.delta ?? null, absolute: u.absolute ?? null, variantId: u.variantId === undefined || u.variantId === null ? null : String(u.variantId),
    }))),
  }),
);
