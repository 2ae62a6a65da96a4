import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldErrors, PATTERN_WORDS } from '../../src/http/errors/error-handler.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Messages for humans (issue 12): every refusal names each field once, in words a person acts on,
// and its `detail` says the same as its `errors[]`.
let t: TestApp;
let key: string;
const shop = uniqueShopId('msg');
const STAMP = '2025-01-31T09:30:00.000Z';

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const get = (url: string): InjectOptions => ({ method: 'GET', url });
const patch = (url: string, payload: unknown): InjectOptions => ({ method: 'PATCH', url, payload: payload as InjectOptions['payload'] });
/** A build-run body valid but for what `fields` changes. */
const run = (fields: Record<string, unknown>) => ({ expectedUpdatedAt: STAMP, buildRunId: 'run-1', items: [{ itemId: 'woi_1', quantity: 1 }], ...fields });
const STATUSES = 'cancelled, completed, draft, in_progress, paused, qc_approved, quality_control, ready';

/** [rule, request, the field errors expected, exactly]. */
const rows: [string, InjectOptions, { field: string; message: string }[]][] = [
  ['a bad enum (an anyOf of literals) is one message listing the allowed values, not one per branch',
    get('/api/v1/raw-materials?originFilter=bogus'), [{ field: 'originFilter', message: 'must be one of: all, platform, virtual' }]],
  ['a bad enum in a body lists the allowed values',
    patch('/api/v1/work-orders/WO-1', { expectedUpdatedAt: STAMP, priority: 'p1' }), [{ field: 'priority', message: 'must be one of: high, low, normal, urgent' }]],
  ['null where an enum cannot be cleared lists the allowed values too',
    patch('/api/v1/work-orders/WO-1', { expectedUpdatedAt: STAMP, priority: null }), [{ field: 'priority', message: 'must be one of: high, low, normal, urgent' }]],
  ['a nullable number says "a number or null" (was "must be number,null")',
    patch('/api/v1/raw-materials/44001', { unitCost: 'cheap' }), [{ field: 'unitCost', message: 'must be a number or null' }]],
  ['an integer parameter says "an integer"',
    get('/api/v1/raw-materials?page=first'), [{ field: 'page', message: 'must be an integer' }]],
  ['a number under its range states the whole range, as /graphql does (was "must be at least 1")',
    get('/api/v1/raw-materials?pageSize=0'), [{ field: 'pageSize', message: 'must be between 1 and 1000' }]],
  ['a number over its range states the whole range too',
    get('/api/v1/raw-materials?pageSize=5000'), [{ field: 'pageSize', message: 'must be between 1 and 1000' }]],
  ['a quantity that must be positive states its whole range: 0 is refused, and so is -1, told the same (not "between 0 and …")',
    patch('/api/v1/work-orders/WO-1/build-runs', run({ items: [{ itemId: 'woi_1', quantity: 0 }, { itemId: 'woi_2', quantity: -1 }, { itemId: 'woi_3', quantity: 1e15 }] })),
    [0, 1, 2].map((i) => ({ field: `items[${i}].quantity`, message: 'must be greater than 0 and less than 10^14' }))],
  ['a list parameter\'s enum lists the allowed values, never a regular expression (status=bogus)',
    get('/api/v1/work-orders?status=bogus'), [{ field: 'status[0]', message: `must be one of: ${STATUSES}` }]],
  ['each bad value of a list is named at its position after splitting, each with the allowed values',
    get('/api/v1/work-orders?status=draft,bogus&status=x'),
    [{ field: 'status[1]', message: `must be one of: ${STATUSES}` }, { field: 'status[2]', message: `must be one of: ${STATUSES}` }]],
  ['a global id where a bare numeric id is expected is said in words, not as a pattern',
    get('/api/v1/raw-materials/44001/inventory?locationIds=101,gid://shopify/Location/102'),
    [{ field: 'locationIds[1]', message: 'must be a bare numeric id such as 101 (digits only, not a gid://… global id)' }]],
  ['a bad buildRunId says which characters it may hold, not a pattern',
    patch('/api/v1/work-orders/WO-1/build-runs', run({ buildRunId: 'run 1' })),
    [{ field: 'buildRunId', message: 'must be 1–128 characters, each a letter, a digit or one of . _ : -' }]],
  ['a bad Idempotency-Key says what it may hold, not a pattern',
    { ...patch('/api/v1/work-orders/WO-1', { expectedUpdatedAt: STAMP }), headers: { 'idempotency-key': 'two words' } },
    [{ field: 'idempotency-key', message: 'must be visible ASCII characters only (no spaces)' }]],
  ['a date-time shows what one looks like',
    patch('/api/v1/work-orders/WO-1', { expectedUpdatedAt: 'yesterday' }),
    [{ field: 'expectedUpdatedAt', message: 'must be a date-time with a time zone, e.g. 2025-01-31T09:30:00Z' }]],
  ['an empty required string says it must not be empty',
    patch('/api/v1/work-orders/WO-1', { expectedUpdatedAt: STAMP, name: '' }), [{ field: 'name', message: 'must not be empty' }]],
  ['a boolean says true or false',
    patch('/api/v1/raw-materials/44001', { isNonEssentialMaterial: 'yes' }), [{ field: 'isNonEssentialMaterial', message: 'must be true or false' }]],
  ['a missing field is required',
    patch('/api/v1/work-orders/WO-1', { priority: 'high' }), [{ field: 'expectedUpdatedAt', message: 'is required' }]],
  ['an unknown query parameter is named',
    get('/api/v1/raw-materials?statusFilter=ready'), [{ field: 'statusFilter', message: 'is not a parameter of this route' }]],
  ['two bad fields are two entries, one each',
    get('/api/v1/raw-materials?originFilter=bogus&sortOrder=up'),
    [{ field: 'originFilter', message: 'must be one of: all, platform, virtual' }, { field: 'sortOrder', message: 'must be one of: asc, desc' }]],
];

