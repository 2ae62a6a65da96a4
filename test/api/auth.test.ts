import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../src/modules/auth/api-key.entity.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
const shopA = uniqueShopId('auth-a');
const shopB = uniqueShopId('auth-b');
let readKey: string;
let writeKey: string;
let keyB: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shopA)));
  await t.load(toDataset(datasetJson(shopB, {
    platform: { locations: [{ id: '901', name: 'Other shop depot' }], variants: [], orders: [] },
    materials: [], costFactors: [], assemblyBills: [], boms: [], assignees: [{ assigneeId: 'asg_other', displayName: 'Other', active: true }],
  })));
  readKey = await t.createKey(shopA, ['read']);
  writeKey = await t.createKey(shopA, ['read', 'write']);
  keyB = await t.createKey(shopB, ['read']);
});
afterAll(() => t.close());

describe('authentication (docs/api-conventions.md: 401 UNAUTHENTICATED with WWW-Authenticate)', () => {
  it('no Authorization header is 401 with a realm challenge and no error attribute', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', requestId: res.headers['x-request-id'] });
  });

  it.each([
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['a token without the bck_ prefix', 'Bearer abcdefghijklmnopqrstuvwxyz123456'],
    ['an unknown key', 'Bearer bck_thisKeyWasNeverIssuedByBomcore0000000000000'],
    ['a token with illegal characters', 'Bearer bck_<script>'],
  ])('%s is 401 with error="invalid_token"', async (_label, header) => {
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', headers: { authorization: header } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    expect(res.json().code).toBe('UNAUTHENTICATED');
  });

  it('a revoked key is 401', async () => {
    const key = await t.createKey(shopA, ['read']);
    expect((await t.get('/api/v1/locations', key)).status).toBe(200);
    const em = t.orm.em.fork();
    const { revokeApiKey, hashSecret } = await import('../../src/modules/auth/keys.ts');
    const row = await em.findOneOrFail(ApiKey, { secretHash: hashSecret(key) });
    await revokeApiKey(t.orm.em.fork(), row.id);
    const res = await t.get('/api/v1/locations', key);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHENTICATED');
  });

  it('an expired key is 401', async () => {
    const key = await t.createKey(shopA, ['read'], { expiresInMs: 1 });
    await new Promise((r) => setTimeout(r, 10));
    const res = await t.get('/api/v1/locations', key);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('invalid_token');
  });
});

describe('scopes (docs/api-conventions.md: 403 FORBIDDEN_SCOPE)', () => {
  it('a read-only key on a PATCH route is 403 with an insufficient_scope challenge', async () => {
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_x', key: readKey, payload: { expectedUpdatedAt: 'x' } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="write"');
    expect(res.json().code).toBe('FORBIDDEN_SCOPE');
  });

  it('a read-write key passes the scope check of a PATCH route', async () => {
    const res = await t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_x', key: writeKey, payload: {} });
    expect(res.statusCode).not.toBe(403);
    expect(res.statusCode).not.toBe(401);
  });

  it('a read key reads', async () => {
    expect((await t.get('/api/v1/assignees', readKey)).status).toBe(200);
  });
});

describe('tenancy (a key never sees another shop\'s data)', () => {
  it('each shop\'s key lists only its own locations and assignees, though ids collide across shops', async () => {
    const a = await t.get('/api/v1/locations', readKey);
    const b = await t.get('/api/v1/locations', keyB);
    expect(a.body.data.locations.map((l: any) => l.locationId)).toEqual(['103', '102', '101']);
    expect(b.body.data.locations).toEqual([{ locationId: '901', locationGid: 'gid://shopify/Location/901', name: 'Other shop depot' }]);
    const assigneesB = await t.get('/api/v1/assignees?includeInactive=true', keyB);
    expect(assigneesB.body.data.assignees.map((x: any) => x.assigneeId)).toEqual(['asg_other']);
  });

  it('GraphQL answers with the key\'s shop only', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', key: keyB, payload: { query: '{ locations { locationId } }' } });
    expect(res.json()).toEqual({ data: { locations: [{ locationId: '901' }] } });
  });

  it('an EntityManager that was never bound to a shop refuses entity queries (tenant filter)', async () => {
    const { PlatformLocation } = await import('../../src/platform/local-store.entity.ts');
    await expect(t.orm.em.fork().find(PlatformLocation, {})).rejects.toThrow(/No arguments provided for filter 'tenant'/);
  });
});

describe('rate limit (docs/api-conventions.md: token bucket per key, 429 RATE_LIMITED)', () => {
  it('the burst is served, the next request is 429 with Retry-After and RateLimit headers, other keys are unaffected', async () => {
    const limited = await createTestApp({ orm: t.orm, config: { rateLimitBurst: 3, rateLimitRefillPerSecond: 0.01 } });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await limited.request({ method: 'GET', url: '/api/v1/locations', key: readKey });
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(last!.json().code).toBe('RATE_LIMITED');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(last!.headers['ratelimit-limit']).toBe('3');
      expect(last!.headers['ratelimit-remaining']).toBe('0');
      expect((await limited.request({ method: 'GET', url: '/api/v1/locations', key: keyB })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
