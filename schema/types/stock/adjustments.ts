import { ADJUSTMENT_PAGE_MAX, adjustmentConnections, adjustmentWindow, type AdjustmentView } from '../../../src/modules/stock/adjustment-history.ts';
import { builder } from '../../builder.ts';
import { InventoryAdjustmentSourceEnum } from '../stock/enums.ts';
import { RawMaterialRef } from '../materials/raw-material.ts';
import { connectionArgs, connectionType } from '../common/connection.ts';

export const AdjustmentRef = builder.objectRef<AdjustmentView>('InventoryAdjustment').implement({
  description: 'One applied change of a material\'s level at a location: by the inventory update, by a build run (start, completion, reversal), or by the fulfilment of a platform order.',
  fields: (t) => ({
    adjustmentId: t.exposeID('adjustmentId', { description: 'Unique id of the change.' }),
    variantId: t.exposeString('variantId', { description: 'The material.' }),
    locationId: t.exposeString('locationId', { description: 'Bare numeric location id of the level.' }),
    before: t.expose('before', { type: 'Decimal', description: 'The level before the change.' }),
    after: t.expose('after', { type: 'Decimal', description: 'The level after the change.' }),
    delta: t.expose('delta', { type: 'Decimal', description: 'What the level moved by (after − before).' }),
    requestedDelta: t.expose('requestedDelta', { type: 'Decimal', description: 'What was asked for; differs from delta when the level was clamped at zero.' }),
    source: t.expose('source', { type: InventoryAdjustmentSourceEnum }),
    workOrderId: t.exposeString('workOrderId', { nullable: true, description: 'The work order of a build-run change; null for inventory updates.' }),
    buildRunId: t.exposeString('buildRunId', { nullable: true, description: 'The build run of a build-run change; null for inventory updates.' }),
    orderId: t.exposeString('orderId', { nullable: true, description: 'The platform order whose fulfilment consumed the stock; null for other changes.' }),
    fulfilmentId: t.exposeString('fulfilmentId', { nullable: true, description: 'The platform fulfilment that consumed the stock; null for other changes.' }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'Id of the API request that made the change (the X-Request-Id of its response).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the change was applied.' }),
  }),
});

const AdjustmentConnectionRef = connectionType('InventoryAdjustments', AdjustmentRef, 'inventory adjustment');

builder.objectField(RawMaterialRef, 'adjustments', (t) =>
  t.loadable({
    type: AdjustmentConnectionRef,
    description: 'The history of the material\'s levels, newest first. Batched: a list of materials reads every history in one statement.',
    // byPath: every material of one selection shares its page arguments, so they batch together.
    byPath: true,
    args: connectionArgs(t.arg, ADJUSTMENT_PAGE_MAX),
    load: (variantIds: string[], ctx, args) => adjustmentConnections(ctx, variantIds, args),
    resolve: (material, args) => {
      adjustmentWindow(args); // bad page arguments fail before any read
      return material.variantId;
    },
  }),
);
