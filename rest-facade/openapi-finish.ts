import type { ErrorCode } from '../src/kernel/domain-error.ts';
import { API_VERSION, buildProblem, STATUS_BY_CODE, type ProblemInput } from '../src/http/errors/problem.ts';
import { PAGE_LIMITS } from '../src/kernel/limits.ts';
import { conditionalGet, responseHeaders } from './openapi-headers.ts';

/**
 * The last step of building the OpenAPI document (@fastify/swagger's `transformObject`), written for
 * code generators (openapi-typescript, openapi-generator…). The route schemas stay what Fastify
 * validates and serializes with; only the document is reshaped here:
 *
 * - every schema with a `title` (resources and rows: `named()` in schema-helpers.ts), every route's
 *   `data`, body and envelope become named components referenced with `$ref` (`RawMaterial`,
 *   `ListRawMaterialsData`, `ListRawMaterialsResponse`, `UpdateRawMaterialBody`…); one name with two
 *   different shapes fails the boot;
 * - a parameter or body property with a `default` is optional for the client (Fastify fills the
 *   default in), though TypeBox lists it as required;
 * - a union of string literals is written as one `enum` (one TypeScript union, one validation message);
 * - a list query parameter is one value or an array of them (`anyOf`), as the server reads it;
 * - every success response has an example derived from its schema, every problem response one
 *   example per error code of its status (built with buildProblem from the code vocabulary);
 * - responses declare the headers the server sends: X-Request-Id, RateLimit-* (not on the public
 *   document route, which takes no key), Retry-After, Allow on 405;
 * - every GET of shop data (a secured GET) is a conditional GET (src/http/requests/conditional-get.ts): its
 *   If-None-Match parameter, ETag and Cache-Control on the 200, and the 304.
 */
type Json = Record<string, any>;

const SCHEMA_PREFIX = '#/components/schemas/';

/** Realistic `detail` (and extension members) of each error code's example. */
const PROBLEM_EXAMPLES: Record<ErrorCode, { summary: string; problem: Omit<ProblemInput, 'code'> }> = {
  INVALID_INPUT: {
    summary: 'A parameter or body field is invalid',
    problem: { detail: `pageSize: must be between 1 and ${PAGE_LIMITS.rows}`, errors: [{ field: 'pageSize', message: `must be between 1 and ${PAGE_LIMITS.rows}` }] },
  },
  UNAUTHENTICATED: {
    summary: 'No valid API key',
    problem: { detail: 'missing API key: send Authorization: Bearer <API key>' },
  },
  FORBIDDEN_SCOPE: {
    summary: 'The key lacks the scope',
    problem: { detail: 'this API key does not have the write scope' },
  },
  NOT_FOUND: {
    summary: 'Nothing with that id in this shop',
    problem: { detail: 'work order wo_3f1c2a9e-8d4b-4c1e-9a57-2b6f0e7d1c44 not found', missing: [{ kind: 'work order', id: 'wo_3f1c2a9e-8d4b-4c1e-9a57-2b6f0e7d1c44' }] },
  },
  METHOD_NOT_ALLOWED: { summary: 'A method this path does not have', problem: { detail: 'DELETE is not allowed here; use GET, PATCH' } },
  CONFLICT: {
    summary: 'Stale expectedUpdatedAt or a move that is not allowed',
    problem: {
      detail: 'the work order cannot move from draft to completed',
      blockers: [{ code: 'NOT_ALLOWED', message: 'draft → completed is not in the state table; read the work order, then send `direction: "forward"`' }],
    },
  },
  PAYLOAD_TOO_LARGE: { summary: 'Body over the limit', problem: { detail: 'the request body is over 1048576 bytes' } },
  UNSUPPORTED_MEDIA_TYPE: { summary: 'Not JSON', problem: { detail: 'send the body as Content-Type: application/json' } },
  PLAN_REQUIRED: {
    summary: 'The shop\'s plan does not include the operation',
    problem: { detail: 'starting a build run is an enhanced-plan operation; this shop is on the standard plan', plan: { required: 'enhanced', current: 'standard' } },
  },
  IDEMPOTENCY_KEY_REUSED: {
    summary: 'Idempotency-Key reused with another request',
    problem: { detail: 'the Idempotency-Key was used with another request in the last 24 h; use a new key for a new request' },
  },
  RATE_LIMITED: { summary: 'Over the rate limit', problem: { detail: 'rate limit exceeded: this request costs 1 token, the limit is 40 tokens (refilled over time); retry in 1 s' } },
  INTERNAL: { summary: 'Unexpected error', problem: { detail: 'unexpected error; report the request id' } },
  UNAVAILABLE: { summary: 'Temporarily unavailable', problem: { detail: 'the database is unreachable; retry after the Retry-After seconds' } },
};

