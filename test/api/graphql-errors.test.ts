import { Writable } from 'node:stream';
import { parse } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app/app.ts';
import { LocalPlatformGateway } from '../../src/platform/local-gateway.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

interface LogLine { level: number; msg: string; err?: { message: string } }
const ERROR = 50;
const INFO = 30;

/**
 * The app under test logs into `lines` (debug and up): the rules say which errors are logged at
 * which level. It shares the test app's database, fixtures and keys.
 */
let t: TestApp;
let app: App;
const lines: LogLine[] = [];
let readKey: string;
let writeKey: string;
let otherKey: string;
let brokenKey: string;
// A shop whose platform adapter fails with a plain Error: a failure the service does not anticipate.
const broken = uniqueShopId('gql-errors-broken');

beforeAll(async () => {
  t = await createTestApp();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const platform = (shop: { shopId: string; em: ConstructorParameters<typeof LocalPlatformGateway>[0]['em'] }) => {
    const gateway = new LocalPlatformGateway(shop);
    if (shop.shopId === broken) gateway.listLocations = () => Promise.reject(new Error('platform adapter bug'));
    return gateway;
  };
  app = await buildApp({ config: t.config, orm: t.orm, platform, logger: { level: 'debug', stream }, exposeQueryCount: true });
  await app.ready();
  const shop = uniqueShopId('gql-errors');
  const other = uniqueShopId('gql-errors-other');
  await t.load(toDataset(workOrderShop(shop, [workOrder('wo_empty_draft', 'draft', { items: [] })])));
  const base = datasetJson(other);
  await t.load(toDataset(datasetJson(other, {
    materials: [...(base.materials as object[]), {
      variantId: 'VMAT-VAR-0777', productId: 'VMAT-PROD-0777', inventoryItemId: 'VMAT-INV-0777', productName: 'Other shop only', variantName: null,
      sku: 'OTHER-1', vendor: null, unit: 'pcs', unitCost: 1, unitPrice: 0, levels: [],
    }],
  })));
  readKey = await t.createKey(shop, ['read']);
  writeKey = await t.createKey(shop, ['read', 'write']);
  otherKey = await t.createKey(other, ['read']);
  await t.load(toDataset(datasetJson(broken)));
  brokenKey = await t.createKey(broken, ['read']);
});
afterAll(async () => {
  await app.close();
  await t.close();
});
beforeEach(() => {
  lines.length = 0;
});

function send(payload: unknown, key: string | null = readKey, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST', url: '/graphql', payload: payload as string,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
}

const errorLines = () => lines.filter((l) => l.level >= ERROR);

describe('syntax and validation errors keep their message, carry a standard code, answer 400 and log below error', () => {
  it('a syntax error is GRAPHQL_PARSE_FAILED with the parser message and its location', async () => {
    const res = await send({ query: '{ locations { locationId }' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      data: null,
      errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 27 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
    });
    expect(errorLines()).toEqual([]);
    expect(lines.some((l) => l.level === INFO && l.msg === 'graphql request refused')).toBe(true);
  });

  const invalid: [string, string, Record<string, unknown> | undefined, RegExp][] = [
    ['an unknown field', '{ nope }', undefined, /^Cannot query field "nope" on type "Query"\.$/],
    ['a value outside an enum', '{ rawMaterials(sortOrder: SIDEWAYS) { totalCount } }', undefined, /SIDEWAYS/],
    ['a missing required argument', '{ rawMaterial { variantId } }', undefined, /argument "variantId" of type "ID!" is required/],
    ['a variable of the wrong type', 'query ($size: Int) { rawMaterials(pageSize: $size) { totalCount } }', { size: 'many' }, /\$size.*Int cannot represent/],
    ['a required variable left out', 'query ($id: ID!) { rawMaterial(variantId: $id) { variantId } }', {}, /\$id.*was not provided/],
  ];
  for (const [name, query, variables, message] of invalid) {
    it(`${name} is GRAPHQL_VALIDATION_FAILED with graphql's message, the same on every repeat (first run, compiled run, cached run)`, async () => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const res = await send({ query, ...(variables ? { variables } : {}) });
        expect(res.statusCode).toBe(400);
        const body = res.json();
        expect(body.data).toBeNull();
        expect(body.errors).toHaveLength(1);
        expect(body.errors[0].message).toMatch(message);
        expect(body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
      }
      expect(errorLines()).toEqual([]);
    });
  }
});

