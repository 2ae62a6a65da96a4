import { Type } from '@sinclair/typebox';
import { NullableNumber, NullableString, Num } from '../../schema-helpers.ts';
import { STRING_LIMITS } from '../../../src/limits.ts';

export {
  decimalVariable, LocationIdsQuery, NullableNumber, NullableStr, NullableString, Num, NUMERIC_ID_PATTERN, scopeVariable, Str, strictObject,
} from '../../schema-helpers.ts';

export const VariantIdParams = Type.Object(
  { variantId: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'Numeric platform variant id or VMAT-VAR-… id (no global ids).' }) },
  { additionalProperties: false },
);

const materialProperties = {
  variantId: Type.String({ description: 'Numeric platform variant id, or VMAT-VAR-<uuid> for a virtual material.' }),
  productId: Type.String({ description: 'VMAT-PROD-<uuid> for a virtual material.' }),
  inventoryItemId: Type.String({ description: 'VMAT-INV-<uuid> for a virtual material.' }),
  productName: Type.String(),
  variantName: NullableString(),
  sku: NullableString(),
  vendor: NullableString(),
  unit: NullableString('Unit label (kg, pcs, …).'),
  unitCost: NullableNumber(),
  unitPrice: NullableNumber(),
  inventoryQuantity: Num('Platform-linked: the cached platform total (cachedQuantity). Virtual: the sum of its per-location levels.'),
  isVirtual: Type.Boolean(),
  specifications: NullableString(),
  imageUrl: NullableString(),
  isNonEssentialMaterial: Type.Boolean({ description: 'Non-essential materials are ignored by buildable quantities.' }),
  weightValue: NullableNumber(),
  weightUnitId: NullableString(),
  productType: NullableString(),
  productCategory: NullableString(),
};

export const MaterialSchema = Type.Object(materialProperties, { additionalProperties: false, title: 'RawMaterial', description: 'A raw material (platform-linked fields are mirrored from the platform variant).' });

export const MaterialListRowSchema = Type.Object(
  {
    ...materialProperties,
    bomUsageCount: Type.Integer({ minimum: 0, description: 'Number of BOMs whose own recipe lines name the material.' }),
    subAssemblyUsageCount: Type.Integer({ minimum: 0, description: 'Number of assembly bills whose own lines name the material.' }),
  },
  { additionalProperties: false, title: 'RawMaterialListRow' },
);
