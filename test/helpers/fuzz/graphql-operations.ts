import fc from 'fast-check';
import {
  getNamedType, isEnumType, isInputObjectType, isLeafType, isListType, isNonNullType, isObjectType, isScalarType, isUnionType, isInterfaceType,
  type GraphQLArgument, type GraphQLField, type GraphQLInputType, type GraphQLNamedType, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import { encodeLoose } from './openapi-requests.ts';
import { anyJson, deepJson, deepJsonOf, nastyNumber, nastyString, RawJson, RawNumber, setOwn, toJsonText } from './values.ts';
import type { Hints } from './schema-values.ts';

export interface RootField { kind: 'query' | 'mutation'; name: string; field: GraphQLField<unknown, unknown> }

/** Every root field of the schema (Query and Mutation), `_entities` and `_service` included. */
export function rootFieldsOf(schema: GraphQLSchema): RootField[] {
  const out: RootField[] = [];
  for (const [kind, type] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) out.push({ kind, name: field.name, field });
  }
  return out;
}

/**
 * A selection of `type`: its leaf fields without required arguments, and at depth < 2 the leaves
 * of its object fields. Unions and interfaces get `__typename` and a fragment per member.
 */
export function selectionOf(type: GraphQLOutputType, depth = 0): string {
  const named: GraphQLNamedType = getNamedType(type);
  if (isLeafType(named)) return '';
  if (isUnionType(named) || isInterfaceType(named)) {
    const members = isUnionType(named) ? named.getTypes() : [];
    // Members share field names with other types (unitCost: Decimal! here, Decimal there): each member's fields under aliases of its own.
    return `{ __typename ${members.map((m) => aliasTopLevel(`... on ${m.name} ${selectionOf(m, depth + 1)}`, m.name)).join(' ')} }`;
  }
  if (!isObjectType(named)) return '';
  const parts: string[] = ['__typename'];
  for (const field of Object.values(named.getFields())) {
    if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
    const inner = getNamedType(field.type);
    if (isLeafType(inner)) parts.push(field.name);
    else if (depth < 1) parts.push(`${field.name} ${selectionOf(field.type, depth + 1)}`);
  }
  return `{ ${parts.join(' ')} }`;
}

/** `... on T { a b { c } }` → `... on T { T_a: a T_b: b { c } }`: aliases on the fragment's top-level fields. */
function aliasTopLevel(fragment: string, typeName: string): string {
  let depth = 0;
  return fragment.split(' ').map((token) => {
    if (token === '{') { depth++; return token; }
    if (token === '}') { depth--; return token; }
    return depth === 1 && /^[_A-Za-z][_0-9A-Za-z]*$/.test(token) && token !== '__typename' ? `${typeName}_${token}: ${token}` : token;
  }).join(' ');
}

const ENTITY_KEYS: Record<string, [string, readonly string[]]> = {
  RawMaterial: ['variantId', ['44001', 'VMAT-VAR-0001', 'VMAT-VAR-9999']],
  Bom: ['bomId', ['BOM-1001', 'BOM-9']],
  AssemblyBill: ['assemblyId', ['ASM-1', 'ASM-9']],
  WorkOrder: ['workOrderId', ['wo_a', 'wo_zzz']],
  Location: ['locationId', ['101', '999']],
  Order: ['orderId', ['5001', '9999']],
};

/** `_entities` representations: well-formed ones for every @key type, and malformed ones. */
const representation: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...Object.keys(ENTITY_KEYS)).chain((typename) => {
    const [key, ids] = ENTITY_KEYS[typename]!;
    return fc.oneof(fc.constantFrom(...ids), nastyString, nastyNumber).map((id) => ({ __typename: typename, [key]: id }));
  }) },
  { weight: 1, arbitrary: fc.oneof(fc.constant({}), fc.constant({ __typename: 'Nope', id: '1' }), fc.constant({ __typename: 'Bom' }), fc.constant({ __typename: 'Query' }),
    fc.constant({ __typename: 'Bom', bomId: 5 }), fc.constant({ __typename: `Nope${'x'.repeat(5000)}`, id: '1' }), anyJson) },
  // Nested too deep: the representation itself, or a field beside a valid key.
  { weight: 1, arbitrary: fc.oneof(deepJson, deepJson.map((deep) => ({ __typename: 'Bom', bomId: 'BOM-1001', extra: deep }))) },
);