const EXAMPLE_REQUEST_ID = 'req-4b8f2c1d9e7a';

/** Example values of response fields by property name (else derived from the type). */
const VALUE_HINTS: Record<string, unknown> = {
  variantId: '44012345678901', productId: '8012345678901', inventoryItemId: '46012345678901', productName: 'Oak plank',
  variantName: '2 m', sku: 'OAK-200', vendor: 'Nordic Timber', unit: 'pcs', specifications: 'FSC certified, 20 × 200 mm',
  imageUrl: 'https://cdn.example.com/oak-plank.jpg', bomId: 'BOM-1001', assemblyId: 'ASM-2001', assemblyName: 'Table frame',
  workOrderId: 'wo_3f1c2a9e-8d4b-4c1e-9a57-2b6f0e7d1c44', shortId: 'WO-0042', locationId: '101', locationName: 'Main warehouse',
  locationGid: 'gid://shopify/Location/101', assigneeId: 'asg_7d2e', assigneeName: 'Ada Lovelace', displayName: 'Ada Lovelace',
  orderId: '5550001', orderName: '#1001', requestId: EXAMPLE_REQUEST_ID, apiVersion: API_VERSION, buildRunId: 'run-2025-03-14-01',
  itemId: 'woi_1', name: 'Oak dining table', note: 'Second shift', title: 'Oak plank - 2 m', code: 'STOCK_SHORT',
  message: 'Oak plank is short by 4 at Main warehouse', remedy: 'Adjust the stock or pick another location', vendorFilter: 'Nordic Timber',
};
const DATE_TIME = '2025-03-14T09:30:00.000Z';

export function finishOpenApiDocument(input: Json): Json {
  const doc = structuredClone(input);
  const components: Json = (doc.components ??= {});
  const schemas: Json = (components.schemas ??= {});
  const named = (schema: Json, fallback: string): Json => hoist(schema, schemas, fallback);

  for (const name of Object.keys(schemas)) schemas[name] = mergeLiteralUnions(schemas[name]);
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = nameNested(schema as Json, schemas);

  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const base = pascal(operation.operationId);
      const keyed = operation.security?.length !== 0;
      if (method === 'get' && keyed) conditionalGet(operation);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.schema?.default !== undefined) parameter.required = false;
        // A list parameter is repeated (`ids=1&ids=2`); its items may also hold comma-separated values (src/http/requests/query-lists.ts).
        if (parameter.in === 'query' && parameter.schema?.type === 'array') {
          Object.assign(parameter, { style: 'form', explode: true });
          parameter.schema = oneOrMany(parameter.schema);
        }
        parameter.schema = mergeLiteralUnions(parameter.schema);
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body) body.schema = named(optionalDefaults(mergeLiteralUnions(body.schema)), `${base}Body`);
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (json) {
          const envelope = mergeLiteralUnions(json.schema);
          delete envelope.description;
          if (envelope.properties?.data) envelope.properties.data = named(envelope.properties.data, `${base}Data`);
          json.schema = named(envelope, `${base}Response`);
          json.example = exampleOf(json.schema, schemas);
        }
        const problem = response.content?.['application/problem+json'];
        if (problem) problem.examples = problemExamples(Number(status), components, operation['x-plan'] !== undefined);
        response.headers = { ...responseHeaders(Number(status), keyed, components), ...response.headers };
      }
    }
  }
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  doc.servers = (doc.servers ?? []).map((server: Json) => ({ 'x-internal': false, ...server }));
  return doc;
}

