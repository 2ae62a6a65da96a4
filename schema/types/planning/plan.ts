import { FIELD_WORK_EXTENSION, WHOLE_SHOP_WORK } from '../../../src/kernel/graphql-limits.ts';
import { planShop } from '../../../src/modules/planning/planning.service.ts';
import type { WrittenBuy, WrittenDemand, WrittenMake, WrittenPlan, WrittenShortage } from '../../../src/modules/planning/written-plan.ts';
import { builder } from '../../builder.ts';
import { MadeItemTypeEnum, PlanDemandSourceEnum } from './enums.ts';

// The plan (docs/planning.md): what to buy and make, where, by when, and for whom. The same fields
// as `bomcore plan`'s JSON.

export const PlanDemandRef = builder.objectRef<WrittenDemand>('PlanDemand').implement({
  description: 'A demand a row answers (pegging): its source, the quantity it asks of the row\'s item and its need-by date.',
  fields: (t) => ({
    sourceType: t.expose('sourceType', { type: PlanDemandSourceEnum }),
    sourceId: t.exposeString('sourceId', { description: 'The order id, work order id, holding bill id, made item id (a BOM id or assembly id), or the what-if\'s BOM id.' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'What it asks of the item, summed over its lines (uncapped).' }),
    needBy: t.expose('needBy', { type: 'Date', description: 'Its earliest need-by date.' }),
  }),
});

const DEMANDS = 'The 20 largest demands (largest first, then source type, then source id); `otherDemandCount` counts the rest.';

export const BuySuggestionRef = builder.objectRef<WrittenBuy>('PlanBuySuggestion').implement({
  description: 'What to order of a raw material for a location.',
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    locationId: t.exposeString('locationId'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'The net requirement raised to the material\'s minimumOrderQuantity, then up to a multiple of its orderMultiple (without one: up to 6 places).' }),
    net: t.expose('net', { type: 'Decimal', description: 'The net requirement: what the demands need beyond the free stock.' }),
    needBy: t.expose('needBy', { type: 'Date', description: 'The need-by date of the first demand not fully covered.' }),
    orderBy: t.expose('orderBy', { type: 'Date', description: 'needBy − the material\'s leadTimeDays.' }),
    late: t.exposeBoolean('late', { description: 'orderBy is before the plan\'s date.' }),
    essential: t.exposeBoolean('essential', { description: 'False for a non-essential material.' }),
  }),
});

export const MakeSuggestionRef = builder.objectRef<WrittenMake>('PlanMakeSuggestion').implement({
  description: 'What to build of a BOM\'s finished good or an assembly bill at a location.',
  fields: (t) => ({
    itemType: t.expose('itemType', { type: MadeItemTypeEnum }),
    itemId: t.exposeString('itemId', { description: 'The BOM id or the assembly id.' }),
    variantId: t.exposeString('variantId', { nullable: true, description: 'A BOM\'s finished good; null for an assembly bill.' }),
    locationId: t.exposeString('locationId'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Whole units: the net requirement rounded up.' }),
    needBy: t.expose('needBy', { type: 'Date', description: 'The need-by date of the first demand not fully covered.' }),
    startBy: t.expose('startBy', { type: 'Date', description: 'needBy − the bill\'s leadTimeDays; its components are needed by then.' }),
    late: t.exposeBoolean('late', { description: 'startBy is before the plan\'s date.' }),
    demands: t.field({ type: [PlanDemandRef], description: DEMANDS, resolve: (m) => m.demands }),
    otherDemandCount: t.exposeInt('otherDemandCount'),
  }),
});

export const ShortageRef = builder.objectRef<WrittenShortage>('PlanShortage').implement({
  description: 'A raw material a location lacks: its demands beyond its free stock (only where net > 0).',
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    locationId: t.exposeString('locationId'),
    required: t.expose('required', { type: 'Decimal', description: 'Every demand on it there, summed.' }),
    onHand: t.expose('onHand', { type: 'Decimal', description: 'Its live level there (a negative level counts as 0).' }),
    allocated: t.expose('allocated', { type: 'Decimal', description: 'What the stock covers: min(required, onHand).' }),
    net: t.expose('net', { type: 'Decimal', description: 'required − allocated.' }),
    needBy: t.expose('needBy', { type: 'Date', description: 'The need-by date of the first demand not fully covered.' }),
    essential: t.exposeBoolean('essential', { description: 'False for a non-essential material.' }),
    demands: t.field({ type: [PlanDemandRef], description: DEMANDS, resolve: (s) => s.demands }),
    otherDemandCount: t.exposeInt('otherDemandCount'),
  }),
});

const UnlocatedRef = builder.objectRef<WrittenPlan['unlocated'][number]>('PlanUnlocatedDemand').implement({
  description: 'Open order quantity with no location: listed, not netted.',
  fields: (t) => ({
    itemId: t.exposeString('itemId'),
    orderId: t.exposeString('orderId'),
    quantity: t.expose('quantity', { type: 'Decimal' }),
  }),
});

export const PlanRef = builder.objectRef<WrittenPlan>('Plan').implement({
  description: 'What to buy and make, where, by when, and for whom: rows sorted by location (numerically), then item.',
  fields: (t) => ({
    shopId: t.exposeString('shopId'),
    asOf: t.expose('asOf', { type: 'Date', description: 'The plan\'s date ("today"): `late` compares with it.' }),
    buySuggestions: t.field({ type: [BuySuggestionRef], resolve: (p) => p.buySuggestions }),
    makeSuggestions: t.field({ type: [MakeSuggestionRef], resolve: (p) => p.makeSuggestions }),
    shortages: t.field({ type: [ShortageRef], resolve: (p) => p.shortages }),
    unlocated: t.field({ type: [UnlocatedRef], description: 'Only without a location filter.', resolve: (p) => p.unlocated }),
  }),
});

builder.queryField('planning', (t) =>
  t.field({
    type: PlanRef,
    description: 'The shop\'s plan (docs/planning.md), from one consistent snapshot. INVALID_INPUT for a date that is not YYYY-MM-DD.',
    authScopes: { read: true },
    // The whole shop in memory per plan: plans take turns at the work gate, not all at once.
    extensions: { [FIELD_WORK_EXTENSION]: WHOLE_SHOP_WORK },
    args: {
      asOf: t.arg({ type: 'Date', description: 'The plan\'s date; absent: today (UTC).' }),
      locationIds: t.arg.idList({ description: 'Keep the rows of these locations (the plan is still the whole shop\'s); absent: every location.' }),
    },
    resolve: (_root, args, ctx) => planShop(ctx, { asOf: args.asOf ?? null, locationIds: args.locationIds?.map(String) ?? null }),
  }),
);
