import { Type, type StringOptions, type TSchema } from '@sinclair/typebox';
import { parseDecimalInput, toDecimalString } from '../src/decimals.ts';
import { DomainError, type FieldError } from '../src/domain-error.ts';
import { LIST_LIMITS, STRING_LIMITS, type StringKind } from '../src/limits.ts';

// Building blocks shared by the route schemas of every resource.

/** A GraphQL Decimal (exact string) as a JSON number: rounded half-up to 6 places exactly, then Number. */
export function num(value: string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(toDecimalString(value));
}
export const num0 = (value: string): number => num(value)!;

/** A string of one kind of the limits table (src/limits.ts): its maxLength is that kind's maximum. */
export const Str = (kind: StringKind, options: Omit<StringOptions, 'maxLength'> = {}) => Type.String({ ...options, maxLength: STRING_LIMITS[kind] });
/** A nullable string of one kind of the limits table. */
export const NullableStr = (kind: StringKind, description?: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: STRING_LIMITS[kind], ...(description ? { description } : {}) });

/** Nullable scalars as JSON-schema type arrays (not anyOf: AJV's coercion would turn null into ""). */
export const NullableString = (description?: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...(description ? { description } : {}) });
export const NullableNumber = (description?: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], ...(description ? { description } : {}) });
export const Num = (description?: string) => Type.Number(description ? { description } : {});

/**
 * Names a schema: the OpenAPI document makes it the component `title` (a type of generated clients,
 * rest-facade/openapi-finish.ts). Validation and serialization do not read titles.
 */
export function named<T extends TSchema>(title: string, schema: T): T {
  return { ...schema, title };
}

/** The largest GraphQL Int (32-bit signed): a page number or offset beyond it is 400. */
export const INT32_MAX = 2_147_483_647;

/** An object schema that allows no other properties (responses list every field they send). */
export function strictObject(properties: Record<string, TSchema>, description?: string) {
  return Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
}

/** `locationIds`: repeatable bare numeric ids; a global id is 400. */
export const LocationIdsQuery = Type.Object(
  {
    locationIds: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]*$', maxLength: STRING_LIMITS.id, description: 'A bare numeric location id (a gid://… form is 400).' }), {
      maxItems: LIST_LIMITS.ids,
      description: `Repeatable (\`locationIds=101&locationIds=102\`), at most ${LIST_LIMITS.ids}. Omitted or empty (\`locationIds=\`) means every location; a scope that matches nothing reports 0.`,
    })),
  },
  { additionalProperties: false },
);

/** The scope as GraphQL variables: empty values dropped, an empty list = every location. */
export function scopeVariable(query: { locationIds?: readonly string[] }): string[] | null {
  const ids = (query.locationIds ?? []).filter((id) => id !== '');
  return ids.length === 0 ? null : ids;
}

/** `ids` query values: repeatable and/or comma-separated; empty segments are dropped. */
export function splitIds(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * A JSON number as a Decimal variable, checked here so a bad value is 400 naming the field rather
 * than a GraphQL coercion failure.
 */
export function decimalVariable(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  const errors: FieldError[] = [];
  const parsed = parseDecimalInput(String(value), field, errors);
  if (!parsed) throw new DomainError('INVALID_INPUT', `${field}: ${errors[0]!.message}`, { errors });
  return parsed.toFixed();
}
