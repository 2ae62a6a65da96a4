import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { openDatabase } from '../../src/app/database.ts';
import { LocalPlatformGateway } from '../../src/platform/local-gateway.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp } from '../helpers/test-app.ts';

describe('infrastructure failures', () => {
  it('an unreachable database is 503 UNAVAILABLE with Retry-After on /readyz and on API routes', async () => {
    const config = { ...loadConfig({}), databaseUrl: 'postgres://postgres@127.0.0.1:1/unreachable' };
    const orm = await openDatabase(config);
    const app = await buildApp({ config, orm, logger: false });
    try {
      for (const url of ['/readyz', '/api/v1/locations']) {
        const res = await app.inject({ url, headers: { authorization: 'Bearer bck_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG' } });
        expect(res.statusCode, url).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.json().code).toBe('UNAVAILABLE');
      }
    } finally {
      await app.close();
      await orm.close();
    }
  });

  it('an unexpected error is 500 INTERNAL quoting the request id and leaking nothing of the cause', async () => {
    const t = await createTestApp();
    const shop = uniqueShopId('fail');
    await t.load(toDataset(datasetJson(shop)));
    const key = await t.createKey(shop, ['read']);
    const failing = await buildApp({
      config: t.config, orm: t.orm, logger: false,
      // A platform adapter that fails unexpectedly: the real local adapter with one method broken.
      platform: (shop) => Object.assign(new LocalPlatformGateway(shop), {
        listLocations: () => Promise.reject(new Error('relation "secret_table" does not exist at 10.0.0.7')),
      }),
    });
    try {
      const res = await failing.inject({ url: '/api/v1/locations', headers: { authorization: `Bearer ${key}`, 'x-request-id': 'boom-1' } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'INTERNAL', detail: 'unexpected error; quote request id boom-1', requestId: 'boom-1', apiVersion: '1.2' });
      expect(res.body).not.toContain('secret_table');
      const gql = await failing.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key}` }, payload: { query: '{ locations { locationId } }' } });
      expect(gql.json().errors[0]).toMatchObject({ message: 'unexpected error', extensions: { code: 'INTERNAL' } });
      expect(gql.body).not.toContain('secret_table');
    } finally {
      await failing.close();
      await t.close();
    }
  });
});
