import { Type } from '@sinclair/typebox';
import { NullableNumber, NullableString, Num, strictObject } from '../../schema-helpers.ts';
import { STRING_LIMITS } from '../../../src/kernel/limits.ts';

export { NullableNumber, NullableString, Num };

export const obj = strictObject;

export const BomIdParams = obj({ id: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'The BOM id (BOM-<digits>).' }) });
