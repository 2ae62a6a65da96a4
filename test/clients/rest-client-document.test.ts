import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineSchemaRefs } from '../../rest-facade/openapi-finish.ts';
import { STATUS_BY_CODE } from '../../src/http/errors/problem.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { OpenApiValidator } from '../helpers/openapi-validator.ts';

// Issue 12, "OpenAPI for codegen": what a code generator reads from GET /api/v1/openapi.json.

type Json = Record<string, any>;
let t: TestApp;
let doc: Json;
let key: string;
let operations: { method: string; path: string; op: Json }[];

beforeAll(async () => {
  t = await createTestApp();
  const shop = uniqueShopId('rest-client-document');
  await t.load(toDataset(datasetJson(shop)));
  key = await t.createKey(shop, ['read']);
  doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  operations = Object.entries<Json>(doc.paths).flatMap(([path, ops]) => Object.entries<Json>(ops).map(([method, op]) => ({ method, path, op })));
});
afterAll(() => t.close());

describe('named components', () => {
  it('every request body, success response and its data is a $ref to a named component', () => {
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      const success = op.responses['200'].content['application/json'].schema;
      expect(success.$ref, where).toBe(`#/components/schemas/${op.operationId[0].toUpperCase()}${op.operationId.slice(1)}Response`);
      // The public document route answers the document itself, not an envelope.
      if (op.operationId === 'getOpenApiDocument') continue;
      const envelope = doc.components.schemas[success.$ref.split('/').pop()];
      expect(envelope.properties.data.$ref, `${where} data`).toMatch(/^#\/components\/schemas\/\w+$/);
      expect(envelope.properties.meta.$ref, `${where} meta`).toBe('#/components/schemas/Meta');
      if (op.requestBody) expect(op.requestBody.content['application/json'].schema.$ref, `${where} body`).toMatch(/^#\/components\/schemas\/\w+Body$/);
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (status !== '200' && status !== '304') expect(response.content['application/problem+json'].schema.$ref, `${where} ${status}`).toBe('#/components/schemas/Problem');
      }
    }
  });

  it('every $ref of the document resolves', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of new Set(refs.map((r) => r.slice(8, -1)))) {
      const target = ref.slice(2).split('/').reduce<Json | undefined>((node, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('inlineSchemaRefs gives a request body without references (for tools that do not resolve them)', () => {
    const body = operations.find((o) => o.op.operationId === 'adjustRawMaterialInventory')!.op.requestBody.content['application/json'].schema;
    const inlined = inlineSchemaRefs(body, doc) as Json;
    expect(JSON.stringify(inlined)).not.toContain('$ref');
    expect(inlined.properties.updates.items.properties.locationId).toMatchObject({ type: 'string', pattern: '^[0-9]+$' });
    expect(() => inlineSchemaRefs({ $ref: '#/components/schemas/BomSubAssemblyReference' }, doc)).toThrow(/recursive/);
  });

  it('a union of string values is one enum (one TypeScript union of literals)', () => {
    const query = operations.find((o) => o.op.operationId === 'listRawMaterials')!.op.parameters;
    expect(query.find((p: Json) => p.name === 'originFilter').schema).toMatchObject({ type: 'string', enum: ['all', 'platform', 'virtual'], default: 'all' });
    expect(doc.components.schemas.Problem.properties.code.enum).toEqual(Object.keys(STATUS_BY_CODE));
  });
});

describe('parameters', () => {
  it('a parameter with a default is optional (Fastify fills the default in); path parameters are required', () => {
    const defaults = operations.flatMap(({ op }) => (op.parameters ?? []).filter((p: Json) => p.schema.default !== undefined).map((p: Json) => `${op.operationId}.${p.name}`));
    expect(defaults).toEqual(expect.arrayContaining(['listRawMaterials.page', 'listRawMaterials.pageSize', 'listAssignees.includeInactive', 'getRawMaterial.includeConnections', 'listBillVersions.limit', 'listBillVersions.offset']));
    for (const { op } of operations) {
      for (const p of op.parameters ?? []) {
        if (p.schema.default !== undefined) expect(p.required, `${op.operationId}.${p.name}`).toBe(false);
        if (p.in === 'path') expect(p.required, `${op.operationId}.${p.name}`).toBe(true);
      }
    }
  });

  it('a request without the defaulted parameters is answered with the defaults', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/raw-materials', key });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ page: 1, pageSize: 50 });
  });
});

describe('examples', () => {
  it('every success response has an example that matches its schema', () => {
    const validator = new OpenApiValidator(doc);
    for (const { method, path, op } of operations) {
      const example = op.responses['200'].content['application/json'].example;
      expect(example, `${method} ${path}`).toBeDefined();
      validator.validate(method, path, 200, 'application/json', example);
    }
  });

  it('every error response has one example per code of its status, each a valid problem document', () => {
    const validator = new OpenApiValidator(doc);
    for (const { method, path, op } of operations) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (status === '200' || status === '304') continue;
        const examples = response.content['application/problem+json'].examples;
        // PLAN_REQUIRED only where the operation needs a plan (x-plan, issue 30): other operations never answer it.
        const codes = Object.entries(STATUS_BY_CODE).filter(([c, s]) => String(s) === status && (c !== 'PLAN_REQUIRED' || op['x-plan'] !== undefined)).map(([c]) => c);
        expect(Object.keys(examples), `${method} ${path} ${status}`).toEqual(codes);
        for (const code of codes) {
          const value = doc.components.examples[code].value;
          expect(value).toMatchObject({ status: Number(status), code });
          validator.validate(method, path, Number(status), 'application/problem+json', value);
        }
      }
    }
  });
});

describe('response headers', () => {
  it('every response declares X-Request-Id; 2xx and 4xx the RateLimit headers (but the public document\'s); 429 and 503 Retry-After', () => {
    for (const { method, path, op } of operations) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const names = Object.keys(response.headers ?? {});
        const where = `${method} ${path} ${status}`;
        expect(names, where).toContain('X-Request-Id');
        if (/^[24]/.test(status) && op.security.length > 0) expect(names, where).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
        if (status === '429' || status === '503') expect(names, where).toContain('Retry-After');
      }
    }
  });

  it('a 200 carries the headers it declares', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    for (const name of ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(res.headers[name], name).toBeDefined();
  });
});
