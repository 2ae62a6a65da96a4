import { Type } from '@sinclair/typebox';
import { STRING_LIMITS } from '../../../src/kernel/limits.ts';
import { NUMERIC_ID_PATTERN } from '../../schema-helpers.ts';

export const LocationIdParam = Type.String({ pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id, description: 'Bare numeric location id: every bill is expanded with that location\'s rules.' });
