import {
  bomLocationRules, type BillRuleView, type LineChangeView, type LocationRulesLocationView, type LocationRulesView, type MaterialNeedChangeView,
} from '../../../src/modules/boms/location-rules.service.ts';
import { builder } from '../../builder.ts';
import { BillOwnerTypeEnum, LocationRuleActionEnum, StockedLineTypeEnum } from './enums.ts';

export const LineChangeRef = builder.objectRef<LineChangeView>('RecipeLineChange').implement({
  description: 'A line a location rule changes, against the base recipe.',
  fields: (t) => ({
    change: t.expose('change', { type: LocationRuleActionEnum }),
    lineType: t.expose('lineType', { type: StockedLineTypeEnum }),
    nodeId: t.exposeString('nodeId', { description: 'The line as used here (the replacement for replace; the removed node for remove).' }),
    replacesNodeId: t.exposeString('replacesNodeId', { nullable: true, description: 'replace only: the base line it swaps out.' }),
    quantity: t.expose('quantity', { type: 'Decimal', nullable: true, description: 'Quantity at the location (null for remove).' }),
    wastePercentage: t.expose('wastePercentage', { type: 'Decimal', nullable: true, description: 'Waste % at the location (null for remove).' }),
    baseQuantity: t.expose('baseQuantity', { type: 'Decimal', nullable: true, description: 'Quantity of the base line (null for add).' }),
    baseWastePercentage: t.expose('baseWastePercentage', { type: 'Decimal', nullable: true, description: 'Waste % of the base line (null for add).' }),
  }),
});

export const BillRuleRef = builder.objectRef<BillRuleView>('BillLocationRule').implement({
  fields: (t) => ({
    ownerType: t.expose('ownerType', { type: BillOwnerTypeEnum }), ownerId: t.exposeString('ownerId'), name: t.exposeString('name'),
    lineChanges: t.field({ type: [LineChangeRef], resolve: (r) => r.lineChanges }),
  }),
});

export const MaterialNeedChangeRef = builder.objectRef<MaterialNeedChangeView>('MaterialNeedChange').implement({
  fields: (t) => ({
    variantId: t.exposeString('variantId'), name: t.exposeString('name', { nullable: true }),
    baseQuantityPerUnit: t.expose('baseQuantityPerUnit', { type: 'Decimal' }),
    quantityPerUnit: t.expose('quantityPerUnit', { type: 'Decimal' }),
  }),
});

export const LocationRulesLocationRef = builder.objectRef<LocationRulesLocationView>('BomLocationRulesAtLocation').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'), locationName: t.exposeString('locationName'),
    usesBaseRecipe: t.exposeBoolean('usesBaseRecipe'),
    rules: t.field({ type: [BillRuleRef], resolve: (l) => l.rules }),
    materialChanges: t.field({ type: [MaterialNeedChangeRef], resolve: (l) => l.materialChanges }),
  }),
});

export const LocationRulesRef = builder.objectRef<LocationRulesView>('BomLocationRules').implement({
  fields: (t) => ({
    bomId: t.exposeString('bomId'),
    locations: t.field({ type: [LocationRulesLocationRef], resolve: (v) => v.locations }),
  }),
});

builder.queryField('bomLocationRules', (t) =>
  t.field({
    type: LocationRulesRef,
    description: 'What the BOM does at every location: the rules of its tree there and the leaf needs that change.',
    authScopes: { read: true },
    args: { bomId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => bomLocationRules(ctx, args.bomId),
  }),
);
