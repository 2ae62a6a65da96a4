import { Type } from '@sinclair/typebox';
import { STRING_LIMITS } from '../../../src/limits.ts';
import { NUMERIC_ID_PATTERN } from '../../schema-helpers.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Quantity = (description: string) => Type.Number({ description });

const Material = Type.Object({
  productId: NullableString, variantId: Type.String(), sku: NullableString, title: Type.String(),
  productName: NullableString, variantName: NullableString, specifications: NullableString, notes: NullableString,
  quantity: Quantity('Per this BOM line: effective need per unit (waste included, nested assemblies multiplied) × orderQuantity.'),
}, { additionalProperties: false, title: 'OrderBomBreakdownMaterial' });

export const BreakdownSchema = Type.Object({
  orderId: Type.String({ description: 'Bare numeric order id.' }),
  orderName: Type.String(),
  generatedAt: Type.String({ format: 'date-time' }),
  boms: Type.Array(Type.Object({
    bomId: Type.String(), bomName: Type.String(), bomImageUrl: NullableString, bomProductId: NullableString,
    bomVariantId: Type.String(), bomSku: NullableString, orderQuantity: Quantity('Quantity of the order line.'),
    materials: Type.Array(Material, { description: 'Leaf raw materials of the line; assembly bills are expanded.' }),
  }, { additionalProperties: false, title: 'OrderBomBreakdownLine' }), { description: 'One entry per order line whose product has a BOM.' }),
  totalMaterials: Type.Array(Type.Object({
    variantId: Type.String(), productId: NullableString, sku: NullableString, title: Type.String(), productName: NullableString,
    variantName: NullableString, specifications: NullableString, notes: NullableString,
    totalQuantity: Quantity('Sum over every BOM line of the order.'), imageUrl: NullableString, isVirtual: Type.Boolean(),
    unitCost: Type.Union([Type.Number(), Type.Null()]),
  }, { additionalProperties: false, title: 'OrderBomBreakdownTotalMaterial' }), { description: 'Materials de-duplicated by variant across all BOM lines.' }),
  otherItems: Type.Array(Type.Object({
    variantId: NullableString, productId: NullableString, sku: NullableString, title: Type.String(), quantity: Type.Number(),
  }, { additionalProperties: false, title: 'OrderBomBreakdownOtherItem' }), { description: 'Order lines whose product has no BOM.' }),
}, { additionalProperties: false, title: 'OrderBomBreakdown' });

export const LocationIdParam = Type.String({ pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id, description: 'Bare numeric location id: every bill is expanded with that location\'s rules.' });
