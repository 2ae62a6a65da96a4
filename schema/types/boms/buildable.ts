import { bomBuildable, type BuildableLocationView, type BuildableView, type LimitingComponentView } from '../../../src/modules/boms/buildable/buildable.service.ts';
import { DomainError } from '../../../src/kernel/domain-error.ts';
import { builder } from '../../builder.ts';
import { LimitingComponentOriginEnum } from './enums.ts';

export const LimitingComponentRef = builder.objectRef<LimitingComponentView>('LimitingComponent').implement({
  description: 'A leaf of the recipe and how many finished units it alone allows at the location.',
  fields: (t) => ({
    nodeId: t.exposeString('nodeId', { description: 'Material variantId, or subassembly:<assemblyId> for a pre-assembled leaf.' }),
    name: t.exposeString('name', { description: 'Material productName, or the assembly bill name.' }),
    origin: t.expose('origin', { type: LimitingComponentOriginEnum }),
    quantityPerUnit: t.expose('quantityPerUnit', { type: 'Decimal', description: 'Need per finished unit, waste and nesting included, shelves not counted.' }),
    wastePercentage: t.expose('wastePercentage', {
      type: 'Decimal', description: 'Waste % of the first recipe line naming the leaf (depth-first, recipe order); 0 for pre-assembled leaves.',
    }),
    isNonEssential: t.exposeBoolean('isNonEssential', { description: 'Always false: non-essential materials never limit.' }),
    maxUnitsByThisComponent: t.exposeInt('maxUnitsByThisComponent', { description: 'Largest N this leaf alone allows, shelves of the assemblies above it used first.' }),
    availableAtLocation: t.expose('availableAtLocation', {
      type: 'Decimal', description: 'What the leaf has at the location (negative levels count as 0); for a pre-assembled leaf, its shelf.',
    }),
  }),
});

export const BuildableLocationRef = builder.objectRef<BuildableLocationView>('BuildableLocation').implement({
  fields: (t) => ({
    locationId: t.exposeString('locationId'),
    locationName: t.exposeString('locationName'),
    maxBuildable: t.exposeInt('maxBuildable'),
    sellable: t.exposeInt('sellable'),
    limitingComponents: t.field({ type: [LimitingComponentRef], resolve: (l) => l.limitingComponents }),
  }),
});

const BuildableTotalsRef = builder.objectRef<BuildableView['totals']>('BuildableTotals').implement({
  fields: (t) => ({ maxBuildable: t.exposeInt('maxBuildable'), sellable: t.exposeInt('sellable') }),
});

export const BuildableRef = builder.objectRef<BuildableView>('Buildable').implement({
  description: 'How many finished units of a BOM can be built now, per location and in total.',
  fields: (t) => ({
    bomId: t.exposeString('bomId'),
    variantId: t.exposeString('variantId', { nullable: true }),
    hasSellableSplit: t.exposeBoolean('hasSellableSplit'),
    globalFallback: t.exposeBoolean('globalFallback'),
    perLocation: t.field({ type: [BuildableLocationRef], resolve: (b) => b.perLocation }),
    totals: t.field({ type: BuildableTotalsRef, resolve: (b) => b.totals }),
    untrackedComponents: t.exposeStringList('untrackedComponents', {
      description: 'Materials of the recipe (any depth, location rules included) whose stock the platform does not track (Shopify: '
        + '"Track quantity" off, e.g. labels or string): they are not stock, so they never limit maxBuildable and are never a limiting component. Sorted by variantId.',
    }),
  }),
});

builder.queryField('bomBuildable', (t) =>
  t.field({
    type: BuildableRef,
    description: 'Buildable quantities of a BOM; locationIds are bare numeric ids, null or empty = every location.',
    authScopes: { read: true },
    args: { bomId: t.arg.string({ required: true }), locationIds: t.arg.stringList({ required: false }) },
    resolve: (_root, args, ctx) => {
      const ids = (args.locationIds ?? []).filter((id) => id !== '');
      const bad = ids.find((id) => !/^\d+$/.test(id));
      if (bad !== undefined) throw DomainError.invalid('locationIds', `"${bad}" is not a bare numeric location id`);
      return bomBuildable(ctx, args.bomId, ids.length === 0 ? null : ids);
    },
  }),
);