/**
 * A list parameter as a client may send it: one value (`status=draft`, or `status=draft,ready`) or
 * several (`status=draft&status=ready`). The server reads both alike (a single value is a list of
 * one), so the document says both: a generated client types it `string | string[]`, and a client
 * generated when the parameter was a single value (`status: 'draft'`) still compiles.
 */
function oneOrMany(list: Json): Json {
  const { items, ...array } = list;
  return { anyOf: [items, { ...array, items }] };
}

/** UpperCamelCase of an operationId (`listRawMaterials` → `ListRawMaterials`). */
function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

/** Replaces a schema by a `$ref` to the component of its title (or `fallback`), after naming what it nests. */
function hoist(schema: Json, schemas: Json, fallback: string): Json {
  if (schema.$ref) return schema;
  const inner = nameNested(schema, schemas);
  const name = typeof inner.title === 'string' ? inner.title : fallback;
  return register(name, inner.title === undefined ? { title: name, ...inner } : inner, schemas);
}

function register(name: string, schema: Json, schemas: Json): Json {
  const existing = schemas[name];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(schema)) {
    throw new Error(`OpenAPI component ${name} is declared with two different shapes: give one of them another title`);
  }
  schemas[name] = schema;
  return { $ref: `${SCHEMA_PREFIX}${name}` };
}

/** Names (hoists) every titled schema below `schema`, innermost first. */
function nameNested(schema: Json, schemas: Json): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Json = { ...schema };
  const visit = (child: Json): Json => {
    const inner = nameNested(child, schemas);
    return inner && typeof inner === 'object' && typeof inner.title === 'string' && !inner.$ref ? register(inner.title, inner, schemas) : inner;
  };
  if (out.properties) out.properties = Object.fromEntries(Object.entries<Json>(out.properties).map(([k, v]) => [k, visit(v)]));
  if (out.items && !Array.isArray(out.items)) out.items = visit(out.items);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(out[key])) out[key] = out[key].map(visit);
  return mergeLiteralUnions(out);
}

/** `anyOf` of single-value string enums (TypeBox unions of literals) → one `enum`, recursively. */
function mergeLiteralUnions(schema: Json): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Json = { ...schema };
  if (out.properties) out.properties = Object.fromEntries(Object.entries<Json>(out.properties).map(([k, v]) => [k, mergeLiteralUnions(v)]));
  if (out.items && !Array.isArray(out.items)) out.items = mergeLiteralUnions(out.items);
  if (Array.isArray(out.anyOf)) {
    out.anyOf = out.anyOf.map(mergeLiteralUnions);
    const literal = (m: Json) => Object.keys(m).every((k) => k === 'type' || k === 'enum') && Array.isArray(m.enum) && m.enum.length === 1;
    const strings = out.anyOf.filter((m: Json) => m.type === 'string' && literal(m));
    const nulls = out.anyOf.filter((m: Json) => m.type === 'null' && Object.keys(m).length === 1);
    if (strings.length > 0 && strings.length + nulls.length === out.anyOf.length) {
      delete out.anyOf;
      out.type = nulls.length > 0 ? ['string', 'null'] : 'string';
      out.enum = [...strings.map((m: Json) => m.enum[0]), ...(nulls.length > 0 ? [null] : [])];
    }
  }
  return out;
}

/** A body property with a default need not be sent. */
function optionalDefaults(schema: Json): Json {
  if (!Array.isArray(schema.required) || !schema.properties) return schema;
  const required = schema.required.filter((key: string) => schema.properties[key]?.default === undefined);
  return { ...schema, required };
}

/**
 * A value of `schema` for examples: its own example, default or first allowed value, else one built
 * from its type (every property, one array item). A component already being built on the way down
 * (a recursive tree) ends the branch: an empty array, null, or the property left out.
 */
