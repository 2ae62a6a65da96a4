import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule: /graphql answers any body, with or without a key, with a 4xx carrying a problem or a
// GraphQL error body, never a 5xx; over a real socket, so Node's and Fastify's own parsing count.

let t: TestApp;
let key: string;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  const shop = uniqueShopId('input-gql-body');
  await t.load(toDataset(materialShop(shop)));
  key = await t.createKey(shop, ['read']);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
afterAll(async () => t.close());

const JSON_TYPE = 'application/json';
const BODIES: [string, string | Uint8Array, string][] = [
  ['an empty body', '', JSON_TYPE],
  ['malformed JSON', '{"query": ', JSON_TYPE],
  ['not JSON at all', 'hello', JSON_TYPE],
  ['plain text', '{ locations { locationId } }', 'text/plain'],
  ['form data', 'query=%7B%7D', 'application/x-www-form-urlencoded'],
  ['binary', new Uint8Array([0, 255, 254, 1, 2, 3]), 'application/octet-stream'],
  ['a __proto__ key', '{"__proto__":{"admin":true},"query":"{ locations { locationId } }"}', JSON_TYPE],
  ['a nested __proto__ key', '{"query":"{ locations { locationId } }","variables":{"__proto__":{"x":1}}}', JSON_TYPE],
  ['a constructor.prototype key', '{"query":"{ locations { locationId } }","constructor":{"prototype":{"x":1}}}', JSON_TYPE],
  ['an array of garbage', '[1,"x",null,{},[]]', JSON_TYPE],
  ['an empty array', '[]', JSON_TYPE],
  ['a JSON string', '"{ locations { locationId } }"', JSON_TYPE],
  ['null', 'null', JSON_TYPE],
  ['a number query', '{"query":42}', JSON_TYPE],
  ['an AST as query', '{"query":{"kind":"Document","definitions":[]}}', JSON_TYPE],
  ['variables as a string', '{"query":"{ locations { locationId } }","variables":"{}"}', JSON_TYPE],
  ['a NUL in the document', '{"query":"{ locations\\u0000 { locationId } }"}', JSON_TYPE],
  ['a lone surrogate in the document', '{"query":"{ rawMaterials(search: \\"\\ud800\\") { totalCount } }"}', JSON_TYPE],
  ['deeply nested JSON', `${'['.repeat(5_000)}${']'.repeat(5_000)}`, JSON_TYPE],
  ['over 1 MiB', `{"query":"${'x'.repeat(1_100_000)}"}`, JSON_TYPE],
];

async function post(body: string | Uint8Array, type: string, withKey: boolean) {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST', body, headers: { 'content-type': type, ...(withKey ? { authorization: `Bearer ${key}` } : {}) },
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', requestId: response.headers.get('x-request-id'), text: await response.text() };
}

describe(`POST /graphql with a body that is not a GraphQL request (${databaseLabel})`, () => {
  for (const withKey of [false, true]) {
    it.each(BODIES)(`%s, ${withKey ? 'with' : 'without'} a key → 4xx with an error body and X-Request-Id`, async (_label, body, type) => {
      const res = await post(body, type, withKey);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.requestId).toBeTruthy();
      const parsed = JSON.parse(res.text);
      if (res.type.includes('problem+json')) expect(parsed).toMatchObject({ status: res.status, requestId: res.requestId });
      else expect(parsed.errors[0].extensions.code).toEqual(expect.any(String));
      if (!withKey) expect(res.status).toBe(401);
    });
  }
});

describe('GET /graphql with odd query strings', () => {
  it.each([
    ['no query', ''],
    ['an empty query', '?query='],
    ['a NUL', '?query=%00'],
    ['a repeated query', '?query=a&query=b'],
    ['bracket syntax', '?query[]=a'],
    ['malformed variables', '?query=%7B%20locations%20%7B%20locationId%20%7D%20%7D&variables=%7B'],
    ['a mutation', '?query=mutation%20%7B%20retireAssignee(assigneeId%3A%22x%22)%20%7B%20active%20%7D%20%7D'],
    ['a bad percent-encoding', '?query=%E0%A4%A'],
    ['an unknown parameter', '?foo=bar'],
  ])('%s → 4xx, never 5xx', async (_label, query) => {
    const response = await fetch(`${base}/graphql${query}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });
});
