import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../src/modules/auth/api-key.entity.ts';
import { hashSecret, revokeApiKey } from '../../src/modules/auth/keys.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule: a revoked key is answered 401 UNAUTHENTICATED saying it was revoked (REST problem and
// GraphQL alike), so its holder knows to ask for a new one; every other failure stays "not valid",
// and nothing is said about any other key.

let t: TestApp;
const shop = uniqueShopId('revoked');

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(datasetJson(shop)));
});
afterAll(() => t.close());

async function revokedKey(): Promise<string> {
  const key = await t.createKey(shop, ['read']);
  expect((await t.get('/api/v1/locations', key)).status).toBe(200);
  const row = await t.orm.em.fork().findOneOrFail(ApiKey, { secretHash: hashSecret(key) });
  await revokeApiKey(t.orm.em.fork(), row.id);
  return key;
}

describe('a revoked key is told it was revoked', () => {
  it('REST: 401 UNAUTHENTICATED problem+json, detail "this API key was revoked", invalid_token challenge', async () => {
    const key = await revokedKey();
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', detail: 'this API key was revoked' });
  });

  it('GraphQL: the same 401 with the same detail', async () => {
    const key = await revokedKey();
    const res = await t.request({ method: 'POST', url: '/graphql', key, payload: { query: '{ locations { locationId } }' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', detail: 'this API key was revoked' });
  });

  it.each([
    ['an unknown key', 'bck_thisKeyWasNeverIssuedByBomcore0000000000000'],
    ['a key one character off a revoked one', null],
  ])('%s is still only "not valid" (nothing about other keys)', async (_name, fixed) => {
    const key = fixed ?? (await revokedKey()).slice(0, -1) + 'x';
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'the API key is not valid' });
  });

  it('an expired key is "not valid", not "revoked"', async () => {
    const key = await t.createKey(shop, ['read'], { expiresInMs: 1 });
    await new Promise((r) => setTimeout(r, 10));
    const res = await t.request({ method: 'GET', url: '/api/v1/locations', key });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe('the API key is not valid');
  });
});
