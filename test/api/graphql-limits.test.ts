import { readFileSync } from 'node:fs';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  getIntrospectionQuery, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, Kind, Lexer, parse, Source, TokenKind, typeFromAST,
  type GraphQLInputType, type GraphQLSchema, type NamedTypeNode, type OperationDefinitionNode,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-facade/routes/index.ts';
import { getSchema } from '../../schema/index.ts';
import { buildApp } from '../../src/app/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { measureOperation, operationCost } from '../../src/kernel/graphql-limits.ts';
import { LIST_LIMITS } from '../../src/kernel/limits.ts';
import { datasetJson, toDataset, workOrderJson } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { manyMaterials } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const defaults = loadConfig({}).graphql;

const post = (t: TestApp, key: string, payload: unknown) => t.request({ method: 'POST', url: '/graphql', key, payload: payload as Record<string, unknown> });

/**
 * `{ __type(name: "Query") { ofType { ofType { … name } } } }`, `depth` fields deep. `ofType` of an
 * object type is null, so the answer stays tiny however deep the document goes.
 */
function deepIntrospection(depth: number): string {
  const chain = depth - 2;
  return `{ __type(name: "Query") { ${'ofType { '.repeat(chain)}name${' }'.repeat(chain)} } }`;
}

function aliases(n: number): string {
  return Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ');
}