/** A variable value of the right shape for `type` (hinted ids, boundary and adversarial values), sometimes the wrong shape. */
export function inputValue(type: GraphQLInputType, hints: Hints, name: string, hostile: boolean, depth = 0, required = false): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) {
    const inner = inputValue(type.ofType, hints, name, hostile, depth, true);
    return hostile ? fc.oneof({ weight: 15, arbitrary: inner }, { weight: 1, arbitrary: fc.constant(null) }) : inner;
  }
  const nullable = (arb: fc.Arbitrary<unknown>) => (required ? arb : hostile
    ? fc.oneof({ weight: 12, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: anyJson })
    : fc.oneof({ weight: 9, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }));
  // (required: a non-null position; the hostile runs put null there through the NonNull branch above.)
  if (isListType(type)) {
    const item = depth > 3 ? anyJson : inputValue(type.ofType, hints, name, hostile, depth + 1);
    return nullable(fc.oneof(
      { weight: 8, arbitrary: fc.array(item, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.tuple(item, fc.constantFrom(51, 101, 501, 1001, 10_000)).map(([v, n]) => Array.from({ length: n }, () => v)) },
    ));
  }
  if (isEnumType(type)) {
    const values = fc.constantFrom(...type.getValues().map((v) => v.name));
    return nullable(hostile ? fc.oneof({ weight: 6, arbitrary: values }, { weight: 1, arbitrary: nastyString }) : values);
  }
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).map((f) => fc.tuple(
      fc.constant(f.name), fc.integer({ min: 0, max: 9 }).map((r) => (isNonNullType(f.type) ? r < 9 || !hostile : r < 5)), inputValue(f.type, hints, f.name, hostile, depth + 1)));
    const extras = fc.oneof({ weight: 8, arbitrary: fc.constant([] as [string, unknown][]) },
      { weight: hostile ? 1 : 0, arbitrary: fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'unknownField'), anyJson), { maxLength: 2 }) });
    return nullable(fc.tuple(fc.tuple(...fields), extras).map(([chosen, extra]) => {
      const out: Record<string, unknown> = {};
      for (const [n, present, v] of chosen) if (present) setOwn(out, n, v);
      for (const [n, v] of extra) setOwn(out, n, v);
      return out;
    }));
  }
  if (isScalarType(type)) {
    const hinted = hints[name]?.filter((v) => typeof v === 'string') as string[] | undefined;
    const strings = fc.oneof(
      ...(hinted?.length ? [{ weight: 6, arbitrary: fc.constantFrom(...hinted) }] : []),
      { weight: 3, arbitrary: nastyString },
      { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
    );
    switch (type.name) {
      case '_Any': return representation;
      case 'String': case 'ID': return nullable(strings);
      case 'Int': return nullable(fc.oneof(fc.integer({ min: -2, max: 1002 }), fc.constantFrom(0, 1, 20, 50, 100, 1000, 2 ** 31 - 1, -(2 ** 31)), ...(hostile ? [nastyNumber] : [])));
      case 'Float': case 'Decimal': return nullable(fc.oneof(fc.integer({ min: -1000, max: 100_000 }).map((n) => n / 1000), fc.constantFrom(0, 1, 0.5, 0.000001, 1e15, -0.000001),
        ...(hostile ? [nastyNumber, nastyString, fc.double({ noNaN: true, noDefaultInfinity: true })] : [])));
      case 'Boolean': return nullable(fc.boolean());
      case 'DateTime': return nullable(fc.oneof({ weight: 6, arbitrary: fc.constantFrom('2026-11-02T10:00:00.000Z', '@fresh-updated-at', '@fresh-updated-at') },
        { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) }, ...(hostile ? [{ weight: 2, arbitrary: nastyString }] : [])));
      default: return nullable(fc.oneof(strings, nastyNumber, anyJson));
    }
  }
  return anyJson;
}

export interface GraphqlRequest {
  field: string;
  key: 'none' | 'bogus' | 'read' | 'write' | 'otherShop';
  /** The POST body, as raw text (it may hold RawNumbers or be no JSON at all); for a GET, the query string. */
  body: string;
  contentType: string;
  /** GET /graphql?query=…&variables=… (queries only); POST when absent. */
  method?: 'GET';
}

