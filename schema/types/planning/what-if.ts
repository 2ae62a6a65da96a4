import { FIELD_WORK_EXTENSION, WHOLE_SHOP_WORK } from '../../../src/kernel/graphql-limits.ts';
import { planningWhatIf, type WhatIfAnswer } from '../../../src/modules/planning/what-if.ts';
import { builder } from '../../builder.ts';
import { MadeItemTypeEnum, PlanDemandSourceEnum, PlannedItemTypeEnum } from './enums.ts';

// What-if (docs/planning.md): N units of a BOM at a location by a date, planned beside the shop's
// own plan from the same snapshot; the answer is the difference.

const ExtraMakeRef = builder.objectRef<WhatIfAnswer['extraMakes'][number]>('PlanWhatIfMake').implement({
  description: 'A make suggestion the extra demand adds or raises, by `quantity` more units.',
  fields: (t) => ({
    itemType: t.expose('itemType', { type: MadeItemTypeEnum }),
    itemId: t.exposeString('itemId'),
    variantId: t.exposeString('variantId', { nullable: true }),
    locationId: t.exposeString('locationId'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Units more than the plan without it.' }),
    needBy: t.expose('needBy', { type: 'Date' }),
    startBy: t.expose('startBy', { type: 'Date' }),
    late: t.exposeBoolean('late'),
  }),
});

const ExtraBuyRef = builder.objectRef<WhatIfAnswer['extraBuys'][number]>('PlanWhatIfBuy').implement({
  description: 'A buy suggestion the extra demand adds or raises.',
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    locationId: t.exposeString('locationId'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'The order quantity more than without it (minimums and multiples applied to the total).' }),
    net: t.expose('net', { type: 'Decimal', description: 'The net requirement more than without it.' }),
    needBy: t.expose('needBy', { type: 'Date' }),
    orderBy: t.expose('orderBy', { type: 'Date' }),
    late: t.exposeBoolean('late'),
    essential: t.exposeBoolean('essential'),
  }),
});

const LeftShortRef = builder.objectRef<WhatIfAnswer['leftShort'][number]>('PlanWhatIfShortDemand').implement({
  description: 'An existing demand the extra demand would leave short of its item (by `short` more than without it).',
  fields: (t) => ({
    itemType: t.expose('itemType', { type: PlannedItemTypeEnum }),
    itemId: t.exposeString('itemId', { description: 'The material\'s variantId, the BOM id or the assembly id.' }),
    locationId: t.exposeString('locationId'),
    sourceType: t.expose('sourceType', { type: PlanDemandSourceEnum }),
    sourceId: t.exposeString('sourceId'),
    needBy: t.expose('needBy', { type: 'Date' }),
    short: t.expose('short', { type: 'Decimal' }),
  }),
});

const WhatIfRef = builder.objectRef<WhatIfAnswer>('PlanWhatIf').implement({
  description: 'What an extra demand would take: the make and buy it adds, and the existing demands it would leave short.',
  fields: (t) => ({
    asOf: t.expose('asOf', { type: 'Date' }),
    extraMakes: t.field({ type: [ExtraMakeRef], resolve: (w) => w.extraMakes }),
    extraBuys: t.field({ type: [ExtraBuyRef], resolve: (w) => w.extraBuys }),
    leftShort: t.field({ type: [LeftShortRef], resolve: (w) => w.leftShort }),
  }),
});

builder.queryField('planningWhatIf', (t) =>
  t.field({
    type: WhatIfRef,
    description: 'Plans the shop with and without `quantity` units of a BOM\'s finished good at a location by a date (docs/planning.md) and '
      + 'answers the difference. NOT_FOUND for an unknown BOM; INVALID_INPUT for a quantity that is not above 0.',
    authScopes: { read: true },
    // Two plans of the whole shop: it takes its turn at the work gate like the plan.
    extensions: { [FIELD_WORK_EXTENSION]: 2 * WHOLE_SHOP_WORK },
    args: {
      bomId: t.arg.string({ required: true }),
      quantity: t.arg({ type: 'Decimal', required: true }),
      locationId: t.arg.id({ required: true }),
      needBy: t.arg({ type: 'Date', required: true }),
      asOf: t.arg({ type: 'Date', description: 'The plan\'s date; absent: today (UTC).' }),
    },
    resolve: (_root, args, ctx) => planningWhatIf(ctx, {
      bomId: args.bomId, quantity: args.quantity, locationId: String(args.locationId), needBy: args.needBy, asOf: args.asOf ?? null,
    }),
  }),
);
