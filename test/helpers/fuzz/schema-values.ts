import fc from 'fast-check';
import { anyJson, nastyNumber, nastyString, RawNumber, setOwn } from './values.ts';

/** The part of JSON Schema the OpenAPI document uses (TypeBox output). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  $ref?: string;
}

/** Known values by parameter or property name: ids the fuzzed shop has (and some it has not), so requests reach the domain. */
export type Hints = Record<string, readonly unknown[]>;

const lengthsAround = (min: number, max: number | undefined): number[] =>
  [min, min + 1, Math.max(0, min - 1), ...(max !== undefined ? [max - 1, max, max + 1, max * 2] : [255, 256, 1000, 10_001])].filter((n) => n >= 0);

function stringFor(schema: JsonSchema, hint: readonly unknown[] | undefined): fc.Arbitrary<string> {
  const options: fc.WeightedArbitrary<string>[] = [];
  const hinted = hint?.filter((v): v is string => typeof v === 'string') ?? [];
  if (hinted.length > 0) options.push({ weight: 8, arbitrary: fc.constantFrom(...hinted) });
  if (schema.format === 'date-time') {
    options.push({ weight: 3, arbitrary: fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()) });
    options.push({ weight: 1, arbitrary: fc.constantFrom('2026-11-02T10:00:00Z', '2026-11-02T10:00:00+02:00', '2026-11-02', '2026-11-02T25:00:00Z', '0001-01-01T00:00:00Z') });
  } else if (schema.format === 'date') {
    options.push({ weight: 3, arbitrary: fc.constantFrom('2026-12-01', '1970-01-01', '9999-12-31', '2026-02-29', '2024-02-29', '2026-1-1', '20261201') });
  } else if (schema.pattern === '^[0-9]+$' || schema.pattern === '^[0-9]*$') {
    options.push({ weight: 3, arbitrary: fc.oneof(fc.constantFrom('101', '102', '103', '999', '0', '00101', '9'.repeat(19), '9'.repeat(40)), fc.nat().map(String)) });
  } else if (schema.pattern) {
    options.push({ weight: 3, arbitrary: fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 2000)) });
  } else {
    const min = schema.minLength ?? 0;
    options.push({ weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.min(schema.maxLength ?? 30, 30) }) });
    options.push({ weight: 2, arbitrary: fc.constantFrom(...lengthsAround(min, schema.maxLength)).map((n) => 'k'.repeat(n)) });
  }
  options.push({ weight: 3, arbitrary: nastyString });
  return fc.oneof(...options);
}

function numberFor(schema: JsonSchema, integer: boolean): fc.Arbitrary<number | RawNumber> {
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const edges = [min, schema.maximum].filter((n): n is number => n !== undefined).flatMap((n) => [n - 1, n, n + 1, n + 0.5]);
  return fc.oneof(
    { weight: 3, arbitrary: integer ? fc.integer({ min: min ?? -1000, max: schema.maximum ?? 1000 }) : fc.double({ min: min ?? -1000, max: schema.maximum ?? 1000, noNaN: true }) },
    { weight: 2, arbitrary: fc.constantFrom(0, 1, 2, 0.5, 0.000001, ...edges) },
    { weight: 2, arbitrary: nastyNumber },
  );
}

/** A value of the wrong shape for `schema` (type confusion). */
export const wrongShape: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null), fc.boolean(), nastyNumber, nastyString, fc.constant([]), fc.constant({}), anyJson,
);

/**
 * Values for a schema: mostly valid (hinted ids, boundary lengths and numbers), often adversarial
 * (nasty strings and numbers in the right type), sometimes the wrong type altogether.
 */
export function valueFor(schema: JsonSchema, hints: Hints, name = '', depth = 0): fc.Arbitrary<unknown> {
  const hint = hints[name];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof({ weight: 9, arbitrary: fc.oneof(...alternatives.map((s) => valueFor(s, hints, name, depth))) }, { weight: 1, arbitrary: wrongShape });
  if (schema.enum) return fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: nastyString });
  if (schema.const !== undefined) return fc.oneof({ weight: 9, arbitrary: fc.constant(schema.const) }, { weight: 1, arbitrary: nastyString });
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const arbitraries: fc.Arbitrary<unknown>[] = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string': return stringFor(schema, hint);
      case 'integer': return numberFor(schema, true);
      case 'number': return numberFor(schema, false);
      case 'boolean': return fc.boolean();
      case 'null': return fc.constant(null);
      case 'array': return arrayFor(schema, hints, name, depth);
      case 'object': return objectFor(schema, hints, depth);
      default: return anyJson;
    }
  });
  if (arbitraries.length === 0) return anyJson;
  return fc.oneof({ weight: 12, arbitrary: fc.oneof(...arbitraries) }, { weight: 1, arbitrary: wrongShape });
}

function arrayFor(schema: JsonSchema, hints: Hints, name: string, depth: number): fc.Arbitrary<unknown[]> {
  const item = depth > 3 ? anyJson : valueFor(schema.items ?? {}, hints, name, depth + 1);
  const min = schema.minItems ?? 0;
  const max = schema.maxItems;
  const small = fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(max ?? 4, 4)) });
  // Lists at and past their maximum: one sampled item repeated (cheap to build, still the count that matters).
  const counts = [max, max !== undefined ? max + 1 : 1001, 5000].filter((n): n is number => n !== undefined);
  const long = fc.tuple(item, fc.constantFrom(...counts)).map(([v, n]) => Array.from({ length: n }, () => v));
  return fc.oneof({ weight: 8, arbitrary: small }, { weight: 1, arbitrary: long }, { weight: 1, arbitrary: fc.constant([] as unknown[]) });
}

/** An object of the schema's properties (required ones usually present), sometimes with foreign and prototype keys. */
export function objectFor(schema: JsonSchema, hints: Hints, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const fields = properties.map(([name, s]) => fc.tuple(
    fc.constant(name),
    fc.integer({ min: 0, max: 9 }).map((roll) => (required.has(name) ? roll < 9 : roll < 5)),
    valueFor(s, hints, name, depth + 1),
  ));
  const extras = fc.oneof(
    { weight: 6, arbitrary: fc.constant([] as [string, unknown][]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'unknownField', ''), anyJson), { maxLength: 2 }) },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([chosen, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [name, present, value] of chosen) if (present) setOwn(out, name, value);
    for (const [name, value] of extra) setOwn(out, name, value);
    return out;
  });
}