/** A GraphQL argument literal in the document (inline, instead of a variable): strings escaped as JSON, which GraphQL reads the same. */
function literal(value: unknown, type?: GraphQLInputType): string {
  const named = type ? getNamedType(type) : undefined;
  if (value === null || value === undefined) return 'null';
  if (value instanceof RawNumber) return value.text;
  if (value instanceof RawJson) return value.graphql;
  // An enum value is a bare name in a document (a quoted one is a validation error, which the hostile runs send on purpose as strings).
  if (typeof value === 'string') return named && isEnumType(named) && /^[_A-Za-z][_0-9A-Za-z]*$/.test(value) ? value : JSON.stringify(value);
  const itemType = type && isNonNullType(type) ? type.ofType : type;
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, itemType && isListType(itemType) ? itemType.ofType : undefined)).join(', ')}]`;
  if (typeof value === 'object') {
    const fields = named && isInputObjectType(named) ? named.getFields() : {};
    return `{${Object.entries(value).map(([k, v]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(k) ? k : 'bad_key'}: ${literal(v, fields[k]?.type)}`).join(', ')}}`;
  }
  return String(value);
}

/**
 * Operations over one root field: every argument as a variable or inline. Most runs are well-typed
 * (so they reach the resolvers, with boundary and adversarial strings and numbers of the right type);
 * the hostile ones also leave out required arguments and send values of the wrong shape.
 */
export function operationsFor(root: RootField, hints: Hints): fc.Arbitrary<GraphqlRequest> {
  return fc.oneof({ weight: 7, arbitrary: operationsOfKind(root, hints, false) }, { weight: 3, arbitrary: operationsOfKind(root, hints, true) });
}

function operationsOfKind(root: RootField, hints: Hints, hostile: boolean): fc.Arbitrary<GraphqlRequest> {
  const selection = selectionOf(root.field.type);
  const args = root.field.args.map((arg: GraphQLArgument) => fc.record({
    // A required argument is left out now and then only (that is one validation error, not worth many runs).
    mode: isNonNullType(arg.type) && arg.defaultValue === undefined
      ? fc.constantFrom<'variable' | 'inline' | 'omit'>(...Array<'variable'>(12).fill('variable'), 'inline', 'inline', 'inline', ...(hostile ? ['omit' as const] : []))
      : fc.constantFrom<'variable' | 'inline' | 'omit'>('variable', 'variable', 'variable', 'inline', 'omit'),
    value: inputValue(arg.type, hints, arg.name, hostile),
  }).map((choice) => ({ arg, ...choice })));
  const key = fc.oneof(
    { weight: 1, arbitrary: fc.constant<GraphqlRequest['key']>('none') }, { weight: 1, arbitrary: fc.constant<GraphqlRequest['key']>('bogus') },
    { weight: root.kind === 'mutation' ? 2 : 8, arbitrary: fc.constant<GraphqlRequest['key']>('read') },
    { weight: root.kind === 'mutation' ? 10 : 2, arbitrary: fc.constant<GraphqlRequest['key']>('write') },
    { weight: 1, arbitrary: fc.constant<GraphqlRequest['key']>('otherShop') },
  );
  return fc.tuple(fc.tuple(...args), key, fc.integer({ min: 1, max: 20 })).map(([chosen, k, aliasRoll]) => {
    const declared: string[] = [];
    const passed: string[] = [];
    const variables: Record<string, unknown> = {};
    for (const { arg, mode, value } of chosen) {
      if (mode === 'omit') continue;
      if (mode === 'inline') { passed.push(`${arg.name}: ${literal(value, arg.type)}`); continue; }
      declared.push(`$${arg.name}: ${String(arg.type)}`);
      passed.push(`${arg.name}: $${arg.name}`);
      setOwn(variables, arg.name, value);
    }
    const call = `${root.name}${passed.length ? `(${passed.join(', ')})` : ''} ${selection}`;
    // Now and then the same field twice under aliases (batching and deduplication paths).
    const body = aliasRoll === 1 ? `a1: ${call} a2: ${call}` : call;
    const query = `${root.kind}${declared.length ? `(${declared.join(', ')})` : ''} { ${body} }`;
    // Now and then a query over GET: its variables arrive as JSON text in the query string, not through the body parser.
    if (root.kind === 'query' && aliasRoll >= 19) {
      return { field: `${root.kind} ${root.name}`, key: k, method: 'GET' as const, contentType: 'application/json',
        body: `query=${encodeLoose(query)}&variables=${encodeLoose(toJsonText(variables))}` };
    }
    return { field: `${root.kind} ${root.name}`, key: k, body: toJsonText({ query, variables }), contentType: 'application/json' };
  });
}

/** Bodies that are no GraphQL request at all, or a hostile one. */
export const rawGraphqlBodies: fc.Arbitrary<GraphqlRequest> = fc.record({
  key: fc.constantFrom<GraphqlRequest['key']>('none', 'bogus', 'read', 'read', 'write'),
  body: fc.oneof(
    fc.constantFrom('', ' ', '{', '}', '[', '[]', '[{}]', 'null', 'true', '0', '-0', '1e400', '""', '"query"', '{"query":null}', '{"query":""}', '{"query":1}',
      '{"query":{}}', '{"query":[]}', '{"query":{"kind":"Document","definitions":[]}}', '{"query":{"kind":"Document","definitions":[{"kind":"OperationDefinition"}]}}',
      '{"query":"{ locations { locationId } }","variables":"x"}', '{"query":"{ locations { locationId } }","variables":[]}',
      '{"query":"{ locations { locationId } }","operationName":7}', '{"query":"{ locations { locationId } }","extensions":"x"}',
      '{"query":"{ locations { locationId } }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"abc"}}}',
      '{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"abc"}}}',
      '{"__proto__":{"query":"{ locations { locationId } }"}}', '{"constructor":{"prototype":{"query":"x"}}}',
      '{"query":"{ locations { locationId } }","__proto__":{"x":1}}', '{"query":"\\u0000"}', '{"query":"{ locations { locationId } } \\u0000"}',
      '{"query":"query { __schema { types { name } } }"}', '{"query":"{ __typename }"}', '{"query":"mutation { __typename }"}', '{"query":"subscription { x }"}',
      '{"query":"{ locations { locationId } }", "query":"{ x }"}', '{"query":"query A { __typename } query B { __typename }"}',
      '{"query":"query A { __typename } query B { __typename }","operationName":"C"}', '{"query":"{ ...F } fragment F on Query { ...F }"}',
      `{"query":"{ ${'locations { locationId } '.repeat(3)}"}`, `{"query":"${'{'.repeat(500)}"}`, `{"query":"{ locations { ${'locationId '.repeat(3000)}} }"}`,
      `[${Array.from({ length: 20 }, () => '{"query":"{ __typename }"}').join(',')}]`, `[${Array.from({ length: 200 }, () => '{"query":"{ __typename }"}').join(',')}]`,
      `{"query":"{ __typename }","variables":{"x":"${'x'.repeat(1_100_000)}"}}`, 'x'.repeat(2_000_000), `{"query":"{ __typename }","pad":"${'x'.repeat(900_000)}"}`,
      // Nested far too deep: the body, its variables, an _Any written inline (bounded by the token limit, not the parser's stack).
      deepJsonOf(8000, 'arrays').text, `{"query":"{ __typename }","variables":{"x":${deepJsonOf(8000, 'objects').text}}}`,
      `{"query":"query($r: [_Any!]!) { _entities(representations: $r) { __typename } }","variables":{"r":[${deepJsonOf(5000, 'mixed').text}]}}`,
      JSON.stringify({ query: `{ _entities(representations: [${deepJsonOf(40, 'mixed').graphql}]) { __typename } }` }),
      JSON.stringify({ query: `{ _entities(representations: [${deepJsonOf(2400, 'arrays').graphql}]) { __typename } }` })),
    deepJson.map((d) => toJsonText({ query: '{ __typename }', variables: { x: d } })),
    anyJson.map(toJsonText),
    nastyString.map((s) => toJsonText({ query: s })),
    nastyString,
  ),
  contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/graphql', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'),
}).map((r) => ({ field: 'raw body', ...r }));
