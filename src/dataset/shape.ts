import type { Decimal } from 'decimal.js';
import { MAX_STRING_LENGTH } from '../kernel/limits.ts';
import { canonicalDecimal, isJsonNumber, readDecimal } from './exact-number.ts';
import type { ErrorSink } from './problems.ts';

// One declarative description of each record drives three things: field-level validation,
// normalisation (defaults, canonical decimals) and the canonical key order of the serializer.
// Cross-record rules (references, duplicates, cycles) live in the reference checks.

export type DecimalCheck = (value: Decimal) => string | null;

interface Common {
  /** Absent or null is allowed and normalised to the shape's default. */
  optional: boolean;
  /**
   * Left out while null: the parsed record has no such member and the serializer does not write it
   * (fields added to the format later, such as `archivedAt`, so files that never use them and the
   * records read from them stay exactly as they were).
   */
  omitWhenNull?: boolean;
  /**
   * A list the serializer leaves out while empty (lists added to the format later, such as a QC
   * review's `items`, so files that never use them serialize exactly as they were written).
   */
  omitWhenEmpty?: boolean;
}
export interface StringShape extends Common {
  type: 'string';
  /** Ids must carry at least one character; free text may be empty. */
  nonEmpty: boolean;
  pattern?: RegExp;
  /** Message when `pattern` does not match. */
  patternMessage?: string;
  /** Extra check on a well-formed string (calendar validity of dates). */
  check?: (value: string) => string | null;
}
export interface DecimalShape extends Common {
  type: 'decimal';
  default: string | null;
  check?: DecimalCheck;
}
export interface IntegerShape extends Common {
  type: 'integer';
  min: number;
  /** The largest value accepted (none: any). */
  max?: number;
}
export interface BooleanShape extends Common {
  type: 'boolean';
  default: boolean;
}
export interface EnumShape extends Common {
  type: 'enum';
  values: readonly string[];
  /** What an optional enum that is absent or null becomes (else null). */
  default?: string;
}
export interface ArrayShape extends Common {
  type: 'array';
  of: Shape;
}
export interface ObjectShape extends Common {
  type: 'object';
  fields: Record<string, Shape>;
  /** Fields refused with a specific message instead of "unknown field". */
  refused?: Record<string, string>;
  /** Constant members added to the parsed value and never written back (discriminants). */
  derived?: Record<string, string>;
}
export interface UnionShape extends Common {
  type: 'union';
  /** Chooses the member for a raw object, or says which field is wrong. */
  pick: (raw: Record<string, unknown>) => ObjectShape | { field: string; message: string };
  /** Chooses the member for an already-parsed value. */
  pickParsed: (value: Record<string, unknown>) => ObjectShape;
}
export type Shape =
  | StringShape | DecimalShape | IntegerShape | BooleanShape | EnumShape | ArrayShape | ObjectShape | UnionShape;

/** JSONPath of a member: `.name` for identifier-like keys, `["odd key"]` otherwise. */
export function memberPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Where a value sits, as a chain of steps. Only turned into JSONPath text when a problem is
 * reported: building a string for each of millions of valid values costs more than the checks.
 */
export interface PathRef {
  readonly parent: PathRef | null;
  readonly step: string | number;
}

export function pathText(ref: PathRef | null): string {
  if (ref === null) return '$';
  const parentText = pathText(ref.parent);
  return typeof ref.step === 'number' ? `${parentText}[${ref.step}]` : memberPath(parentText, ref.step);
}

const fieldLists = new WeakMap<ObjectShape, [string, Shape][]>();
function fieldsOf(shape: ObjectShape): [string, Shape][] {
  let list = fieldLists.get(shape);
  if (!list) fieldLists.set(shape, (list = Object.entries(shape.fields)));
  return list;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isJsonNumber(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isJsonNumber(value)) return 'a number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function defaultOf(shape: Shape): unknown {
  switch (shape.type) {
    case 'decimal': return shape.default;
    case 'boolean': return shape.default;
    case 'enum': return shape.default ?? null;
    case 'array': return [];
    case 'object': return normalizeObject(shape, {}, null, []);
    default: return null;
  }
}

/**
 * Validates `raw` against `shape`, pushing every problem onto `errors`. Returns the normalised
 * value; a part that failed becomes null so that later checks can still run on the rest (the
 * result is only handed out when `errors` stayed empty).
 *
 * The value sits at `step` of `parent` (both null for the root); a path object is only made
 * for containers and failures.
 */
export function normalize(shape: Shape, raw: unknown, parent: PathRef | null, step: string | number | null, errors: ErrorSink): unknown {
  if (raw === undefined || raw === null) {
    if (shape.optional) return defaultOf(shape);
    return fail(errors, parent, step, 'must not be null');
  }
  switch (shape.type) {
    case 'array': {
      if (!Array.isArray(raw)) return fail(errors, parent, step, `must be an array, got ${describe(raw)}`);
      const here = refTo(parent, step);
      const out = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) out[i] = normalize(shape.of, raw[i], here, i, errors);
      return out;
    }
    case 'object':
      if (!isPlainObject(raw)) return fail(errors, parent, step, `must be an object, got ${describe(raw)}`);
      return normalizeObject(shape, raw, refTo(parent, step), errors);
    case 'union': {
      if (!isPlainObject(raw)) return fail(errors, parent, step, `must be an object, got ${describe(raw)}`);
      const member = shape.pick(raw);
      if ('message' in member) return fail(errors, refTo(parent, step), member.field, member.message);
      return normalizeObject(member, raw, refTo(parent, step), errors);
    }
    default: {
      const value = normalizeScalar(shape, raw);
      return value instanceof Problem ? fail(errors, parent, step, value.message) : value;
    }
  }
}

