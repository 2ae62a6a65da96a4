import { Type } from '@sinclair/typebox';
import { EnumOf } from '../../graphql-enums.ts';
import { named, NullableNumber, NullableString, Num, strictObject } from '../../schema-helpers.ts';
import { STRING_LIMITS } from '../../../src/limits.ts';

export { NullableNumber, NullableString, Num };

export const obj = strictObject;

export const BomIdParams = obj({ id: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'The BOM id (BOM-<digits>).' }) });

export const MaterialNode = named('BomMaterialNode', obj({
  productName: Type.String(), variantName: NullableString(), sku: NullableString(), unit: NullableString(),
  unitCost: NullableNumber('The material unit cost (null when it has none; counted as 0 in costs).'),
  origin: EnumOf('RawMaterialOrigin'), isNonEssential: Type.Boolean(),
}));
export const RawReference = named('BomRawMaterialReference', obj({ nodeId: Type.String(), quantity: Num(), wastePercentage: Num(), node: Type.Union([MaterialNode, Type.Null()]) }));
export const CostFactorReference = named('BomCostFactorReference', obj({
  costFactorId: Type.String(), quantity: Num(),
  node: Type.Union([obj({ name: Type.String(), kind: EnumOf('CostFactorKind'), unit: NullableString(), unitCost: Num() }), Type.Null()]),
}));
