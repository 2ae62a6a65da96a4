import { Type } from '@sinclair/typebox';
import { num, num0, NullableNumber, NullableString, Num, strictObject } from '../../schema-helpers.ts';

export { num, num0, NullableNumber, NullableString, Num };


export const obj = strictObject;

export const BomIdParams = obj({ id: Type.String({ minLength: 1, maxLength: 255, description: 'The BOM id (BOM-<digits>).' }) });

export const MaterialNode = obj({
  productName: Type.String(), variantName: NullableString(), sku: NullableString(), unit: NullableString(),
  unitCost: NullableNumber('The material unit cost (null when it has none; counted as 0 in costs).'),
  origin: Type.Union([Type.Literal('platform'), Type.Literal('virtual')]), isNonEssential: Type.Boolean(),
});
export const RawReference = obj({ nodeId: Type.String(), quantity: Num(), wastePercentage: Num(), node: Type.Union([MaterialNode, Type.Null()]) });
export const CostFactorReference = obj({
  costFactorId: Type.String(), quantity: Num(),
  node: Type.Union([obj({ name: Type.String(), kind: Type.String({ description: 'labor | overhead | packaging | machine | other' }), unit: NullableString(), unitCost: Num() }), Type.Null()]),
});

/** The GraphQL fragment fields of a recipe, shared by every stored operation that reads one. */
export const costFields = ['totalRawMaterialCost', 'totalSubAssemblyCost', 'directCostFactorCost', 'totalCost'] as const;

export interface GqlRaw { nodeId: string; quantity: string; wastePercentage: string; node: null | { productName: string; variantName: string | null; sku: string | null; unit: string | null; unitCost: string | null; origin: 'platform' | 'virtual'; isNonEssential: boolean } }
export interface GqlCost { costFactorId: string; quantity: string; node: null | { name: string; kind: string; unit: string | null; unitCost: string } }
export interface GqlRecipe { rawMaterialLines: GqlRaw[]; subAssemblyLines: { nodeId: string; quantity: string }[]; costFactorLines: GqlCost[] }

export function rawReferences(lines: GqlRaw[]) {
  return lines.map((l) => ({
    nodeId: l.nodeId, quantity: num0(l.quantity), wastePercentage: num0(l.wastePercentage),
    node: l.node && { productName: l.node.productName, variantName: l.node.variantName, sku: l.node.sku, unit: l.node.unit, unitCost: num(l.node.unitCost), origin: l.node.origin, isNonEssential: l.node.isNonEssential },
  }));
}

export function costReferences(lines: GqlCost[]) {
  return lines.map((l) => ({ costFactorId: l.costFactorId, quantity: num0(l.quantity), node: l.node && { name: l.node.name, kind: l.node.kind, unit: l.node.unit, unitCost: num0(l.node.unitCost) } }));
}