describe('X-Query-Count on /graphql', () => {
  let t: TestApp;
  let smallKey: string;
  let largeKey: string;
  beforeAll(async () => {
    t = await createTestApp();
    const small = uniqueShopId('gql-count-1');
    const large = uniqueShopId('gql-count-n');
    await t.load(toDataset(datasetJson(small)));
    // 44001 and 60 virtual materials (VMAT-VAR-0001 among them, the wick ASM-1 needs).
    const wax = (datasetJson(large).materials as object[])[0]!;
    await t.load(toDataset(datasetJson(large, { materials: [wax, ...manyMaterials(60)] })));
    smallKey = await t.createKey(small, ['read']);
    largeKey = await t.createKey(large, ['read']);
  });
  afterAll(() => t.close());

  it('reports the SQL statements of the operation, the same for a list of 2 materials and of 61', async () => {
    const query = '{ rawMaterials(pageSize: 100) { totalCount items { variantId productName sku } } }';
    const small = await post(t, smallKey, { query });
    const large = await post(t, largeKey, { query });
    expect(small.json().data.rawMaterials.totalCount).toBe(2);
    expect(large.json().data.rawMaterials.totalCount).toBe(61);
    const count = Number(small.headers['x-query-count']);
    expect(count).toBeGreaterThan(0);
    expect(Number(large.headers['x-query-count'])).toBe(count);
  });

  it('is absent when the app does not expose query counts (the default outside tests and benchmarks)', async () => {
    const quiet = await buildApp({ config: t.config, orm: t.orm, logger: false, exposeQueryCount: false });
    try {
      const res = await quiet.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${smallKey}` }, payload: { query: '{ locations { locationId } }' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-query-count']).toBeUndefined();
    } finally {
      await quiet.close();
    }
  });

  it('counts a refused request as 0 statements: nothing ran', async () => {
    const res = await post(t, smallKey, { query: '{ nope }' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-query-count']).toBe('0');
  });
});

describe('page sizes out of range are INVALID_INPUT naming the argument (the REST limits), not a clamp', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    const shop = uniqueShopId('gql-pages');
    await t.load(toDataset(datasetJson(shop, { workOrders: [workOrderJson('wo_1', 'draft', null)] })));
    key = await t.createKey(shop, ['read']);
  });
  afterAll(() => t.close());

  const cases: [string, string, string][] = [
    ['rawMaterials pageSize above 1000', '{ rawMaterials(pageSize: 5000) { totalCount } }', 'pageSize'],
    ['rawMaterials pageSize 0', '{ rawMaterials(pageSize: 0) { totalCount } }', 'pageSize'],
    ['rawMaterials page 0', '{ rawMaterials(page: 0) { totalCount } }', 'page'],
    ['boms pageSize above 1000', '{ boms(pageSize: 1001) { totalCount } }', 'pageSize'],
    ['boms page 0', '{ boms(page: 0) { totalCount } }', 'page'],
    ['workOrders pageSize above 100', '{ workOrders(pageSize: 101) { total } }', 'pageSize'],
    ['workOrders pageSize 0', '{ workOrders(pageSize: 0) { total } }', 'pageSize'],
    ['billVersions limit above 20', '{ billVersions(ownerType: bom, ownerId: "BOM-1001", limit: 21) { total } }', 'limit'],
    ['billVersions offset below 0', '{ billVersions(ownerType: bom, ownerId: "BOM-1001", offset: -1) { total } }', 'offset'],
  ];
  for (const [name, query, field] of cases) {
    it(`${name}: INVALID_INPUT with errors naming ${field}`, async () => {
      const res = await post(t, key, { query });
      const error = res.json().errors[0];
      expect(error.extensions.code).toBe('INVALID_INPUT');
      expect(error.extensions.errors).toEqual([{ field, message: expect.any(String) }]);
      expect(res.json().data).toBeNull();
    });
  }

  it('the largest page sizes REST allows are accepted (1000 materials, 1000 BOMs, 100 work orders)', async () => {
    const res = await post(t, key, { query: '{ rawMaterials(pageSize: 1000) { pageSize } boms(pageSize: 1000) { pageSize } workOrders(pageSize: 100) { pageSize } }' });
    expect(res.json()).toEqual({ data: { rawMaterials: { pageSize: 1000 }, boms: { pageSize: 1000 }, workOrders: { pageSize: 100 } } });
  });
});

describe('depth, alias, token and complexity limits (defaults)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    const shop = uniqueShopId('gql-limits');
    await t.load(toDataset(datasetJson(shop)));
    key = await t.createKey(shop, ['read']);
  });
  afterAll(() => t.close());

  it(`an operation ${defaults.maxDepth} fields deep runs; one field deeper is 400 GRAPHQL_QUERY_TOO_DEEP naming limit and depth`, async () => {
    const ok = await post(t, key, { query: deepIntrospection(defaults.maxDepth) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().errors).toBeUndefined();
    const res = await post(t, key, { query: deepIntrospection(defaults.maxDepth + 1) });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{
      message: `the operation is ${defaults.maxDepth + 1} fields deep; the limit is ${defaults.maxDepth}`,
      locations: [{ line: 1, column: 1 }],
      extensions: { code: 'GRAPHQL_QUERY_TOO_DEEP', limit: defaults.maxDepth, measured: defaults.maxDepth + 1 },
    }]);
  });

  it('depth counts the fields a fragment spread brings in', async () => {
    const query = `query Deep { ...F } fragment F on Query { ${deepIntrospection(defaults.maxDepth + 1).slice(1, -1)} }`;
    const res = await post(t, key, { query });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe('GRAPHQL_QUERY_TOO_DEEP');
  });

  it(`${defaults.maxAliases} aliases run; one more is 400 GRAPHQL_QUERY_TOO_MANY_ALIASES`, async () => {
    expect((await post(t, key, { query: `{ ${aliases(defaults.maxAliases)} }` })).json().data.a0).toBe('Query');
    const res = await post(t, key, { query: `{ ${aliases(defaults.maxAliases + 1)} }` });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      message: `the operation has ${defaults.maxAliases + 1} aliased fields; the limit is ${defaults.maxAliases}`,
      extensions: { code: 'GRAPHQL_QUERY_TOO_MANY_ALIASES', limit: defaults.maxAliases, measured: defaults.maxAliases + 1 },
    });
  });

  it('aliases in a fragment count once per spread', async () => {
    const half = Math.floor(defaults.maxAliases / 2) + 1;
    const res = await post(t, key, { query: `{ ...F ... on Query { ...F } } fragment F on Query { ${aliases(half)} }` });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions).toMatchObject({ code: 'GRAPHQL_QUERY_TOO_MANY_ALIASES', measured: half * 2 });
  });

  it(`a document of ${defaults.maxTokens} tokens runs; one token more is 400 GRAPHQL_QUERY_TOO_MANY_TOKENS, the parser stopping there`, async () => {
    // 12 tokens of syntax around the list: { orderBomBreakdowns ( ids : [ … ] ) { __typename } }
    const document = (ids: number) => `{ orderBomBreakdowns(ids: [${'"1" '.repeat(ids)}]) { __typename } }`;
    const fits = await post(t, key, { query: document(defaults.maxTokens - 12) });
    expect(fits.statusCode).toBe(200);
    // It ran: the service itself refuses that many orders.
    expect(fits.json().errors[0].extensions).toMatchObject({ code: 'INVALID_INPUT' });
    const res = await post(t, key, { query: document(defaults.maxTokens - 11) });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{
      message: `the document has more than ${defaults.maxTokens} tokens; the limit is ${defaults.maxTokens}`,
      locations: expect.any(Array),
      extensions: { code: 'GRAPHQL_QUERY_TOO_MANY_TOKENS', limit: defaults.maxTokens },
    }]);
  });

  it('the GraphiQL introspection query passes every default limit', async () => {
    const res = await post(t, key, { query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.__schema.queryType.name).toBe('Query');
  });
});

describe('complexity limit (BOMCORE_GRAPHQL_MAX_COMPLEXITY)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { graphql: { ...defaults, maxComplexity: 200 } } });
    const shop = uniqueShopId('gql-complex');
    await t.load(toDataset(datasetJson(shop)));
    key = await t.createKey(shop, ['read']);
  });
  afterAll(() => t.close());

  it('a page multiplies the cost of what it selects by its size: over the limit is 400 GRAPHQL_QUERY_TOO_COMPLEX, before any SQL runs', async () => {
    // rawMaterials (default page of 50 rows) 1 + 50, then 50 rows × (variantId + sku + vendor) and
    // (totalCount + items) × 5 = 51 + 5 × (1 + 1 + 10 × 3) = 211. Three runs: the first is
    // interpreted, the second compiled (graphql-jit), the third runs the compiled query.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const res = await post(t, key, { query: '{ rawMaterials { totalCount items { variantId sku vendor } } }' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        data: null,
        errors: [{ message: 'the operation costs 211; the limit is 200', extensions: { code: 'GRAPHQL_QUERY_TOO_COMPLEX', limit: 200, measured: 211 } }],
      });
      expect(res.headers['x-query-count']).toBe('0');
    }
  });

  it('an operation within the limit runs (161), and a smaller page costs less: pageSize 5 costs 6 + 0.5 × 32 = 22', async () => {
    const res = await post(t, key, { query: '{ rawMaterials { totalCount items { variantId sku } } }' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.rawMaterials.totalCount).toBe(2);
    const schema = getSchema();
    expect(operationCost(schema, parse('{ rawMaterials { totalCount items { variantId sku } } }'))).toBe(161);
    expect(operationCost(schema, parse('{ rawMaterials(pageSize: 5) { totalCount items { variantId sku vendor } } }'))).toBe(22);
  });

  it('the cost follows the page size a variable gives: pageSize 1000 is refused, 10 runs', async () => {
    const query = 'query P($n: Int) { rawMaterials(pageSize: $n) { items { variantId } } }';
    const refused = await post(t, key, { query, variables: { n: 1000 } });
    expect(refused.statusCode).toBe(400);
    // 1 + 1000, then 100 × (items 1 + 10 × 1)
    expect(refused.json().errors[0]).toMatchObject({ message: 'the operation costs 2101; the limit is 200', extensions: { code: 'GRAPHQL_QUERY_TOO_COMPLEX', measured: 2101, limit: 200 } });
    const ok = await post(t, key, { query, variables: { n: 10 } });
    expect(ok.statusCode).toBe(200);
  });

  it('REST routes are not held to it: their stored operations are fixed and fit the defaults (checked below)', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/raw-materials?pageSize=1000', key });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.items).toHaveLength(2);
  });

  it('two root fields over the limit give one error, not one per field', async () => {
    const res = await post(t, key, { query: '{ a: rawMaterials { items { variantId sku vendor } } b: rawMaterials { totalCount } }' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toHaveLength(1);
  });
});

describe('the complexity counts page sizes and ids, and multiplies what they select (issue 11)', () => {
  const schema = getSchema();
  const breakdownFields = readFileSync(new URL('../../rest-facade/routes/orders/breakdown-fields.graphql', import.meta.url), 'utf8');
  const ids = (n: number) => Array.from({ length: n }, (_, i) => String(1000 + i));
  /** `aliases` batches of orderBomBreakdowns, each with the REST route's selection, the ids in a variable. */
  const batches = (aliases: number) =>
    `query B($ids: [String!]!) { ${Array.from({ length: aliases }, (_, i) => `a${i}: orderBomBreakdowns(ids: $ids) { notFound items { ...BreakdownFields } }`).join(' ')} } ${breakdownFields}`;
  const restBatch = readFileSync(new URL('../../rest-facade/routes/orders/batch.graphql', import.meta.url), 'utf8') + breakdownFields;

  it('50 order ids cost 50 times one id (within 1%); N aliased batches cost N times one batch', () => {
    const one = operationCost(schema, parse(restBatch), { ids: ids(1) });
    const fifty = operationCost(schema, parse(restBatch), { ids: ids(50) });
    expect(fifty / one).toBeGreaterThan(49.5);
    expect(fifty / one).toBeLessThan(50.5);
    expect(operationCost(schema, parse(batches(30)), { ids: ids(50) })).toBeCloseTo(30 * fifty, 0);
  });

  it('a 1000-row page costs 20 times a 50-row page (within 1%), on offset and cursor lists alike', () => {
    for (const field of ['boms(pageSize: $n) { totalCount items { bomId name sku } }', 'bomConnection(first: $n) { totalCount nodes { bomId name sku } }']) {
      const document = parse(`query L($n: Int) { ${field} }`);
      const ratio = operationCost(schema, document, { n: 1000 }) / operationCost(schema, document, { n: 50 });
      expect(ratio).toBeGreaterThan(19.8);
      expect(ratio).toBeLessThan(20.2);
    }
  });

  it('a page size left out costs the default page (50 rows); `first` alone is not priced by the absent `last`', () => {
    const cost = (field: string) => operationCost(schema, parse(`{ ${field} { totalCount } }`));
    expect(cost('bomConnection')).toBe(cost('bomConnection(first: 50)'));
    expect(cost('bomConnection(first: 10)')).toBeLessThan(cost('bomConnection(first: 50)'));
    expect(cost('rawMaterials')).toBe(cost('rawMaterials(pageSize: 50)'));
    expect(cost('boms')).toBe(cost('boms(pageSize: 50)'));
  });

  it('every location id of locationIds costs 1', () => {
    const document = parse('query S($l: [ID!]) { rawMaterialInventory(variantId: "1", locationIds: $l) { __typename } }');
    expect(operationCost(schema, document, { l: ids(100) }) - operationCost(schema, document, { l: [] })).toBe(100);
  });

  describe('on /graphql, with the default limit', () => {
    let t: TestApp;
    let key: string;
    beforeAll(async () => {
      t = await createTestApp();
      const shop = uniqueShopId('gql-cost');
      await t.load(toDataset(datasetJson(shop)));
      key = await t.createKey(shop, ['read']);
    });
    afterAll(() => t.close());

    it(`the stall query (30 aliased breakdown batches of 50 orders) is 400 GRAPHQL_QUERY_TOO_COMPLEX stating its cost and the limit; no SQL runs`, async () => {
      const res = await post(t, key, { query: batches(30), variables: { ids: ids(50) } });
      expect(res.statusCode).toBe(400);
      const cost = Math.ceil(operationCost(schema, parse(batches(30)), { ids: ids(50) }));
      expect(cost).toBeGreaterThan(15 * defaults.maxComplexity);
      expect(res.json()).toEqual({
        data: null,
        errors: [{ message: `the operation costs ${cost}; the limit is ${defaults.maxComplexity}`, extensions: { code: 'GRAPHQL_QUERY_TOO_COMPLEX', limit: defaults.maxComplexity, measured: cost } }],
      });
      expect(res.headers['x-query-count']).toBe('0');
    });

    it('one batch of 50 orders (what one REST call asks for) runs', async () => {
      const res = await post(t, key, { query: batches(1), variables: { ids: ids(50) } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.a0.notFound).toHaveLength(50);
    });
  });
});

/**
 * Variables every stored operation can be measured with: the smallest value of each declared type,
 * but the largest page (1000 rows, the maximum of any REST list) and the longest lists (50 order
 * ids, 100 of any other id), so a route is measured at the most it can ask for.
 */
const MAX_PAGE = 1000;
const PAGE_VARIABLES = new Set(['pageSize', 'first', 'last', 'limit']);
function sampleValue(type: GraphQLInputType, name = ''): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType, name);
  if (isListType(type)) return Array.from({ length: name === 'ids' ? LIST_LIMITS.orderIds : LIST_LIMITS.ids }, () => sampleValue(type.ofType));
  if (PAGE_VARIABLES.has(name) && isScalarType(type) && type.name === 'Int') return MAX_PAGE;
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    return Object.fromEntries(Object.values(type.getFields()).filter((f) => isNonNullType(f.type)).map((f) => [f.name, sampleValue(f.type)]));
  }
  if (isScalarType(type)) {
    return ({ Int: 1, Float: 1, Boolean: true, DateTime: '2026-01-01T00:00:00.000Z', Decimal: '1' } as Record<string, unknown>)[type.name] ?? 'x';
  }
  return null;
}

function sampleVariables(schema: GraphQLSchema, operation: OperationDefinitionNode): Record<string, unknown> {
  return Object.fromEntries((operation.variableDefinitions ?? []).map((v) =>
    [v.variable.name.value, sampleValue(typeFromAST(schema, v.type as NamedTypeNode) as GraphQLInputType, v.variable.name.value)]));
}

function tokenCount(text: string): number {
  const lexer = new Lexer(new Source(text));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  return count;
}

describe('every stored REST operation passes the default limits', () => {
  const schema = getSchema();
  const stored = routes.map((route) => {
    const files = Array.isArray(route.operation) ? route.operation : [route.operation as URL];
    return { name: `${route.method} ${route.url}`, text: files.map((f: URL) => readFileSync(f, 'utf8')).join('\n') };
  });

  it('the facade has stored operations to check', () => {
    expect(stored.length).toBeGreaterThan(10);
  });

  for (const { name, text } of stored) {
    it(`${name}: tokens, depth, aliases and complexity within the defaults, at its largest page or id list`, () => {
      expect(tokenCount(text)).toBeLessThanOrEqual(defaults.maxTokens);
      const document = parse(text, { maxTokens: defaults.maxTokens });
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const shape = measureOperation(operation, document);
      expect(shape.depth).toBeLessThanOrEqual(defaults.maxDepth);
      expect(shape.aliases).toBeLessThanOrEqual(defaults.maxAliases);
      const { complexity } = complexityFromQuery(document, { schema, variables: sampleVariables(schema, operation) });
      expect(complexity).toBeLessThanOrEqual(defaults.maxComplexity);
    });
  }
});

describe('batched requests (an array body, BOMCORE_GRAPHQL_MAX_BATCH)', () => {
  let t: TestApp;
  let off: TestApp;
  let key: string;
  let offKey: string;
  beforeAll(async () => {
    t = await createTestApp();
    off = await createTestApp({ orm: t.orm, config: { graphql: { ...defaults, maxBatch: 0 } } });
    const shop = uniqueShopId('gql-batch');
    await t.load(toDataset(datasetJson(shop)));
    key = await t.createKey(shop, ['read']);
    offKey = await off.createKey(shop, ['read']);
  });
  afterAll(async () => {
    await off.close();
    await t.close();
  });

  it('an array of operations answers 200 with one result per operation, each with its own errors', async () => {
    const res = await post(t, key, [{ query: '{ locations { locationId } }' }, { query: '{ nope }' }]);
    expect(res.statusCode).toBe(200);
    const [first, second] = res.json();
    expect(first.data.locations.map((l: { locationId: string }) => l.locationId).sort()).toEqual(['101', '102', '103']);
    expect(second.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(Number(res.headers['x-query-count'])).toBeGreaterThan(0);
  });

  it(`more than ${defaults.maxBatch} operations is 400 BAD_REQUEST naming the maximum; nothing runs`, async () => {
    const res = await post(t, key, Array.from({ length: defaults.maxBatch + 1 }, () => ({ query: '{ locations { locationId } }' })));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      message: `a batch holds 1 to ${defaults.maxBatch} operations; this one has ${defaults.maxBatch + 1}`,
      extensions: { code: 'BAD_REQUEST' },
    });
    expect(res.headers['x-query-count']).toBeUndefined();
  });

  it('an empty batch is 400 BAD_REQUEST', async () => {
    const res = await post(t, key, []);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('an operation of a batch without a query string is 400 naming its position', async () => {
    const res = await post(t, key, [{ query: '{ __typename }' }, { variables: {} }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions).toEqual({ code: 'BAD_REQUEST', errors: [{ field: '[1].query', message: 'is required' }] });
  });

  it('with BOMCORE_GRAPHQL_MAX_BATCH=0 an array body is 400 BAD_REQUEST: batching is off', async () => {
    const res = await post(off, offKey, [{ query: '{ __typename }' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ message: expect.stringContaining('batched requests are turned off'), extensions: { code: 'BAD_REQUEST' } });
    expect((await post(off, offKey, { query: '{ __typename }' })).json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('introspection and GraphiQL, by configuration', () => {
  it('both are on by default, off under NODE_ENV=production, and each can be turned either way', () => {
    expect(loadConfig({}).graphql).toMatchObject({ introspection: true, graphiql: true });
    expect(loadConfig({ NODE_ENV: 'production' }).graphql).toMatchObject({ introspection: false, graphiql: false });
    expect(loadConfig({ NODE_ENV: 'production', BOMCORE_GRAPHQL_INTROSPECTION: '1', BOMCORE_GRAPHIQL: 'true' }).graphql)
      .toMatchObject({ introspection: true, graphiql: true });
    expect(loadConfig({ BOMCORE_GRAPHQL_INTROSPECTION: '0', BOMCORE_GRAPHIQL: 'off' }).graphql).toMatchObject({ introspection: false, graphiql: false });
    expect(() => loadConfig({ BOMCORE_GRAPHIQL: 'yes' })).toThrow(/BOMCORE_GRAPHIQL must be 1 or 0/);
  });

  it('the federation SDL (_service) is on by default, off under NODE_ENV=production unless BOMCORE_GRAPHQL_FEDERATION=1', () => {
    expect(loadConfig({}).graphql.federation).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).graphql.federation).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', BOMCORE_GRAPHQL_FEDERATION: '1' }).graphql.federation).toBe(true);
    expect(loadConfig({ BOMCORE_GRAPHQL_FEDERATION: 'off' }).graphql.federation).toBe(false);
  });

  it('the limits are read from the environment and checked', () => {
    const env = { BOMCORE_GRAPHQL_MAX_DEPTH: '7', BOMCORE_GRAPHQL_MAX_ALIASES: '0', BOMCORE_GRAPHQL_MAX_TOKENS: '900', BOMCORE_GRAPHQL_MAX_COMPLEXITY: '1200', BOMCORE_GRAPHQL_MAX_BATCH: '0' };
    expect(loadConfig(env).graphql).toMatchObject({ maxDepth: 7, maxAliases: 0, maxTokens: 900, maxComplexity: 1200, maxBatch: 0 });
    expect(() => loadConfig({ BOMCORE_GRAPHQL_MAX_DEPTH: '0' })).toThrow(/BOMCORE_GRAPHQL_MAX_DEPTH/);
    expect(() => loadConfig({ BOMCORE_GRAPHQL_MAX_BATCH: '-1' })).toThrow(/BOMCORE_GRAPHQL_MAX_BATCH/);
  });

  describe('turned off', () => {
    let t: TestApp;
    let key: string;
    beforeAll(async () => {
      t = await createTestApp({ config: { graphql: { ...defaults, introspection: false, graphiql: false } } });
      const shop = uniqueShopId('gql-prod');
      await t.load(toDataset(datasetJson(shop)));
      key = await t.createKey(shop, ['read']);
    });
    afterAll(() => t.close());

    it('__schema and __type are 400 GRAPHQL_VALIDATION_FAILED; __typename and the federation _service SDL still answer', async () => {
      for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
        const res = await post(t, key, { query });
        expect(res.statusCode).toBe(400);
        expect(res.json().errors[0]).toMatchObject({ message: expect.stringContaining('introspection has been disabled'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
      }
      const res = await post(t, key, { query: '{ __typename _service { sdl } }' });
      expect(res.statusCode).toBe(200);
      expect(res.json().data._service.sdl).toContain('type Query');
    });

    it('/graphiql is 404', async () => {
      expect((await t.request({ method: 'GET', url: '/graphiql' })).statusCode).toBe(404);
    });
  });

  describe('federation SDL turned off (BOMCORE_GRAPHQL_FEDERATION=0)', () => {
    let t: TestApp;
    let key: string;
    beforeAll(async () => {
      t = await createTestApp({ config: { graphql: { ...defaults, introspection: false, federation: false } } });
      const shop = uniqueShopId('gql-nofed');
      await t.load(toDataset(datasetJson(shop)));
      key = await t.createKey(shop, ['read']);
    });
    afterAll(() => t.close());

    it('_service { sdl } is 400 GRAPHQL_VALIDATION_FAILED naming the setting; the schema is not given away', async () => {
      for (const query of ['{ _service { sdl } }', '{ ... on Query { s: _service { sdl } } }', 'query { ...F } fragment F on Query { _service { sdl } }']) {
        const res = await post(t, key, { query });
        expect(res.statusCode).toBe(400);
        expect(res.json().errors[0]).toMatchObject({ message: expect.stringContaining('BOMCORE_GRAPHQL_FEDERATION=1'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
        expect(res.body).not.toContain('type Query');
      }
    });

    it('_entities (the shop\'s own data) and __typename still answer', async () => {
      const res = await post(t, key, { query: '{ __typename _entities(representations: [{ __typename: "Location", locationId: "101" }]) { __typename } }' });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.__typename).toBe('Query');
    });
  });

  describe('GraphiQL on', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ config: { graphql: { ...defaults, graphiql: true } } });
    });
    afterAll(() => t.close());

    it('/graphiql is an HTML page whose every script and style comes from this server, none from a CDN', async () => {
      const page = await t.request({ method: 'GET', url: '/graphiql' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body).toContain('/graphiql/static/ruru.js');
      expect(page.body).not.toMatch(/(src|href)=["']?https?:/i);
      expect(page.body).not.toContain('unpkg');
      expect(page.body).toContain('"endpoint": "/graphql"');
    });

    it('its assets are served under /graphiql/static/ without a key; an unknown asset is 404', async () => {
      const script = await t.request({ method: 'GET', url: '/graphiql/static/ruru.js' });
      expect(script.statusCode).toBe(200);
      expect(script.headers['content-type']).toContain('javascript');
      expect(script.body.length).toBeGreaterThan(1000);
      expect((await t.request({ method: 'GET', url: '/graphiql/static/nope.js' })).statusCode).toBe(404);
    });
  });
});
