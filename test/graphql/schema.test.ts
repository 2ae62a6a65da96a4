import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema, printSchemaSdl } from '../../schema/index.ts';
import { loadOperation } from '../../rest-facade/operations.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

describe('schema contract', () => {
  it('schema/schema.graphql is the SDL printed from code (run `npm run schema:print` after schema changes)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printSchemaSdl());
  });

  it('a stored operation that does not validate against the schema fails the boot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bomcore-op-'));
    const file = join(dir, 'broken.graphql');
    writeFileSync(file, 'query Broken { locations { noSuchField } }');
    expect(() => loadOperation(getSchema(), pathToFileURL(file))).toThrow(/Cannot query field "noSuchField"/);
  });
});

describe('POST /graphql', () => {
  let t: TestApp;
  let key: string;
  const shop = uniqueShopId('gql');
  beforeAll(async () => {
    t = await createTestApp();
    await t.load(toDataset(datasetJson(shop)));
    key = await t.createKey(shop, ['read']);
  });
  afterAll(() => t.close());

  it('answers queries for locations and assignees with the same keys as REST', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: '{ locations { locationGid } assignees(includeInactive: true) { displayName usageCount } }' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.locations.map((l: any) => l.locationGid)).toContain('gid://shopify/Location/101');
    expect(body.data.assignees.map((a: any) => a.displayName)).toEqual(['Ana', 'Bob', 'Zoe']);
  });

  it('needs a key (401 problem+json, like REST)', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', payload: { query: '{ locations { locationId } }' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHENTICATED');
  });

  it('serves the federation _service SDL for schema-driven codegen', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: '{ _service { sdl } }' } });
    expect(res.json().data._service.sdl).toContain('type Location');
  });
});
