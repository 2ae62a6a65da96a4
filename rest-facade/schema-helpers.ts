import { Type, type StringOptions, type TArray, type TSchema, type TString } from '@sinclair/typebox';
import { parseDecimalInput, toDecimalString } from '../src/kernel/decimals.ts';
import { DomainError, type FieldError } from '../src/kernel/domain-error.ts';
import { LIST_LIMITS, STRING_LIMITS, type StringKind } from '../src/kernel/limits.ts';
import { exactJsonNumber, type RawJson } from '../src/kernel/numbers/json-numbers.ts';
import { LIST_ITEM } from '../src/http/requests/query-lists.ts';

// Building blocks shared by the route schemas of every resource.

/**
 * A GraphQL Decimal (exact string) as a JSON number: rounded half-up to 6 places exactly and written
 * from that text, never through a double (99999999999999.999999 stays so; 2 is `2`, 1.50 is `1.5`).
 */
export function decimalJson(value: string): number | RawJson {
  return exactJsonNumber(toDecimalString(value));
}

/** A string of one kind of the limits table (src/kernel/limits.ts): its maxLength is that kind's maximum. */
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

/** `minimum: 0` / `minimum: 1`: counts and page numbers (GraphQL's Int has no bounds). */
export const MIN0 = { minimum: 0 } as const;
export const MIN1 = { minimum: 1 } as const;
/** The page fields of a paged list's `data`. */
export const PAGE_OVERRIDES = { totalCount: MIN0, page: MIN1, pageSize: MIN1, totalPages: MIN0 } as const;

/** The largest GraphQL Int (32-bit signed): a page number or offset beyond it is 400. */
export const INT32_MAX = 2_147_483_647;

/** An object schema that allows no other properties (responses list every field they send). */
export function strictObject(properties: Record<string, TSchema>, description?: string) {
  return Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
}

/** A bare numeric id (`101`): location ids in query strings and bodies (a gid://… global id is 400). */
export const NUMERIC_ID_PATTERN = '^[0-9]+$';

/** The values of an enum item (a union of literals or an `enum`), or null. */
function enumValues(item: TSchema): string[] | null {
  const members = (item.anyOf as TSchema[] | undefined)?.map((m) => m.const as unknown);
  const values = members ?? (item.enum as unknown[] | undefined);
  return values && values.every((v) => typeof v === 'string') ? (values as string[]) : null;
}

/** The pattern of a value as sent: items of `item` joined with commas, empty items allowed (`101,102`, `draft,ready`). */
function joinedPattern(item: TSchema): string | undefined {
  const values = enumValues(item);
  const one = values ? `(${values.join('|')})` : typeof item.pattern === 'string' ? `(${String(item.pattern).replace(/^\^/, '').replace(/\$$/, '')})` : undefined;
  return one === undefined ? undefined : `^${one}?(,${one}?)*$`;
}

/**
 * A list-valued query parameter: repeated (`status=draft&status=ready`), comma-separated
 * (`status=draft,ready`) or both, with the same meaning. src/http/requests/query-lists.ts splits the values
 * before validation, so `maxItems` counts items after splitting and each item is checked against
 * `item` (an enum item refused lists its values). The document shows an exploded form array whose
 * items are values as sent, commas included.
 */
export function ListParameter(item: TSchema, options: { description: string; maxItems: number; minItems?: number }): TArray<TString> {
  const itemMax = typeof item.maxLength === 'number' ? item.maxLength : Math.max(0, ...(enumValues(item) ?? []).map((v) => v.length));
  const pattern = joinedPattern(item);
  const values = enumValues(item);
  const sent = Type.String({
    // A value as sent holds every item, each quoted with its quotes doubled at worst.
    maxLength: options.maxItems * (2 * itemMax + 3),
    ...(pattern ? { pattern } : {}),
    description: values ? `One or more of ${values.join(', ')}, comma-separated.` : 'One or more values, comma-separated.',
  });
  const list = Type.Array(sent, {
    ...(options.minItems ? { minItems: options.minItems } : {}),
    maxItems: options.maxItems,
    description: `${options.description} Repeat the parameter, separate values with commas, or both: the same list. `
      + (pattern ? '' : 'A value that holds a comma goes in double quotes (`"Acme, Inc."`), a quote inside it doubled. ')
      + `At most ${options.maxItems} values after splitting; empty values are ignored.`,
  });
  return Object.assign(list, { [LIST_ITEM]: item });
}

/** `locationIds`: bare numeric ids, repeated and/or comma-separated; a global id is 400. */
export const LocationIdsQuery = Type.Object(
  {
    locationIds: Type.Optional(ListParameter(Type.String({ pattern: NUMERIC_ID_PATTERN, maxLength: STRING_LIMITS.id }), {
      maxItems: LIST_LIMITS.ids,
      description: 'Bare numeric location ids (`locationIds=101,102` or `locationIds=101&locationIds=102`; a gid://… form is 400). '
        + 'Omitted or empty (`locationIds=`) means every location; a scope that matches nothing reports 0.',
    })),
  },
  { additionalProperties: false },
);

/** The scope as GraphQL variables: an empty list = every location. */
export function scopeVariable(query: { locationIds?: readonly string[] }): string[] | null {
  return query.locationIds?.length ? [...query.locationIds] : null;
}

/**
 * A JSON number of the body as a Decimal variable, checked here so a bad value is 400 naming the
 * field rather than a GraphQL coercion failure. A number a double does not hold arrives as its exact
 * text (src/http/requests/validators.ts), any other as the double that is its value.
 */
export function decimalVariable(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  const errors: FieldError[] = [];
  const parsed = parseDecimalInput(String(value), field, errors);
  if (!parsed) throw new DomainError('INVALID_INPUT', `${field}: ${errors[0]!.message}`, { errors });
  return parsed.toFixed();
}