class Problem {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

export function refTo(parent: PathRef | null, step: string | number | null): PathRef | null {
  return step === null ? parent : { parent, step };
}

function fail(errors: ErrorSink, parent: PathRef | null, step: string | number | null, message: string): null {
  errors.push({ path: pathText(refTo(parent, step)), message });
  return null;
}

function normalizeScalar(shape: StringShape | DecimalShape | IntegerShape | BooleanShape | EnumShape, raw: unknown): unknown {
  switch (shape.type) {
    case 'string': {
      if (typeof raw !== 'string') return new Problem(`must be a string, got ${describe(raw)}`);
      if (shape.nonEmpty && raw.length === 0) return new Problem('must not be empty');
      if (raw.length > MAX_STRING_LENGTH) return new Problem(`must be at most ${MAX_STRING_LENGTH} characters, got ${raw.length}`);
      if (shape.pattern && !shape.pattern.test(raw)) return new Problem(`${shape.patternMessage ?? 'is malformed'}, got ${JSON.stringify(raw)}`);
      const problem = shape.check?.(raw);
      return problem ? new Problem(problem) : raw;
    }
    case 'decimal': {
      if (!isJsonNumber(raw)) return new Problem(`must be a number, got ${describe(raw)}`);
      const reading = readDecimal(raw);
      if (!reading.ok) return new Problem(reading.message);
      const problem = shape.check?.(reading.value);
      return problem ? new Problem(problem) : canonicalDecimal(reading.value);
    }
    case 'integer': {
      if (!isJsonNumber(raw)) return new Problem(`must be a whole number, got ${describe(raw)}`);
      const reading = readDecimal(raw);
      if (!reading.ok) return new Problem(reading.message);
      if (!reading.value.isInteger()) return new Problem(`must be a whole number, got ${reading.value.toFixed()}`);
      const value = reading.value.toNumber();
      if (value < shape.min) return new Problem(`must be at least ${shape.min}, got ${value}`);
      return shape.max !== undefined && value > shape.max ? new Problem(`must be at most ${shape.max}, got ${reading.value.toFixed()}`) : value;
    }
    case 'boolean':
      return typeof raw === 'boolean' ? raw : new Problem(`must be true or false, got ${describe(raw)}`);
    case 'enum': {
      if (typeof raw === 'string' && shape.values.includes(raw)) return raw;
      const shown = typeof raw === 'string' ? JSON.stringify(raw) : describe(raw);
      return new Problem(`must be one of ${shape.values.map((v) => `"${v}"`).join(', ')}, got ${shown}`);
    }
  }
}

function normalizeObject(shape: ObjectShape, raw: Record<string, unknown>, here: PathRef | null, errors: ErrorSink) {
  const out: Record<string, unknown> = {};
  for (const key in raw) {
    if (Object.hasOwn(raw, key)) checkMemberName(shape, key, here, errors);
  }
  if (shape.derived) Object.assign(out, shape.derived);
  for (const [key, field] of fieldsOf(shape)) {
    const value = normalizeField(field, key, Object.hasOwn(raw, key) ? raw[key] : undefined, here, errors);
    // A field that files leave out while null is left out of the parsed record too (export does the same).
    if (!(field.omitWhenNull && value === null)) out[key] = value;
  }
  return out;
}

/** Reports a member name that `shape` does not have. */
export function checkMemberName(shape: ObjectShape, key: string, here: PathRef | null, errors: ErrorSink): void {
  if (Object.hasOwn(shape.fields, key)) return;
  const refusal = shape.refused && Object.hasOwn(shape.refused, key) ? shape.refused[key] : undefined;
  fail(errors, here, key, refusal ?? `unknown field "${key}"`);
}

/** One member of an object: a missing required member is reported, a missing optional one gets its default. */
export function normalizeField(field: Shape, key: string, value: unknown, here: PathRef | null, errors: ErrorSink): unknown {
  if (value === undefined && !field.optional) return fail(errors, here, key, `required field "${key}" is missing`);
  return normalize(field, value, here, key, errors);
}

// JSON.rawJSON (Node ≥ 21) writes a number's digits verbatim; TypeScript's lib lacks it.
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * Turns a parsed value back into a JSON-ready tree in the shape's key order, with decimal
 * strings as raw JSON numbers (exact digits) and derived members dropped.
 */
export function toJsonTree(shape: Shape, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (shape.type) {
    case 'decimal':
      return rawJSON(value as string);
    case 'array':
      return (value as unknown[]).map((element) => toJsonTree(shape.of, element));
    case 'object':
      return objectToJsonTree(shape, value as Record<string, unknown>);
    case 'union':
      return objectToJsonTree(shape.pickParsed(value as Record<string, unknown>), value as Record<string, unknown>);
    default:
      return value;
  }
}

function objectToJsonTree(shape: ObjectShape, value: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [key, field] of fieldsOf(shape)) {
    if (field.omitWhenNull && (value[key] === null || value[key] === undefined)) continue;
    if (field.omitWhenEmpty && Array.isArray(value[key]) && value[key].length === 0) continue;
    out[key] = toJsonTree(field, value[key]);
  }
  return out;
}
