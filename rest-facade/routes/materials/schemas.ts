import { Type } from '@sinclair/typebox';
import { STRING_LIMITS } from '../../../src/kernel/limits.ts';

export { decimalVariable, LocationIdsQuery, NullableNumber, NullableStr, NUMERIC_ID_PATTERN, scopeVariable, Str } from '../../schema-helpers.ts';

export const VariantIdParams = Type.Object(
  { variantId: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'Numeric platform variant id or VMAT-VAR-… id (no global ids).' }) },
  { additionalProperties: false },
);
