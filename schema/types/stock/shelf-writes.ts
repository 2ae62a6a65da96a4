import { materialExistsSql } from '../../../src/modules/materials/for-stock.ts';
import { adjustPreassembledStock, type ShelfAdjustmentView } from '../../../src/modules/stock/shelf-adjustment.service.ts';
import { builder } from '../../builder.ts';
import { payloadField } from '../common/payload.ts';
import { PreassembledAdjustmentReasonEnum } from './enums.ts';

// Counting pre-assembled shelves: the hand-made change of a shelf, through the stock ledger.

const AdjustInput = builder.inputType('AdjustPreassembledStockInput', {
  description: 'One shelf change: exactly one of `delta` (a change) or `absolute` (the counted level, 0 or more).',
  fields: (t) => ({
    itemId: t.id({ required: true, description: 'What the shelf holds: a finished good\'s variant id, an assembly bill\'s id or a material\'s id.' }),
    locationId: t.id({ required: true, description: 'Bare numeric location id of the shelf.' }),
    delta: t.field({ type: 'Decimal', description: 'Units to add (positive) or take off (negative).' }),
    absolute: t.field({ type: 'Decimal', description: 'The level counted on the shelf; 0 or more.' }),
    reason: t.field({ type: PreassembledAdjustmentReasonEnum, required: true, description: 'Why the shelf changes; kept in the adjustment history.' }),
    note: t.string({ description: 'What happened, in your words; kept in the adjustment history.' }),
  }),
});

const ShelfAdjustmentRef = builder.objectRef<ShelfAdjustmentView>('PreassembledStockAdjustment').implement({
  description: 'A change of a pre-assembled shelf, as the adjustment history recorded it.',
  fields: (t) => ({
    adjustmentId: t.exposeID('adjustmentId', { nullable: true, description: 'The adjustment-history entry; null when the change moved nothing (nothing recorded).' }),
    itemId: t.exposeString('itemId', { description: 'What the shelf holds.' }),
    locationId: t.exposeString('locationId', { description: 'Bare numeric location id of the shelf.' }),
    before: t.expose('before', { type: 'Decimal', description: 'The shelf before the change.' }),
    after: t.expose('after', { type: 'Decimal', description: 'The shelf after the change.' }),
    delta: t.expose('delta', { type: 'Decimal', description: 'What the shelf moved by (after − before).' }),
    reason: t.expose('reason', { type: PreassembledAdjustmentReasonEnum }),
    note: t.exposeString('note', { nullable: true }),
  }),
});

builder.mutationField('adjustPreassembledStock', (t) =>
  payloadField(t, 'adjustPreassembledStock', {
    type: ShelfAdjustmentRef,
    description: 'Counts or corrects one pre-assembled shelf: by `delta`, or to the counted `absolute`. The change is recorded in the '
      + 'adjustment history with its reason and note and sends `inventory.level_changed`. Both or neither of `delta`/`absolute` is '
      + 'INVALID_INPUT; an unknown item or location NOT_FOUND; a change that would take the shelf below zero CONFLICT (nothing changes).',
    args: { input: t.arg({ type: AdjustInput, required: true }) },
    resolve: (_root, { input }, ctx) => adjustPreassembledStock(ctx, {
      itemId: String(input.itemId), locationId: String(input.locationId), delta: input.delta ?? null, absolute: input.absolute ?? null,
      reason: input.reason, note: input.note ?? null,
    }, materialExistsSql),
  }),
);
