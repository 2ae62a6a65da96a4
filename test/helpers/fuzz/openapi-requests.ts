import fc from 'fast-check';
import { anyJson, deepJson, deepJsonOf, nastyString, setOwn, toJsonText } from './values.ts';
import { inlineSchemaRefs } from '../../../rest-facade/openapi-finish.ts';
import { objectFor, valueFor, type Hints, type JsonSchema } from './schema-values.ts';

interface Parameter { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: JsonSchema }
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
  security?: unknown[];
}
export interface OpenApiDocument { paths: Record<string, Record<string, Operation>> }

/** Which key a fuzzed request carries. */
export type KeyKind = 'none' | 'bogus' | 'read' | 'write' | 'otherShop';

export interface FuzzRequest {
  /** `METHOD /template`, the operation the request was generated for. */
  op: string;
  method: string;
  url: string;
  key: KeyKind;
  headers: Record<string, string>;
  payload?: string;
}

export interface DocumentOperation { method: string; path: string; operation: Operation; id: string }

/**
 * Every operation of the document, as `METHOD /path`, with the `$ref`s of its parameters and body
 * inlined (the generators read plain schemas). A new route is fuzzed without touching the fuzzer.
 */
export function operationsOf(doc: OpenApiDocument): DocumentOperation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({
      method: method.toUpperCase(), path, id: `${method.toUpperCase()} ${path}`,
      // Only what a request is made of (responses may be recursive, e.g. a BOM tree).
      operation: { ...operation, ...inlineSchemaRefs({ parameters: operation.parameters, requestBody: operation.requestBody }, doc as never) as Operation },
    })));
}

/**
 * encodeURIComponent that does not throw on a lone surrogate: it is sent as the bytes a careless
 * encoder writes for it (CESU/WTF-8), which is not valid UTF-8 — exactly what the server must survive.
 */
export function encodeLoose(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text].map((ch) => {
      const unit = ch.charCodeAt(0);
      if (ch.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
        return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      }
      return encodeURIComponent(ch);
    }).join('');
  }
}

/** A path segment: URL-encoded as a client library would, or raw (a stray `%`, an encoded NUL, dots). */
const pathSegment = (value: fc.Arbitrary<unknown>): fc.Arbitrary<string> => fc.oneof(
  { weight: 8, arbitrary: value.map((v) => encodeLoose(typeof v === 'string' ? v : toJsonText(v))) },
  { weight: 1, arbitrary: fc.constantFrom('%00', '%', '%zz', '..', '.', '%2F', '%2e%2e', 'a%00b', '%C0%80', '%FF', '%E2%80%AE', ';', '~', '%20') },
);

const queryText = (v: unknown): string => (typeof v === 'string' ? v : toJsonText(v));

/** One query parameter as `name=value` pairs: absent, once, repeated (arrays, or a duplicated scalar), or raw. */
function queryPairs(param: Parameter, hints: Hints): fc.Arbitrary<string[]> {
  const value = param.schema.type === 'array' ? valueFor(param.schema.items ?? {}, hints, param.name) : valueFor(param.schema, hints, param.name);
  const enc = (v: unknown) => `${encodeLoose(param.name)}=${encodeLoose(queryText(v))}`;
  const options: fc.WeightedArbitrary<string[]>[] = [
    { weight: param.required ? 1 : 4, arbitrary: fc.constant([]) },
    { weight: 8, arbitrary: value.map((v) => [enc(v)]) },
    { weight: param.schema.type === 'array' ? 4 : 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 4 }).map((vs) => vs.map(enc)) },
    { weight: 1, arbitrary: fc.constantFrom(`${param.name}`, `${param.name}=`, `${param.name}=%00`, `${param.name}=%`, `${param.name}[]=1`, `${param.name}[a]=1`).map((s) => [s]) },
    // Nesting in a query string: bracket keys (qs-style objects) and a value of deeply nested JSON text.
    { weight: 1, arbitrary: fc.constantFrom(33, 1000).chain((depth) => fc.constantFrom(
      `${param.name}${'[a]'.repeat(depth)}=1`, `${param.name}${'[]'.repeat(depth)}=1`, `${param.name}=${encodeLoose(deepJsonOf(depth, 'mixed').text)}`,
    )).map((s) => [s]) },
  ];
  if (param.schema.type === 'array') options.push({ weight: 1, arbitrary: fc.constantFrom(101, 1001, 5000).map((n) => Array.from({ length: n }, (_, i) => enc(String(i)))) });
  return fc.oneof(...options);
}