export function exampleOf(schema: Json, schemas: Json, property?: string, within: readonly string[] = []): unknown {
  const value = example(schema, schemas, property, within);
  if (value === RECURSION) throw new Error(`the example of ${within.at(-1)} cannot stop its recursion`);
  return value;
}

const RECURSION = Symbol('recursion');

function example(schema: Json, schemas: Json, property: string | undefined, within: readonly string[]): unknown {
  if (schema.$ref) {
    const name = String(schema.$ref).slice(SCHEMA_PREFIX.length);
    if (within.includes(name)) return RECURSION;
    const target = schemas[name];
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return example(target, schemas, property, [...within, name]);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) {
    // The property's hint when the enum holds it (a warning's example code), else its first value.
    const hint = property === undefined ? undefined : VALUE_HINTS[property];
    return schema.enum.includes(hint) ? hint : (schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0]);
  }
  const members: Json[] | undefined = schema.anyOf ?? schema.oneOf;
  if (members) {
    for (const member of members.filter((m) => m.type !== 'null')) {
      const value = example(member, schemas, property, within);
      if (value !== RECURSION) return value;
    }
    return members.some((m) => m.type === 'null') ? null : RECURSION;
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? 'object' : 'string')];
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'null':
      return null;
    case 'object': {
      const required = new Set<string>(schema.required ?? []);
      const out: Json = {};
      for (const [key, value] of Object.entries<Json>(schema.properties ?? {})) {
        const v = example(value, schemas, key, within);
        if (v !== RECURSION) out[key] = v;
        else if (required.has(key)) return types.includes('null') ? null : RECURSION;
      }
      return out;
    }
    case 'array': {
      const item = schema.items ? example(schema.items, schemas, property, within) : RECURSION;
      if (item === RECURSION) return (schema.minItems ?? 0) > 0 ? RECURSION : [];
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'boolean':
      return false;
    case 'integer':
    case 'number': {
      const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
      const value = low !== undefined ? Math.max(low, type === 'integer' ? 1 : 2.5) : type === 'integer' ? 1 : 12.5;
      return schema.maximum !== undefined ? Math.min(value, schema.maximum) : value;
    }
    default: {
      if (schema.format === 'date-time') return DATE_TIME;
      if (schema.format === 'date') return DATE_TIME.slice(0, 10);
      const hint = property === undefined ? undefined : VALUE_HINTS[property];
      const text = typeof hint === 'string' ? hint : property ?? 'text';
      return schema.maxLength !== undefined ? text.slice(0, schema.maxLength) : text;
    }
  }
}

/**
 * One example per error code answering with `status`, registered once under components.examples;
 * PLAN_REQUIRED only on an operation that needs a plan (`planned`: it has `x-plan`).
 */
function problemExamples(status: number, components: Json, planned: boolean): Json {
  const examples: Json = (components.examples ??= {});
  const refs: Json = {};
  for (const [code, codeStatus] of Object.entries(STATUS_BY_CODE) as [ErrorCode, number][]) {
    if (codeStatus !== status || (code === 'PLAN_REQUIRED' && !planned)) continue;
    const { summary, problem } = PROBLEM_EXAMPLES[code];
    examples[code] ??= { summary, value: buildProblem(EXAMPLE_REQUEST_ID, { code, ...problem }) };
    refs[code] = { $ref: `#/components/examples/${code}` };
  }
  return refs;
}

/**
 * `schema` with every `#/components/schemas/…` reference replaced by the component itself, for tools
 * that read the document's schemas without resolving references (request bodies are not recursive;
 * a recursive component is refused rather than expanded forever).
 */
export function inlineSchemaRefs(schema: unknown, document: Json, within: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineSchemaRefs(s, document, within));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith(SCHEMA_PREFIX)) {
    const name = ref.slice(SCHEMA_PREFIX.length);
    if (within.includes(name)) throw new Error(`${name} is recursive: it cannot be inlined`);
    return inlineSchemaRefs(document.components?.schemas?.[name], document, [...within, name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineSchemaRefs(v, document, within)]));
}
