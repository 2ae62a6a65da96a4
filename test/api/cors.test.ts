import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/kernel/config.ts';
import type { Orm } from '../../src/db/orm.ts';
import { CORS_MAX_AGE_SECONDS } from '../../src/http/requests/cors.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// One database, three apps: CORS_ORIGINS set to a list, set to *, and unset (off, the default).
const ALLOWED = 'https://dashboard.example.com';
const OTHER = 'https://evil.example.net';
let orm: Orm;
let listed: TestApp;
let any: TestApp;
let off: TestApp;
let key: string;
const shop = uniqueShopId('cors');

beforeAll(async () => {
  orm = await openTestOrm();
  listed = await createTestApp({ orm, config: { corsOrigins: [ALLOWED, 'http://localhost:5173'] } });
  any = await createTestApp({ orm, config: { corsOrigins: '*' } });
  off = await createTestApp({ orm });
  await listed.load(toDataset(datasetJson(shop)));
  key = await listed.createKey(shop, ['read', 'write']);
});
afterAll(async () => {
  await Promise.all([listed?.close(), any?.close(), off?.close()]);
  await orm?.close();
});

const preflight = (t: TestApp, url: string, origin: string, method = 'GET', headers = 'authorization') =>
  t.request({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

describe('CORS_ORIGINS parsing (config)', () => {
  it.each([
    ['unset is off', undefined, null],
    ['empty is off', '', null],
    ['* allows any origin', '*', '*'],
    ['a list, trimmed, trailing slash dropped', ' https://a.example.com/ ,http://localhost:5173', ['https://a.example.com', 'http://localhost:5173']],
  ])('%s', (_rule, raw, expected) => {
    expect(loadConfig(raw === undefined ? {} : { CORS_ORIGINS: raw }).corsOrigins).toEqual(expected);
  });

  it.each([
    ['a path is not an origin', 'https://a.example.com/app'],
    ['a bare host is not an origin', 'a.example.com'],
    ['another scheme is not an origin', 'ftp://a.example.com'],
    ['* mixed with a list', '*,https://a.example.com'],
  ])('%s: ConfigError naming CORS_ORIGINS', (_rule, raw) => {
    expect(() => loadConfig({ CORS_ORIGINS: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: raw })).toThrow(/CORS_ORIGINS/);
  });
});

describe('preflight (OPTIONS with Origin and Access-Control-Request-Method)', () => {
  it.each([
    ['a REST collection', '/api/v1/raw-materials', 'GET', 'GET, PATCH'],
    ['a REST item, PATCH with its headers', '/api/v1/work-orders/WO-1', 'PATCH', 'GET, PATCH'],
    ['/graphql (POST)', '/graphql', 'POST', 'GET, POST'],
  ])('%s → 204 with Allow-Origin, Allow-Methods, Allow-Headers and Max-Age', async (_what, url, method, methods) => {
    const res = await preflight(listed, url, ALLOWED, method, 'authorization,content-type,idempotency-key');
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-allow-methods']).toBe(methods);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
    expect(res.headers['access-control-max-age']).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(String(res.headers.vary)).toMatch(/origin/i);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('needs no API key: the preflight is answered before authentication (a browser sends none)', async () => {
    const res = await preflight(listed, '/graphql', ALLOWED, 'POST');
    expect(res.statusCode).toBe(204);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('CORS_ORIGINS=* answers Allow-Origin: * to any origin', async () => {
    const res = await preflight(any, '/api/v1/locations', OTHER);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('an origin not in the list gets no CORS header: the OPTIONS reaches the route as without CORS', async () => {
    const rest = await preflight(listed, '/api/v1/raw-materials', OTHER);
    expect(rest.statusCode).toBe(405);
    expect(rest.headers['access-control-allow-origin']).toBeUndefined();
    const graphql = await preflight(listed, '/graphql', OTHER, 'POST');
    expect(graphql.statusCode).toBe(404);
    expect(graphql.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('paths outside /api/v1 and /graphql get no CORS (health checks)', async () => {
    const res = await preflight(listed, '/healthz', ALLOWED);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.statusCode).toBe(404);
  });

  it('an OPTIONS that is not a preflight (no Access-Control-Request-Method) is not answered 204', async () => {
    const res = await listed.request({ method: 'OPTIONS', url: '/graphql', headers: { origin: ALLOWED } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});

describe('actual requests from an allowed origin', () => {
  it('a REST read carries Allow-Origin and exposes the headers a client needs', async () => {
    const res = await listed.request({ method: 'GET', url: '/api/v1/locations', key, headers: { origin: ALLOWED } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotency-Replayed']));
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('a refusal (401 without a key) carries the CORS headers too, so the page can read the problem', async () => {
    const res = await listed.request({ method: 'GET', url: '/api/v1/locations', headers: { origin: ALLOWED } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('a PATCH without JSON is still 415 with CORS headers', async () => {
    const res = await listed.request({ method: 'PATCH', url: '/api/v1/work-orders/WO-1', key, headers: { origin: ALLOWED, 'content-type': 'text/plain' }, payload: 'x' });
    expect(res.statusCode).toBe(415);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('POST /graphql from an allowed origin is answered with Allow-Origin', async () => {
    const res = await listed.request({
      method: 'POST', url: '/graphql', key, headers: { origin: ALLOWED }, payload: { query: '{ locations { locationId } }' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('a request without Origin (curl, a server) gets no CORS header', async () => {
    const res = await listed.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS off (CORS_ORIGINS unset, the default)', () => {
  it.each([
    ['OPTIONS /graphql stays 404', '/graphql', 404],
    ['OPTIONS on a REST path stays 405', '/api/v1/raw-materials', 405],
  ])('%s, without any CORS header', async (_rule, url, status) => {
    const res = await preflight(off, url, ALLOWED);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('a GET with an Origin gets no CORS header', async () => {
    const res = await off.request({ method: 'GET', url: '/api/v1/locations', key, headers: { origin: ALLOWED } });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});
