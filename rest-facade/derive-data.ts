import type { TSchema } from '@sinclair/typebox';
import { decimalJson } from './schema-helpers.ts';

/** Turns a GraphQL value into its REST form at one position of a `data` schema. */
export type DataConverter = (value: unknown) => unknown;

/** The JSON-schema keywords the walker reads (TypeBox schemas are plain JSON schema). */
interface Node {
  type?: string | string[];
  const?: unknown;
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: unknown;
  items?: Node | Node[];
  anyOf?: Node[];
  $id?: string;
  $ref?: string;
}

// Keywords whose meaning the walker cannot honour: converting through them could drop or keep the
// wrong data, so such a schema fails the boot instead.
const UNSUPPORTED = ['allOf', 'oneOf', 'not', 'if', 'patternProperties', 'prefixItems'] as const;

const same: DataConverter = (value) => value;
const decimal: DataConverter = (value) => (typeof value === 'string' ? decimalJson(value) : value);

/**
 * Compiles, once at start-up, the converter from a GraphQL result to the REST `data` its schema
 * describes: a Decimal string at a number/integer position becomes a JSON number written from its
 * exact text, rounded half-up to 6 places (schema-helpers.ts decimalJson; the reply is written by
 * JSON.stringify, rest-facade/plugin.ts); an object keeps only its schema's properties, in schema order, omits an
 * optional one whose value is missing or null where null is not allowed, and refuses (an error, 500)
 * a required one that is missing; arrays map their items; a union converts with the member
 * matching the value; anything else (strings, booleans, literals, enums) passes through. `Type.Recursive` is followed; any
 * other `$ref` (Type.Ref) is refused: data schemas are self-contained.
 */
export function compileDataConverter(schema: TSchema, name = 'data'): DataConverter {
  return compile(schema as Node, new Map(), name);
}

function compile(node: Node, recursive: ReadonlyMap<string, DataConverter>, path: string): DataConverter {
  for (const keyword of UNSUPPORTED) {
    if (keyword in node) throw new Error(`${path}: "${keyword}" is not supported in a data schema`);
  }
  if (node.$ref !== undefined) {
    const target = recursive.get(node.$ref);
    if (!target) throw new Error(`${path}: $ref "${node.$ref}" is not an enclosing Type.Recursive (data schemas do not use Type.Ref)`);
    return target;
  }
  if (node.$id === undefined) return compileBody(node, recursive, path);
  // Registered before the body is compiled, so the body's self references (Type.Recursive) resolve.
  let body: DataConverter = same;
  const inner = new Map(recursive).set(node.$id, (value) => body(value));
  body = compileBody(node, inner, path);
  return body;
}

function compileBody(node: Node, recursive: ReadonlyMap<string, DataConverter>, path: string): DataConverter {
  if (node.anyOf) return union(node.anyOf, recursive, path);
  const types = typesOf(node);
  if (types.has('object')) return object(node, recursive, path);
  if (types.has('array')) {
    if (!node.items || Array.isArray(node.items)) throw new Error(`${path}: an array needs one items schema`);
    const item = compile(node.items, recursive, `${path}[]`);
    return item === same ? same : (value) => (Array.isArray(value) ? value.map(item) : value);
  }
  // A string position that also allows numbers keeps strings as they are.
  return types.has('number') && !types.has('string') ? decimal : same;
}

function object(node: Node, recursive: ReadonlyMap<string, DataConverter>, path: string): DataConverter {
  if (node.additionalProperties !== undefined && typeof node.additionalProperties !== 'boolean') {
    throw new Error(`${path}: additionalProperties schemas are not supported in a data schema`);
  }
  const required = new Set(node.required ?? []);
  const properties = Object.entries(node.properties ?? {}).map(([key, schema]) => ({
    key,
    convert: compile(schema, recursive, `${path}.${key}`),
    required: required.has(key),
    // Omitted rather than written as null: the property is optional and null is not one of its values.
    omitNull: !required.has(key) && !allowsNull(schema),
  }));
  const generic: DataConverter = (value) => {
    if (value === null || typeof value !== 'object') return value;
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const { key, convert, required, omitNull } of properties) {
      const v = source[key];
      if (v === undefined) {
        // What fast-json-stringify used to refuse: an answer without a property its schema requires.
        if (required) throw new Error(`${path}.${key} is required and missing from the answer`);
        continue;
      }
      if (v === null && omitNull) continue;
      out[key] = v === null ? null : convert(v);
    }
    return out;
  };
  return straightLine(properties, generic);
}