describe('domain errors carry the code and the details REST gives', () => {
  it('NOT_FOUND names what is missing in extensions.missing', async () => {
    const res = await send({ query: '{ rawMaterial(variantId: "NOPE-1") { variantId } }' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: null,
      errors: [{
        message: expect.stringContaining('NOPE-1'), locations: [{ line: 1, column: 3 }], path: ['rawMaterial'],
        extensions: { code: 'NOT_FOUND', missing: [{ kind: expect.any(String), id: 'NOPE-1' }] },
      }],
    });
    expect(errorLines()).toEqual([]);
  });

  it('a key of one shop does not see another shop\'s material: NOT_FOUND, while the owner reads it', async () => {
    const query = '{ rawMaterial(variantId: "VMAT-VAR-0777") { productName } }';
    expect((await send({ query })).json().errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await send({ query }, otherKey)).json()).toEqual({ data: { rawMaterial: { productName: 'Other shop only' } } });
  });

  it('INVALID_INPUT carries the field errors in extensions.errors', async () => {
    const res = await send({ query: '{ rawMaterials(pageSize: 0) { totalCount } }' });
    expect(res.json().errors[0].extensions).toEqual({ code: 'INVALID_INPUT', errors: [{ field: 'pageSize', message: 'must be between 1 and 1000' }] });
  });

  it('a refused work-order transition is not an error: a CONFLICT user error in the payload carries its blockers', async () => {
    const res = await send({
      query: `mutation ($at: DateTime!) { transitionWorkOrder(workOrderId: "wo_empty_draft", expectedUpdatedAt: $at, to: ready) { workOrderTransition { status } ${USER_ERRORS} } }`,
      variables: { at: T0 },
    }, writeKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { transitionWorkOrder: { workOrderTransition: null, userErrors: [{
      code: 'CONFLICT', message: expect.stringContaining('NO_ITEMS'), field: null, errors: [], blockers: [{ code: 'NO_ITEMS', message: expect.any(String) }], missing: [],
    }] } } });
    expect(errorLines()).toEqual([]);
  });

  it('a read key on a mutation is a FORBIDDEN_SCOPE error, not a user error: the field is null', async () => {
    const res = await send({
      query: `mutation ($at: DateTime!) { transitionWorkOrder(workOrderId: "wo_empty_draft", expectedUpdatedAt: $at, to: ready) { workOrderTransition { status } ${USER_ERRORS} } }`,
      variables: { at: T0 },
    });
    expect(res.json().data).toEqual({ transitionWorkOrder: null });
    expect(res.json().errors[0].extensions).toEqual({ code: 'FORBIDDEN_SCOPE' });
  });

  it('rule: an unknown sort key (an enum value) is refused naming every allowed key, as a literal and as a variable', async () => {
    const literal = await send({ query: '{ boms(sortBy: bogus) { totalCount } }' });
    expect(literal.statusCode).toBe(400);
    expect(literal.json().errors[0]).toMatchObject({
      message: 'Value "bogus" does not exist in "BomSort" enum. Did you mean the enum value "bomId"? Allowed values of BomSort: bomId, name, price, sku, status, totalCost.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const variable = await send({ query: 'query ($s: WorkOrderSort) { workOrders(sortBy: $s, pageSize: 1) { total } }', variables: { s: 'bogus' } });
    expect(variable.statusCode).toBe(400);
    expect(variable.json().errors[0].message).toMatch(/Allowed values of WorkOrderSort: .*priority.*updatedAt/);
  });

  it('rule: the scope error names the scope the field needs, as REST\'s 403 does ("write" for a mutation)', async () => {
    const res = await send({
      query: `mutation ($at: DateTime!) { transitionWorkOrder(workOrderId: "wo_empty_draft", expectedUpdatedAt: $at, to: ready) { workOrderTransition { status } ${USER_ERRORS} } }`,
      variables: { at: T0 },
    });
    expect(res.json().errors[0].message).toBe('Mutation.transitionWorkOrder needs the "write" scope, which the API key lacks');
  });
});

