import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/kernel/config.ts';
import { prefersHtml } from '../../src/http/pages/index-page.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// GET / lists where things are; a browser opening /graphql is sent to GraphiQL (or told how to POST).
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let t: TestApp;
let bare: TestApp;
let key: string;
const shop = uniqueShopId('index');

beforeAll(async () => {
  t = await createTestApp({ config: { apiDocs: true, graphql: { ...loadConfig({}).graphql, graphiql: true } } });
  bare = await createTestApp({ orm: t.orm, config: { apiDocs: false, graphql: { ...loadConfig({}).graphql, graphiql: false } } });
  await t.load(toDataset(datasetJson(shop)));
  key = await t.createKey(shop, ['read']);
});
afterAll(async () => {
  await bare.close();
  await t.close();
});

describe('GET / is a public index', () => {
  it('answers JSON without a key: the REST base, the OpenAPI document, the reference page, GraphQL, GraphiQL and the health checks', async () => {
    const res = await t.request({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['www-authenticate']).toBeUndefined();
    const { links, apiVersion } = res.json();
    expect(apiVersion).toBe('1.2');
    expect(Object.fromEntries(Object.entries<{ href: string; public: boolean }>(links).map(([name, l]) => [name, [l.href, l.public]]))).toEqual({
      restApi: ['/api/v1', true], openapi: ['/api/v1/openapi.json', true], apiReference: ['/api/v1/docs', true],
      graphql: ['/graphql', false], graphqlSchema: ['/graphql/schema.graphql', true], graphiql: ['/graphiql', true], health: ['/healthz', true], readiness: ['/readyz', true],
    });
  });

  it('lists only what is served: no reference page or GraphiQL when they are turned off', async () => {
    const { links } = (await bare.request({ method: 'GET', url: '/' })).json();
    expect(Object.keys(links)).toEqual(['restApi', 'openapi', 'graphql', 'graphqlSchema', 'health', 'readiness']);
  });

  it('every public link it lists answers without a key, and every other one asks for a key (401), not 404', async () => {
    const { links } = (await t.request({ method: 'GET', url: '/' })).json();
    for (const [name, link] of Object.entries<{ href: string; public: boolean }>(links)) {
      const res = await t.request({ method: 'GET', url: link.href });
      if (link.public) expect([200, 302], `${name} ${link.href}`).toContain(res.statusCode);
      else expect(res.statusCode, `${name} ${link.href}`).toBe(401);
    }
  });

  it('a browser (Accept: text/html first) gets an HTML page linking the same places', async () => {
    const res = await t.request({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers.vary).toMatch(/Accept/);
    for (const href of ['/api/v1', '/api/v1/openapi.json', '/api/v1/docs', '/graphql', '/graphql/schema.graphql', '/graphiql', '/healthz', '/readyz']) expect(res.body).toContain(`href="${href}"`);
  });
});

describe('GET /api/v1, which GET / lists, answers a small index (was 404)', () => {
  it('rule: without a key, the OpenAPI document, the reference and every resource with its base path, each of which answers', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const index = res.json();
    expect(index).toMatchObject({ service: 'bomcore', apiVersion: '1.2', openapi: '/api/v1/openapi.json', reference: '/api/v1/docs' });
    expect(Object.keys(index.resources)).toEqual(expect.arrayContaining(['raw-materials', 'bills-of-materials', 'work-orders', 'locations', 'assignees', 'order-bom-breakdown', 'assembly-bills', 'bill-versions']));
    expect(Object.keys(index.resources)).not.toContain('openapi.json');
    // Each base path is a route or the prefix of routes: the list ones answer with the key.
    for (const base of ['/api/v1/raw-materials', '/api/v1/locations', '/api/v1/work-orders']) {
      expect(index.resources[base.split('/')[3]!]).toBe(base);
      expect((await t.request({ method: 'GET', url: base, key })).statusCode, base).toBe(200);
    }
    expect((await bare.request({ method: 'GET', url: '/api/v1' })).json().reference).toBeUndefined();
  });
});

describe('GET /graphql/schema.graphql: the client SDL for code generators, beside /api/v1/openapi.json', () => {
  it('rule: public, the committed schema/schema.graphql as text, while introspection is on', async () => {
    const res = await t.request({ method: 'GET', url: '/graphql/schema.graphql' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'));
  });

  it('rule: not served when introspection is off (production): the schema stays private there', async () => {
    const closed = await createTestApp({ orm: t.orm, config: { graphql: { ...loadConfig({}).graphql, introspection: false } } });
    try {
      expect((await closed.request({ method: 'GET', url: '/graphql/schema.graphql' })).statusCode).toBe(404);
      expect(Object.keys((await closed.request({ method: 'GET', url: '/' })).json().links)).not.toContain('graphqlSchema');
    } finally {
      await closed.close();
    }
  });
});

describe('a browser opening /graphql', () => {
  it('is redirected to GraphiQL when it is served (was a 401 JSON)', async () => {
    const res = await t.request({ method: 'GET', url: '/graphql', headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/graphiql');
  });

  it('is told how to POST a query when GraphiQL is off', async () => {
    const res = await bare.request({ method: 'GET', url: '/graphql', headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT', detail: expect.stringMatching(/POST a JSON body .*Authorization: Bearer <API key>.*GraphiQL.* is off/) });
  });

  it('a program is unchanged: without a key 401, with a key the query runs, whatever it accepts', async () => {
    expect((await t.request({ method: 'GET', url: '/graphql?query={__typename}' })).statusCode).toBe(401);
    const withKey = await t.request({ method: 'GET', url: '/graphql?query={__typename}', key, headers: { accept: BROWSER } });
    expect(withKey.statusCode).toBe(200);
    expect(withKey.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('prefersHtml (content negotiation of the index and /graphql)', () => {
  it.each([
    [BROWSER, true],
    ['text/html', true],
    ['application/json', false],
    ['*/*', false],
    [undefined, false],
    ['application/json, text/html;q=0.5', false],
    ['text/html;q=0.9, application/json;q=0.5', true],
    ['text/html;q=0', false],
  ])('%s → %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});
