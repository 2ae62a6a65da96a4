import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { checkOperationInput } from '../../schema/input-limits.ts';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { findUnstorableString } from '../../src/http/requests/validators.ts';
import { graphqlNestingDepth, jsonTextNestsDeeper, valueNestsDeeper } from '../../src/kernel/json-depth.ts';
import { MAX_JSON_DEPTH } from '../../src/kernel/limits.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule (issue 17, item 11): arrays and objects nested deeper than MAX_JSON_DEPTH (32) are refused
// before any recursive walk sees them: a REST body is 400 INVALID_INPUT naming `body` and the
// limit, a /graphql body 400 BAD_REQUEST the same way, GraphQL variables of a GET and argument
// values (`_Any`) INVALID_INPUT naming `variables` / the argument. Never a 500 (a stack overflow).

let t: TestApp;
let key: string;
const VIRTUAL = 'VMAT-VAR-0002';
const LIMIT_MESSAGE = `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;

beforeAll(async () => {
  t = await createTestApp();
  const shop = uniqueShopId('input-nesting');
  await t.load(toDataset(materialShop(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(async () => t.close());

const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const objects = (n: number, leaf = '1') => `${'{"a":'.repeat(n)}${leaf}${'}'.repeat(n)}`;
const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }';

function expectBodyTooDeep(response: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  expect(response.statusCode).toBe(400);
  expect(response.headers['content-type']).toContain('application/problem+json');
  const body = response.json();
  expect(body.code).toBe('INVALID_INPUT');
  expect(body.detail).toBe(`body: ${LIMIT_MESSAGE}`);
  expect(body.errors).toEqual([{ field: 'body', message: LIMIT_MESSAGE }]);
}

describe('measuring depth without recursion', () => {
  it('counts arrays and objects of the raw text, not brackets inside strings or escaped quotes', () => {
    expect(jsonTextNestsDeeper(arrays(32), 32)).toBe(false);
    expect(jsonTextNestsDeeper(arrays(33), 32)).toBe(true);
    expect(jsonTextNestsDeeper(objects(33), 32)).toBe(true);
    expect(jsonTextNestsDeeper(JSON.stringify({ a: '['.repeat(100), b: '\\"{{{{{{' }), 2)).toBe(false);
    expect(jsonTextNestsDeeper(`{"a":"\\"[[[[[["}`, 1)).toBe(false);
  });

  it('measures a GraphQL document\'s nesting outside strings, block strings and comments', () => {
    expect(graphqlNestingDepth('{ a(x: [[1]]) { b } }')).toBe(4);
    expect(graphqlNestingDepth('{ a(x: "[[[[{{((", y: """[[[\\"""[[""") } # [[[[[[\n')).toBe(2);
  });

  it('measures a parsed value of 10,000 levels with an explicit stack (no RangeError), and so does the storable-text walk', () => {
    let value: unknown = 'x\u0000';
    for (let i = 0; i < 10_000; i++) value = [value];
    expect(valueNestsDeeper(value, MAX_JSON_DEPTH)).toBe(true);
    expect(valueNestsDeeper(JSON.parse(arrays(32)), MAX_JSON_DEPTH)).toBe(false);
    expect(findUnstorableString(value)?.instancePath).toBe('/0'.repeat(10_000));
  });
});

describe(`REST bodies (${databaseLabel})`, () => {
  it(`'['.repeat(8000)+']'.repeat(8000) (16 KB) on every PATCH route of the document is 400 naming body and the limit, not a 500`, async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const patches = Object.entries(doc.paths).filter(([, ops]) => ops.patch).map(([path]) => path
      .replace('{variantId}', VIRTUAL).replace(/\{[^}]+\}/g, 'x'));
    expect(patches.length).toBeGreaterThanOrEqual(5);
    for (const url of patches) {
      for (const payload of [arrays(8000), `{"note":${objects(8000)}}`]) {
        expectBodyTooDeep(await t.request({ method: 'PATCH', url, key, payload, headers: { 'content-type': 'application/json' } }));
      }
    }
  });

  it(`33 levels is refused, 32 levels reaches the route (an unknown field nested 31 deep is ignored as before)`, async () => {
    const url = `/api/v1/raw-materials/${VIRTUAL}`;
    const headers = { 'content-type': 'application/json' };
    expectBodyTooDeep(await t.request({ method: 'PATCH', url, key, headers, payload: `{"vendor":"V","note":${objects(32)}}` }));
    const ok = await t.request({ method: 'PATCH', url, key, headers, payload: `{"vendor":"V","note":${objects(31)}}` });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('a malformed or empty body keeps its own answer (the parser behind the depth check is Fastify\'s)', async () => {
    const url = `/api/v1/raw-materials/${VIRTUAL}`;
    const headers = { 'content-type': 'application/json' };
    expect((await t.request({ method: 'PATCH', url, key, headers, payload: '{"vendor":' })).json().errors[0].message).toMatch(/is not valid JSON/);
    expect((await t.request({ method: 'PATCH', url, key, headers, payload: '' })).json().errors[0].message).toMatch(/is empty/);
    expect((await t.request({ method: 'PATCH', url, key, headers, payload: '{"__proto__":{"x":1}}' })).statusCode).toBe(400);
  });
});

describe(`GraphQL (${databaseLabel})`, () => {
  it('a POST body whose variables nest 5,000 levels is 400 BAD_REQUEST naming body and the limit', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', key, headers: { 'content-type': 'application/json' },
      payload: `{"query":${JSON.stringify(ENTITIES)},"variables":{"r":[${arrays(5000)}]}}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ message: `body: ${LIMIT_MESSAGE}`, extensions: { code: 'BAD_REQUEST', errors: [{ field: 'body', message: LIMIT_MESSAGE }] } }]);
  });

  it('variables of a GET nesting 5,000 levels are INVALID_INPUT naming variables, not INTERNAL', async () => {
    const url = `/graphql?query=${encodeURIComponent(ENTITIES)}&variables=${encodeURIComponent(`{"r":[${arrays(5000)}]}`)}`;
    const res = await t.request({ method: 'GET', url, key });
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().errors).toEqual([{ message: `variables: ${LIMIT_MESSAGE}`, extensions: { code: 'INVALID_INPUT', errors: [{ field: 'variables', message: LIMIT_MESSAGE }] } }]);
  });

  it('an _Any argument value written inline 40 levels deep is INVALID_INPUT naming representations[0]', async () => {
    const res = await t.graphql(key, `{ _entities(representations: [${arrays(40)}]) { __typename } }`);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions).toEqual({ code: 'INVALID_INPUT', errors: [{ field: 'representations[0]', message: LIMIT_MESSAGE }] });
  });

  it('a document nesting 2,400 levels (within the token limit) is 400 GRAPHQL_QUERY_TOO_DEEP naming the limit before it is parsed, not a parser stack overflow', async () => {
    const res = await t.graphql(key, `{ _entities(representations: [${arrays(2400)}]) { __typename } }`);
    const limit = t.config.graphql.maxDepth + 1 + MAX_JSON_DEPTH;
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{
      message: `the document nests braces, brackets and parentheses 2403 levels deep; the limit is ${limit}`,
      extensions: { code: 'GRAPHQL_QUERY_TOO_DEEP', limit, measured: 2403 },
    }]);
  });

  it('checkOperationInput measures a 5,000-deep _Any variable before walking it (a DomainError, not a RangeError)', () => {
    let deep: unknown = {};
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const check = () => checkOperationInput(getSchema(), parse(ENTITIES), { r: [{ __typename: 'Bom', bomId: 'BOM-1', deep }] });
    expect(check).toThrow(DomainError);
    expect(check).toThrow(`variables: ${LIMIT_MESSAGE}`);
  });
});
