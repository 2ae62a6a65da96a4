import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema, isSpecifiedScalarType, type GraphQLNamedType } from 'graphql';
import { ENTITY_KEYS } from '../../schema/entity-keys.ts';
import { getSchema, printSchemaSdl, printSubgraphSdl } from '../../schema/index.ts';
import { loadOperation } from '../../rest-facade/operations.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { runCli } from '../cli/run-cli.ts';

const committedSdl = (file: 'schema.graphql' | 'subgraph.graphql') => readFileSync(new URL(`../../schema/${file}`, import.meta.url), 'utf8');

/** What only a federation gateway uses: the `_entities`/`_service` fields, their types and the federation directives. */
const FEDERATION_INTERNALS = /\b(_Any|_Entity|_Service|_entities|_service|link__Import|FieldSet)\b|@(link|key|shareable)\b/;

describe('schema contract', () => {
  it('schema/schema.graphql is the client SDL printed from code (run `npm run schema:print` after schema changes)', () => {
    expect(committedSdl('schema.graphql')).toBe(printSchemaSdl());
  });

  it('the client SDL (what codegen and the docs use) has no federation internals: no _Any, _Entity, _Service, _entities, _service or federation directives', () => {
    expect(printSchemaSdl()).not.toMatch(FEDERATION_INTERNALS);
    const schema = buildSchema(committedSdl('schema.graphql'));
    expect(Object.keys(schema.getQueryType()!.getFields()).filter((name) => name.startsWith('_'))).toEqual([]);
    // Everything else is the executable schema's: the same queries and types, minus the federation ones.
    const served = getSchema();
    expect(Object.keys(schema.getQueryType()!.getFields()).sort())
      .toEqual(Object.keys(served.getQueryType()!.getFields()).filter((name) => name !== '_entities' && name !== '_service').sort());
    const named = (types: Record<string, GraphQLNamedType>) => Object.values(types).filter((type) => !isSpecifiedScalarType(type)).map((type) => type.name).sort();
    expect(named(schema.getTypeMap())).toEqual(named(served.getTypeMap()).filter((name) => !['_Any', '_Entity', '_Service'].includes(name)));
  });

  it('schema/subgraph.graphql is the subgraph SDL printed from code: the Federation 2 @link and an @key on each entity', () => {
    const sdl = committedSdl('subgraph.graphql');
    expect(sdl).toBe(printSubgraphSdl());
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])');
    for (const [type, key] of Object.entries(ENTITY_KEYS)) expect(sdl).toMatch(new RegExp(`type ${type}\\b[^{]*@key\\(fields: "${key}"\\)`));
  });

  it('`bomcore print-schema --check` checks both SDL files and says each is up to date; --subgraph prints the subgraph SDL', async () => {
    const env = { DATABASE_URL: undefined, BOMCORE_DATA_DIR: join(mkdtempSync(join(tmpdir(), 'bomcore-sdl-')), 'data') };
    const check = await runCli(['print-schema', '--check'], env);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout).toBe('schema/schema.graphql is up to date\nschema/subgraph.graphql is up to date\n');
    const subgraph = await runCli(['print-schema', '--subgraph'], env);
    expect(subgraph.code).toBe(0);
    expect(subgraph.stdout).toBe(committedSdl('subgraph.graphql'));
    const dir = mkdtempSync(join(tmpdir(), 'bomcore-sdl-'));
    const stale = join(dir, 'subgraph.graphql');
    writeFileSync(stale, committedSdl('schema.graphql'));
    const wrong = await runCli(['print-schema', '--subgraph', '--check', stale], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(`${stale} is out of date\n`);
  }, 60_000);

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

  it('serves schema/subgraph.graphql as the federation _service SDL, the one a gateway composes', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: '{ _service { sdl } }' } });
    expect(`${res.json().data._service.sdl}\n`).toBe(committedSdl('subgraph.graphql'));
  });
});
