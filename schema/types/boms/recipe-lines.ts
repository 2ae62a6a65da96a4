import type { CostLineView, RawLineView, SubLineView } from '../../../src/modules/boms/bom-views.ts';
import type { CostFactorInfo, MaterialInfo } from '../../../src/modules/boms/recipe-data.ts';
import { loadCostFactors } from '../../../src/modules/boms/recipe-data.ts';
import { builder } from '../../builder.ts';
import { MaterialOriginEnum } from '../materials/enums.ts';
import { CostFactorKindEnum } from './enums.ts';

export const RecipeMaterialRef = builder.objectRef<MaterialInfo>('RecipeMaterial').implement({
  description: 'The raw material a recipe line names (catalogue fields needed to read a recipe).',
  fields: (t) => ({
    variantId: t.exposeString('variantId'),
    origin: t.expose('origin', { type: MaterialOriginEnum }),
    productName: t.exposeString('productName'),
    variantName: t.exposeString('variantName', { nullable: true }),
    sku: t.exposeString('sku', { nullable: true }),
    unit: t.exposeString('unit', { nullable: true }),
    unitCost: t.expose('unitCost', { type: 'Decimal', nullable: true, description: 'The material unit cost (null when it has none; counted as 0 in costs).' }),
    isNonEssential: t.exposeBoolean('isNonEssential', { description: 'Non-essential materials are ignored by buildable.' }),
  }),
});

export const CostFactorRef = builder.objectRef<CostFactorInfo>('CostFactor').implement({
  description: 'A cost that is not a material (labour, overhead, packaging, machine, other), per unit.',
  fields: (t) => ({
    costFactorId: t.exposeString('costFactorId'),
    name: t.exposeString('name'),
    kind: t.expose('kind', { type: CostFactorKindEnum }),
    unit: t.exposeString('unit', { nullable: true }),
    unitCost: t.expose('unitCost', { type: 'Decimal' }),
  }),
});

export const RawMaterialLineRef = builder.objectRef<RawLineView>('RawMaterialLine').implement({
  description: 'A raw-material line of a base recipe.',
  fields: (t) => ({
    nodeId: t.exposeString('nodeId', { description: 'The material variantId.' }),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    wastePercentage: t.expose('wastePercentage', { type: 'Decimal' }),
    position: t.exposeInt('position'),
    node: t.field({ type: RecipeMaterialRef, nullable: true, resolve: (l) => l.node }),
  }),
});

export const SubAssemblyLineRef = builder.objectRef<SubLineView>('SubAssemblyLine').implement({
  description: 'A sub-assembly line of a base recipe: quantity of an assembly bill (read it through `assemblyBills` of the BOM or `assemblyBill`).',
  fields: (t) => ({
    nodeId: t.exposeString('nodeId', { description: 'The assembly id (ASM-<id>).' }),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    position: t.exposeInt('position'),
  }),
});

export const CostFactorLineRef = builder.objectRef<CostLineView>('CostFactorLine').implement({
  description: 'A cost-factor line of a base recipe.',
  fields: (t) => ({
    costFactorId: t.exposeString('costFactorId'),
    quantity: t.expose('quantity', { type: 'Decimal' }),
    position: t.exposeInt('position'),
    node: t.field({ type: CostFactorRef, nullable: true, resolve: (l) => l.node }),
  }),
});

builder.queryField('costFactors', (t) =>
  t.field({
    type: [CostFactorRef],
    description: 'Every cost factor of the shop that is not archived, by id.',
    authScopes: { read: true },
    resolve: async (_root, _args, ctx) => [...(await loadCostFactors(ctx, null)).values()],
  }),
);