describe('malformed bodies with a valid key are 400, never 500, and log no error', () => {
  it('a body that is not JSON is 400 INVALID_INPUT problem+json, as on REST', async () => {
    const res = await send('{"query": ', readKey, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'body', message: expect.stringMatching(/^is not valid JSON/) }] });
    expect(res.json().detail).toBe(`body: ${res.json().errors[0].message}`);
    expect(errorLines()).toEqual([]);
  });

  it('a body with a __proto__ key is 400 INVALID_INPUT problem+json, as on REST', async () => {
    const res = await send('{"query": "{ __typename }", "__proto__": { "polluted": true }}', readKey, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_INPUT');
    expect(errorLines()).toEqual([]);
  });

  it('a body of another media type is 415 UNSUPPORTED_MEDIA_TYPE problem+json, as on REST', async () => {
    const res = await send('{ __typename }', readKey, { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(errorLines()).toEqual([]);
  });

  it('a body of type application/graphql is the document itself', async () => {
    const res = await send('{ __typename }', readKey, { 'content-type': 'application/graphql' });
    expect(res.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('without a key, a body that is not JSON is 401: who is asking comes first', async () => {
    const res = await send('{"query": ', null, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHENTICATED');
    expect(errorLines()).toEqual([]);
  });

  const shapes: [string, unknown, { field: string; message: string }][] = [
    ['no query', {}, { field: 'query', message: 'is required' }],
    ['an empty query', { query: '' }, { field: 'query', message: 'is required' }],
    ['a query that is not a string', { query: 5 }, { field: 'query', message: 'must be a string (the GraphQL document)' }],
    ['a query that is an object', { query: { kind: 'Document', definitions: [] } }, { field: 'query', message: 'must be a string (the GraphQL document)' }],
    ['variables that are a string', { query: '{ __typename }', variables: 'x' }, { field: 'variables', message: 'must be an object' }],
    ['variables that are an array', { query: '{ __typename }', variables: [1] }, { field: 'variables', message: 'must be an object' }],
    ['an operationName that is not a string', { query: '{ __typename }', operationName: 7 }, { field: 'operationName', message: 'must be a string' }],
    ['a JSON string body', 'just text', { field: 'body', message: 'must be a JSON object with a `query` string' }],
    ['a JSON null body', null, { field: 'body', message: 'must be a JSON object with a `query` string' }],
  ];
  for (const [name, body, problem] of shapes) {
    it(`${name} is 400 BAD_REQUEST naming the field`, async () => {
      const res = await send(JSON.stringify(body), readKey, { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ data: null, errors: [{ message: `${problem.field}: ${problem.message}`, extensions: { code: 'BAD_REQUEST', errors: [problem] } }] });
      expect(errorLines()).toEqual([]);
    });
  }

  // Mercurius reads a query that does not parse as a JSON-encoded AST; a malformed one used to crash validation.
  for (const query of ['{}', 'null', '123', '[]', JSON.stringify(parse('{ __typename }'))]) {
    it(`a query that is JSON text (${query.slice(0, 20)}) is 400 GRAPHQL_PARSE_FAILED, not read as an AST`, async () => {
      const res = await send({ query });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
      expect(res.json().errors[0].message).toMatch(/^Syntax Error/);
      expect(errorLines()).toEqual([]);
    });
  }

  it('GET runs queries; a mutation over GET is 405; a GET without query or with variables that are not JSON is 400', async () => {
    const get = (qs: string) => app.inject({ method: 'GET', url: `/graphql?${qs}`, headers: { authorization: `Bearer ${readKey}` } });
    expect((await get('query={__typename}')).json()).toEqual({ data: { __typename: 'Query' } });
    const mutation = await get(`query=${encodeURIComponent(`mutation { transitionWorkOrder(workOrderId: "x", expectedUpdatedAt: "2026-01-01T00:00:00Z", to: ready) { workOrderTransition { status } ${USER_ERRORS} } }`)}`);
    expect(mutation.statusCode).toBe(405);
    expect(mutation.json().errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
    const none = await get('');
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].extensions.code).toBe('BAD_REQUEST');
    const badVariables = await get('query={__typename}&variables={oops');
    expect(badVariables.statusCode).toBe(400);
    expect(badVariables.json().errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', errors: [{ field: 'variables', message: 'must be JSON' }] });
    expect(errorLines()).toEqual([]);
  });
});

describe('variables that do not coerce', () => {
  it('a variable a custom scalar refuses is 400 GRAPHQL_VALIDATION_FAILED with the scalar\'s reason on every send, the JIT-compiled ones too', async () => {
    const query = `mutation($d: Decimal!) { addReworkItem(workOrderId: "wo_empty_draft", expectedUpdatedAt: "2026-11-02T10:00:00.000Z", description: "d", quantity: $d) { workOrderRecordWrite { recordId } ${USER_ERRORS} } }`;
    // mercurius compiles an operation after its first run (jit: 1): sends 2 and 3 take the compiled path.
    for (let send_ = 0; send_ < 3; send_++) {
      const res = await send({ query, variables: { d: 1e15 } }, writeKey);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{
        message: 'Variable "$d" got invalid value 1000000000000000; Decimal must be smaller than 10^14 in magnitude',
        locations: [{ line: 1, column: 10 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }]);
    }
    expect(errorLines()).toEqual([]);
  });
});

describe('unexpected failures', () => {
  it('stay INTERNAL with "unexpected error" to the client and one error log line with the cause', async () => {
    const res = await send({ query: '{ locations { locationId } }' }, brokenKey);
    const body = res.json();
    expect(body.errors).toEqual([{ message: 'unexpected error', locations: [{ line: 1, column: 3 }], path: ['locations'], extensions: { code: 'INTERNAL' } }]);
    expect(JSON.stringify(body)).not.toContain('platform adapter bug');
    expect(errorLines()).toHaveLength(1);
    expect(errorLines()[0]!.msg).toBe('graphql resolver failed');
    expect(errorLines()[0]!.err?.message).toBe('platform adapter bug');
  });
});