/** The body: the schema's object (valid or boundary), any JSON at all, malformed text, or another media type. */
function bodyFor(operation: Operation, hints: Hints): fc.Arbitrary<{ payload?: string; contentType?: string }> {
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema) return fc.oneof({ weight: 9, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: anyJson.map((v) => ({ payload: toJsonText(v), contentType: 'application/json' })) });
  const json = (text: string) => ({ payload: text, contentType: 'application/json' });
  return fc.oneof(
    { weight: 12, arbitrary: objectFor(schema, hints).map((o) => json(toJsonText(o))) },
    { weight: 1, arbitrary: anyJson.map((v) => json(toJsonText(v))) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":', 'null', '[]', '""', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}',
      '{"a":1,"a":2}', '\u0000', '{"updates":[{"locationId":"101","delta":1}]', 'x'.repeat(2_000_000)).map(json) },
    // The body nested too deep: the whole of it, or one field (known or not) of an otherwise valid body.
    { weight: 1, arbitrary: deepJson.map((d) => json(d.text)) },
    { weight: 1, arbitrary: fc.tuple(objectFor(schema, hints), deepJson, fc.constantFrom(...Object.keys(schema.properties ?? {}), 'note'))
      .map(([body, deep, field]) => { setOwn(body, field, deep); return json(toJsonText(body)); }) },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/json-patch+json', 'multipart/form-data')
      .chain((contentType) => objectFor(schema, hints).map((o) => ({ payload: toJsonText(o), contentType }))) },
  );
}

const WRITE_METHODS = new Set(['PATCH', 'POST', 'PUT', 'DELETE']);

/** Requests for one operation of the document. */
export function requestsFor(op: DocumentOperation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const params = op.operation.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const write = WRITE_METHODS.has(op.method);
  const key = fc.oneof(
    { weight: 1, arbitrary: fc.constant<KeyKind>('none') },
    { weight: 1, arbitrary: fc.constant<KeyKind>('bogus') },
    { weight: write ? 2 : 8, arbitrary: fc.constant<KeyKind>('read') },
    { weight: write ? 10 : 2, arbitrary: fc.constant<KeyKind>('write') },
    { weight: 1, arbitrary: fc.constant<KeyKind>('otherShop') },
  );
  const path = fc.tuple(...pathParams.map((p) => pathSegment(valueFor(p.schema, hints, p.name)).map((v) => [p.name, v] as const)))
    .map((pairs) => pairs.reduce((url, [name, value]) => url.replace(`{${name}}`, value), op.path));
  const query = fc.tuple(
    fc.tuple(...queryParams.map((p) => queryPairs(p, hints))),
    fc.oneof({ weight: 12, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: nastyString.map((s) => [`${encodeLoose(s || 'x')}=1`]) }),
  ).map(([pairs, extra]) => [...pairs.flat(), ...extra].join('&'));
  return fc.record({ path, query, key, body: bodyFor(op.operation, hints), requestId: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: nastyString }) })
    .map(({ path: p, query: q, key: k, body, requestId }) => {
      const headers: Record<string, string> = {};
      if (body.contentType) headers['content-type'] = body.contentType;
      // A header value cannot hold control characters at all: such a request never leaves a client.
      if (requestId !== undefined && /^[\x20-\x7e]*$/.test(requestId)) headers['x-request-id'] = requestId;
      return { op: op.id, method: op.method, url: q ? `${p}?${q}` : p, key: k, headers, ...(body.payload !== undefined ? { payload: body.payload } : {}) };
    });
}

/** A request as a one-line reproduction (`curl`-like), long bodies summarised. */
export function describeRequest(r: FuzzRequest): string {
  const body = r.payload === undefined ? '' : ` body=${r.payload.length > 3000 ? `${r.payload.slice(0, 1500)}… (${r.payload.length} chars)` : r.payload}`;
  const url = r.url.length > 400 ? `${r.url.slice(0, 300)}… (${r.url.length} chars)` : r.url;
  return `${r.method} ${url} key=${r.key} headers=${JSON.stringify(r.headers)}${body}`;
}