describe('field errors (REST 400 INVALID_INPUT)', () => {
  it.each(rows)('%s', async (_rule, request, expected) => {
    const res = await t.request({ ...request, key });
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.code).toBe('INVALID_INPUT');
    expect([...body.errors].sort((a, b) => a.field.localeCompare(b.field))).toEqual(expected);
    // One entry per field, and the detail says exactly what errors[] says.
    expect(new Set(body.errors.map((e: { field: string }) => e.field)).size).toBe(body.errors.length);
    expect(body.detail).toBe(body.errors.map((e: { field: string; message: string }) => `${e.field}: ${e.message}`).join('; '));
    expect(body.detail).not.toMatch(/must be equal to constant|must match a schema in anyOf|must be \w+,\w+|must NOT/);
  });
});

describe('malformed and empty bodies: detail and errors[] agree', () => {
  it.each([
    ['JSON that does not parse names where it broke', '{"unitCost": ', /^is not valid JSON/],
    ['an empty JSON body says it is empty', '', /^is empty; send a JSON object$/],
  ])('%s', async (_rule, payload, message) => {
    const res = await t.request({ method: 'PATCH', url: '/api/v1/raw-materials/44001', key, headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('INVALID_INPUT');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].field).toBe('body');
    expect(body.errors[0].message).toMatch(message);
    expect(body.detail).toBe(`body: ${body.errors[0].message}`);
  });
});

describe('401 says what to fix (code and challenge unchanged)', () => {
  it.each([
    ['a key without the Bearer scheme says the scheme is missing', 'bck_thisKeyWasNeverIssuedByBomcore0000000000000',
      'the Authorization header has no scheme: use Authorization: Bearer <API key>'],
    ['another scheme is named and Bearer asked for', 'Basic dXNlcjpwYXNz',
      'the Authorization scheme must be Bearer, not Basic: use Authorization: Bearer <API key>'],
    ['a lower-case bearer is named too', 'bearer bck_thisKeyWasNeverIssuedByBomcore0000000000000',
      'the Authorization scheme must be Bearer, not bearer: use Authorization: Bearer <API key>'],
    ['a well-formed but unknown key is "not valid"', 'Bearer bck_thisKeyWasNeverIssuedByBomcore0000000000000', 'the API key is not valid'],
    ['no header says the header is required', undefined, 'an Authorization: Bearer <API key> header is required'],
  ])('%s', async (_rule, header, detail) => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', headers: header === undefined ? {} : { authorization: header } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail });
  });

  it('a secret is never echoed back in the message', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', headers: { authorization: 'sk_live_secretvalue123 bck_more' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).not.toContain('secretvalue');
  });

  it('/graphql says the same', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', headers: { authorization: 'bck_thisKeyWasNeverIssuedByBomcore0000000000000' }, payload: { query: '{ __typename }' } });
    expect(res.statusCode).toBe(401);
    expect(JSON.stringify(res.json())).toContain('use Authorization: Bearer <API key>');
  });
});