/**
 * The same conversion as `generic`, compiled to straight-line code for the common case: every
 * property present, none omitted. Named property reads and an object literal instead of a loop over
 * the keys (a large answer converts several times faster); any other value takes `generic`, which
 * omits, refuses and orders exactly as described above.
 */
function straightLine(properties: readonly { key: string; convert: DataConverter; omitNull: boolean }[], generic: DataConverter): DataConverter {
  // An object literal's "__proto__" sets the prototype instead of a property: such a schema keeps the loop.
  if (properties.length === 0 || properties.some(({ key }) => key === '__proto__')) return generic;
  const name = (i: number) => `v${i}`;
  const reads = properties.map(({ key }, i) => `const ${name(i)} = value[${JSON.stringify(key)}];`);
  const other = properties.map(({ omitNull }, i) => (omitNull ? `${name(i)} == null` : `${name(i)} === undefined`));
  const fields = properties.map(({ key, convert }, i) => `${JSON.stringify(key)}: ${convert === same ? name(i) : `${name(i)} === null ? null : convert[${i}](${name(i)})`}`);
  const body = [
    "if (value === null || typeof value !== 'object') return value;",
    ...reads,
    `if (${other.join(' || ')}) return generic(value);`,
    `return { ${fields.join(', ')} };`,
  ].join('\n');
  // Generated once at start-up from the schema's own keys, each written as a JSON string literal.
  return new Function('convert', 'generic', `return (value) => {\n${body}\n};`)(properties.map((p) => p.convert), generic) as DataConverter;
}

function union(members: Node[], recursive: ReadonlyMap<string, DataConverter>, path: string): DataConverter {
  const compiled = members.map((m, i) => ({ types: typesOf(m), convert: compile(m, recursive, `${path}|${i}`) }));
  const only = (type: string): DataConverter => {
    const matching = compiled.filter((m) => m.types.has(type) || m.types.has('any'));
    if (matching.length > 1 && matching.some((m) => m.convert !== same)) {
      throw new Error(`${path}: a union with several ${type} members cannot be converted (which one applies?)`);
    }
    return matching[0]?.convert ?? same;
  };
  const forObject = only('object');
  const forArray = only('array');
  const decimalStrings = compiled.some((m) => m.types.has('number')) && !compiled.some((m) => m.types.has('string') || m.types.has('any'));
  if (forObject === same && forArray === same && !decimalStrings) return same;
  return (value) => {
    if (value === null || typeof value !== 'object') return decimalStrings ? decimal(value) : value;
    return Array.isArray(value) ? forArray(value) : forObject(value);
  };
}

/** The JSON types a schema accepts ('integer' counted as 'number'; 'any' when it does not say). */
function typesOf(node: Node): Set<string> {
  if (node.anyOf) return new Set(node.anyOf.flatMap((m) => [...typesOf(m)]));
  if ('const' in node) return new Set([node.const === null ? 'null' : typeof node.const]);
  if (node.$ref !== undefined) return new Set(['object']);
  if (node.type === undefined) return new Set(node.properties ? ['object'] : ['any']);
  const list = Array.isArray(node.type) ? node.type : [node.type];
  return new Set(list.map((t) => (t === 'integer' ? 'number' : t)));
}

function allowsNull(node: Node): boolean {
  const types = typesOf(node);
  return types.has('null') || types.has('any');
}