describe('fieldErrors (shared by REST and /graphql extensions.errors)', () => {
  it.each([
    ['anyOf of const collapses to one message with the values',
      [
        { instancePath: '/x', schemaPath: '#/properties/x/anyOf/0/const', keyword: 'const', params: { allowedValue: 'a' }, message: 'must be equal to constant' },
        { instancePath: '/x', schemaPath: '#/properties/x/anyOf/1/const', keyword: 'const', params: { allowedValue: 'b' }, message: 'must be equal to constant' },
        { instancePath: '/x', schemaPath: '#/properties/x/anyOf', keyword: 'anyOf', params: {}, message: 'must match a schema in anyOf' },
      ], [{ field: 'x', message: 'must be one of: a, b' }]],
    ['an enum keyword lists its values',
      [{ instancePath: '/x', schemaPath: '#/properties/x/enum', keyword: 'enum', params: { allowedValues: ['virtual', 'platform'] }, message: 'must be equal to one of the allowed values' }],
      [{ field: 'x', message: 'must be one of: virtual, platform' }]],
    ['an anyOf of types names the types',
      [
        { instancePath: '/x', schemaPath: '#/properties/x/anyOf/0/type', keyword: 'type', params: { type: 'string' }, message: 'must be string' },
        { instancePath: '/x', schemaPath: '#/properties/x/anyOf/1/type', keyword: 'type', params: { type: 'null' }, message: 'must be null' },
        { instancePath: '/x', schemaPath: '#/properties/x/anyOf', keyword: 'anyOf', params: {}, message: 'must match a schema in anyOf' },
      ], [{ field: 'x', message: 'must be a string or null' }]],
    ['two problems of one field are one entry',
      [
        { instancePath: '/tags/0', schemaPath: '#/a', keyword: 'maxLength', params: { limit: 40 }, message: 'must NOT have more than 40 characters' },
        { instancePath: '/tags/0', schemaPath: '#/b', keyword: 'pattern', params: { pattern: '^[a-z]+$' }, message: 'must match pattern "^[a-z]+$"' },
      ], [{ field: 'tags[0]', message: 'must be at most 40 characters long; must match the pattern ^[a-z]+$' }]],
    ['array limits are said in words',
      [{ instancePath: '/updates', schemaPath: '#/x', keyword: 'maxItems', params: { limit: 200 }, message: 'must NOT have more than 200 items' }],
      [{ field: 'updates', message: 'must have at most 200 items' }]],
  ])('%s', (_rule, validation, expected) => {
    expect(fieldErrors(validation, 'body')).toEqual(expected);
  });
});

describe('limits say what is allowed', () => {
  it('a recipe quantity of -1 or 0 (/graphql createBom) is told "greater than 0 and less than 10^14", never "between 0 and 10^14"', async () => {
    for (const quantity of ['-1', '0']) {
      const res = await t.graphql(key, `mutation($input: NewBomInput!) { createBom(input: $input) { userErrors { errors { field message } } } }`,
        { input: { name: 'Bad', rawMaterialLines: [{ nodeId: '44001', quantity }] } });
      expect(res.body.data.createBom.userErrors[0].errors, quantity).toEqual([{ field: 'rawMaterialLines[0].quantity', message: 'must be greater than 0 and less than 10^14' }]);
    }
  });
});

describe('no refusal shows a regular expression', () => {
  it('every pattern the OpenAPI document validates a request with has its words (PATTERN_WORDS); list items are checked one by one', async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, any>> };
    const patterns = new Set<string>();
    const collect = (schema: unknown): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const { pattern, ...rest } = schema as Record<string, unknown>;
      if (typeof pattern === 'string') patterns.add(pattern);
      Object.values(rest).forEach(collect);
    };
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        // A list parameter (one value or an array of them, issue 30) is documented as sent, commas included; the
        // server checks each item after splitting, so neither member's joined pattern is one a refusal names.
        const isList = (schema: any) => Array.isArray(schema.anyOf) && schema.anyOf.some((m: any) => m.type === 'array');
        for (const p of operation.parameters ?? []) if (!isList(p.schema)) collect(p.schema);
        collect(operation.requestBody?.content?.['application/json']?.schema);
      }
    }
    expect(patterns.size).toBeGreaterThan(0);
    expect([...patterns].filter((p) => PATTERN_WORDS[p] === undefined)).toEqual([]);
  });
});
