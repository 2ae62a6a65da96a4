import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../rest-facade/routes/index.ts';
import { requestHash } from '../../src/http/requests/idempotency-hooks.ts';
import { IDEMPOTENCY_TTL_MS } from '../../src/modules/idempotency/idempotency.store.ts';
import pg from 'pg';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule: a PATCH with an Idempotency-Key runs once per shop and key; a retry with the same key and
// body within 24 h gets the stored response, another body 422, a concurrent twin 409. A key is held
// until its request's deadline at most: a claim that lapsed with nothing committed is taken over.
// (Database faults: idempotency-faults.test.ts.)

let t: TestApp;
const shop = uniqueShopId('idem');
const otherShop = uniqueShopId('idem-other');
let key: string;
let otherKey: string;
let counter = 0;
const freshKey = () => `test-${process.pid}-${Date.now()}-${++counter}`;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(materialShop(shop)));
  await t.load(toDataset(materialShop(otherShop)));
  key = await t.createKey(shop, ['read', 'write']);
  otherKey = await t.createKey(otherShop, ['read', 'write']);
});
afterAll(() => t.close());

const patchInventory = (variantId: string, payload: unknown, idempotencyKey?: string, apiKey = key) =>
  t.request({
    method: 'PATCH', url: `/api/v1/raw-materials/${variantId}/inventory`, key: apiKey, payload: payload as any,
    headers: { 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
  });
const level = async (variantId: string, locationId: string, apiKey = key): Promise<number> => {
  const res = await t.get(`/api/v1/raw-materials/${variantId}/inventory?locationIds=${locationId}`, apiKey);
  expect(res.status).toBe(200);
  return res.body.data.totalAvailable as number;
};
const adjustments = async (shopId: string, variantId: string): Promise<number> => {
  const [row] = await t.orm.em.fork().execute<{ n: string }[]>(
    'select count(*) as n from inventory_adjustments where shop_id = ? and variant_id = ?', [shopId, variantId]);
  return Number(row!.n);
};
const storedKey = async (shopId: string, idempotencyKey: string) => {
  const [row] = await t.orm.em.fork().execute<any[]>(
    'select state, response_status, created_at, expires_at, claimed_until from idempotency_keys where shop_id = ? and key = ?', [shopId, idempotencyKey]);
  return row;
};
/** A claim left by a request that died: `in_flight`, held until `claimedUntil`, nothing stored. */
const leftClaim = (variantId: string, body: unknown, idempotencyKey: string, claimedUntil: string) => t.orm.em.fork().execute(
  `insert into idempotency_keys (shop_id, key, request_hash, state, claim_token, created_at, expires_at, claimed_until)
   values (?, ?, ?, 'in_flight', 'dead-request', now(), now() + interval '24 hours', now() + cast(? as interval))`,
  [shop, idempotencyKey, requestHash({ method: 'PATCH', url: `/api/v1/raw-materials/${variantId}/inventory`, body }), claimedUntil]);

describe('Idempotency-Key on PATCH', () => {
  it('a delta retried after a lost response is applied once: the retry gets the stored response, marked replayed', async () => {
    const before = await level('VMAT-VAR-0001', '101');
    const history = await adjustments(shop, 'VMAT-VAR-0001');
    const k = freshKey();
    const body = { updates: [{ locationId: '101', delta: 1.5 }] };
    const first = await patchInventory('VMAT-VAR-0001', body, k); // the client never sees this answer
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    const retries = [];
    for (let i = 0; i < 3; i++) retries.push(await patchInventory('VMAT-VAR-0001', body, k));
    for (const retry of retries) {
      expect(retry.statusCode).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBe('true');
      expect(retry.headers['content-type']).toBe(first.headers['content-type']);
      expect(retry.body).toBe(first.body);
    }
    expect(await level('VMAT-VAR-0001', '101')).toBeCloseTo(before + 1.5, 6);
    expect(await adjustments(shop, 'VMAT-VAR-0001')).toBe(history + 1);
  });

  it('a lost response over a real connection (client gone before the answer): the retry applies nothing', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 }).then(() => t.app.server.address() as AddressInfo);
    const before = await level('VMAT-VAR-0002', '101');
    const k = freshKey();
    const body = JSON.stringify({ updates: [{ locationId: '101', delta: 2 }] });
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1', port: address.port, method: 'PATCH', path: '/api/v1/raw-materials/VMAT-VAR-0002/inventory',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': k, 'content-length': Buffer.byteLength(body) },
      });
      req.on('error', () => resolve());
      // The whole request is on the wire; the connection drops before any answer is read.
      req.end(body, () => setTimeout(() => { req.destroy(); resolve(); }, 5));
    });
    // The server finishes the request and stores its response.
    const deadline = Date.now() + 10_000;
    while ((await storedKey(shop, k))?.state !== 'done') {
      if (Date.now() > deadline) throw new Error('the first request was never stored');
      await new Promise((r) => setTimeout(r, 50));
    }
    const retry = await patchInventory('VMAT-VAR-0002', JSON.parse(body), k);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.json().data.results[0]).toMatchObject({ ok: true, previousAvailable: before, appliedDelta: 2 });
    expect(await level('VMAT-VAR-0002', '101')).toBeCloseTo(before + 2, 6);
  });

  it('the same key with another body, path or method is 422 IDEMPOTENCY_KEY_REUSED and changes nothing', async () => {
    const k = freshKey();
    expect((await patchInventory('VMAT-VAR-0001', { updates: [{ locationId: '102', delta: 1 }] }, k)).statusCode).toBe(200);
    const after = await level('VMAT-VAR-0001', '102');
    const otherBody = await patchInventory('VMAT-VAR-0001', { updates: [{ locationId: '102', delta: 2 }] }, k);
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.headers['content-type']).toContain('application/problem+json');
    expect(otherBody.json()).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    const otherPath = await patchInventory('VMAT-VAR-0002', { updates: [{ locationId: '102', delta: 1 }] }, k);
    expect(otherPath.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await level('VMAT-VAR-0001', '102')).toBe(after);
  });

  it('the same body with its keys in another order is the same request (replayed)', async () => {
    const k = freshKey();
    const first = await patchInventory('VMAT-VAR-0001', { updates: [{ locationId: '102', delta: 0.5 }] }, k);
    const again = await patchInventory('VMAT-VAR-0001', { updates: [{ delta: 0.5, locationId: '102' }] }, k);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('20 concurrent requests with one key: one applies, the others are 409 CONFLICT (in flight) or the replay', async () => {
    const before = await level('VMAT-VAR-0003', '101');
    const history = await adjustments(shop, 'VMAT-VAR-0003');
    const k = freshKey();
    const body = { updates: [{ locationId: '101', delta: 3 }] };
    const answers = await Promise.all(Array.from({ length: 20 }, () => patchInventory('VMAT-VAR-0003', body, k)));
    const applied = answers.filter((a) => a.statusCode === 200 && a.headers['idempotency-replayed'] === undefined);
    const conflicts = answers.filter((a) => a.statusCode === 409);
    expect(applied).toHaveLength(1);
    for (const c of conflicts) {
      expect(c.json().code).toBe('CONFLICT');
      expect(c.headers['retry-after']).toBe('1');
    }
    expect(answers.every((a) => a.statusCode === 409 || a.statusCode === 200)).toBe(true);
    expect(await level('VMAT-VAR-0003', '101')).toBeCloseTo(before + 3, 6);
    expect(await adjustments(shop, 'VMAT-VAR-0003')).toBe(history + 1);
  });

  it('a key is kept 24 h from its first use; once expired, the same key and body run again', async () => {
    const k = freshKey();
    const body = { updates: [{ locationId: '102', delta: 1 }] };
    const before = await level('VMAT-VAR-0003', '102');
    expect((await patchInventory('VMAT-VAR-0003', body, k)).statusCode).toBe(200);
    const row = await storedKey(shop, k);
    expect(row.state).toBe('done');
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(IDEMPOTENCY_TTL_MS);
    // Claimed for the request's deadline (BOMCORE_REQUEST_DEADLINE_MS), not for the key's 24 h.
    expect(new Date(row.claimed_until).getTime() - new Date(row.created_at).getTime()).toBe(t.config.requestDeadlineMs);
    expect((await patchInventory('VMAT-VAR-0003', body, k)).headers['idempotency-replayed']).toBe('true');
    expect(await level('VMAT-VAR-0003', '102')).toBeCloseTo(before + 1, 6);
    // 24 h later (the clock moved past expires_at):
    await t.orm.em.fork().execute(
      `update idempotency_keys set created_at = created_at - interval '24 hours', expires_at = expires_at - interval '24 hours' where shop_id = ? and key = ?`,
      [shop, k]);
    const later = await patchInventory('VMAT-VAR-0003', body, k);
    expect(later.statusCode).toBe(200);
    expect(later.headers['idempotency-replayed']).toBeUndefined();
    expect(await level('VMAT-VAR-0003', '102')).toBeCloseTo(before + 2, 6);
  });

  it('a claim held past its deadline by a request that died (nothing committed) is taken over: the retry applies once', async () => {
    const k = freshKey();
    const body = { updates: [{ locationId: '101', delta: 4 }] };
    const before = await level('VMAT-VAR-0003', '101');
    await leftClaim('VMAT-VAR-0003', body, k, '-1 second');
    const retry = await patchInventory('VMAT-VAR-0003', body, k);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    expect((await storedKey(shop, k)).state).toBe('done');
    expect(await level('VMAT-VAR-0003', '101')).toBeCloseTo(before + 4, 6);
    expect((await patchInventory('VMAT-VAR-0003', body, k)).headers['idempotency-replayed']).toBe('true');
    expect(await level('VMAT-VAR-0003', '101')).toBeCloseTo(before + 4, 6);
  });

  it('before its deadline a claim is 409 CONFLICT with Retry-After: 1, naming when the key is free again; another body is still 422', async () => {
    const k = freshKey();
    const body = { updates: [{ locationId: '101', delta: 1 }] };
    const before = await level('VMAT-VAR-0003', '101');
    await leftClaim('VMAT-VAR-0003', body, k, '1 minute');
    const held = await patchInventory('VMAT-VAR-0003', body, k);
    expect(held.statusCode).toBe(409);
    expect(held.headers['retry-after']).toBe('1');
    expect(held.json().code).toBe('CONFLICT');
    const { claimed_until } = await storedKey(shop, k);
    expect(held.json().detail).toContain(new Date(claimed_until).toISOString());
    expect((await patchInventory('VMAT-VAR-0003', { updates: [{ locationId: '101', delta: 2 }] }, k)).statusCode).toBe(422);
    expect(await level('VMAT-VAR-0003', '101')).toBe(before);
  });

  it('expired keys of the shop are deleted on its next keyed write (cleanup on write)', async () => {
    const s = uniqueShopId('idem-purge');
    await t.load(toDataset(materialShop(s)));
    const k = await t.createKey(s, ['read', 'write']);
    await t.orm.em.fork().execute(
      `insert into idempotency_keys (shop_id, key, request_hash, state, claim_token, created_at, expires_at, claimed_until)
       values (?, 'old', 'x', 'done', 'x', now() - interval '25 hours', now() - interval '1 hour', now() - interval '25 hours')`, [s]);
    expect((await patchInventory('VMAT-VAR-0001', { updates: [{ locationId: '101', delta: 1 }] }, freshKey(), k)).statusCode).toBe(200);
    // The purge runs once the response has gone out (onResponse), so the write is not slowed by it.
    await vi.waitFor(async () => expect(await storedKey(s, 'old')).toBeUndefined(), { timeout: 5000, interval: 20 });
  });

  it('keys are per shop: another shop using the same key runs its own request', async () => {
    const k = freshKey();
    const body = { updates: [{ locationId: '101', delta: 1 }] };
    const before = await level('VMAT-VAR-0001', '101', otherKey);
    expect((await patchInventory('VMAT-VAR-0001', body, k)).statusCode).toBe(200);
    const other = await patchInventory('VMAT-VAR-0001', body, k, otherKey);
    expect(other.statusCode).toBe(200);
    expect(other.headers['idempotency-replayed']).toBeUndefined();
    expect(await level('VMAT-VAR-0001', '101', otherKey)).toBeCloseTo(before + 1, 6);
  });

  it('a 4xx answer is stored and replayed too; without the header every PATCH runs', async () => {
    const k = freshKey();
    const missing = await patchInventory('VMAT-VAR-9999', { updates: [{ locationId: '101', delta: 1 }] }, k);
    expect(missing.statusCode).toBe(404);
    const replay = await patchInventory('VMAT-VAR-9999', { updates: [{ locationId: '101', delta: 1 }] }, k);
    expect(replay.statusCode).toBe(404);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.headers['content-type']).toContain('application/problem+json');

    const before = await level('VMAT-VAR-0002', '102');
    await patchInventory('VMAT-VAR-0002', { updates: [{ locationId: '102', delta: 1 }] });
    await patchInventory('VMAT-VAR-0002', { updates: [{ locationId: '102', delta: 1 }] });
    expect(await level('VMAT-VAR-0002', '102')).toBeCloseTo(before + 2, 6);
  });

  it('a key that is not 1–255 visible ASCII characters is 400 and claims nothing', async () => {
    const long = 'k'.repeat(256);
    const res = await patchInventory('VMAT-VAR-0001', { updates: [{ locationId: '101', delta: 1 }] }, long);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_INPUT');
    expect(await storedKey(shop, long)).toBeUndefined();
  });

  // Needs a second connection holding a row lock while the PATCH waits: PostgreSQL (PGlite has one connection).
  it.runIf(usingPostgres)('a 503 from the request deadline: the abandoned write rolls back when it finishes and frees the key; the retry applies once', async () => {
    const slow = await createTestApp({ orm: t.orm, config: { requestDeadlineMs: 400 } });
    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    try {
      const k = freshKey();
      const body = { updates: [{ locationId: '102', delta: 7 }] };
      const before = await level('VMAT-VAR-0002', '102');
      await blocker.query('begin');
      // Writes to stock levels wait (plain reads do not), for the few hundred ms this test needs.
      await blocker.query('lock table material_levels in exclusive mode');
      const first = await slow.request({
        method: 'PATCH', url: '/api/v1/raw-materials/VMAT-VAR-0002/inventory', key, payload: body,
        headers: { 'content-type': 'application/json', 'idempotency-key': k },
      });
      expect(first.statusCode).toBe(503);
      // The abandoned request goes on once the lock is gone, finds its deadline passed, rolls back
      // and gives the key back.
      await blocker.query('commit');
      await vi.waitFor(async () => expect(await storedKey(shop, k)).toBeUndefined(), { timeout: 10_000, interval: 20 });
      expect((await level('VMAT-VAR-0002', '102')).toFixed(6)).toBe(before.toFixed(6));
      const retry = await patchInventory('VMAT-VAR-0002', body, k);
      expect(retry.statusCode).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBeUndefined();
      expect((await patchInventory('VMAT-VAR-0002', body, k)).headers['idempotency-replayed']).toBe('true');
      expect((await level('VMAT-VAR-0002', '102')).toFixed(6)).toBe((before + 7).toFixed(6));
    } finally {
      await blocker.end();
      await slow.close();
    }
  });

  it('the OpenAPI document lists the Idempotency-Key header, 409 and 422 on every PATCH', async () => {
    const doc = t.app.swagger() as any;
    const patches = Object.entries(doc.paths as Record<string, any>).filter(([, item]) => item.patch).map(([path, item]) => [path, item.patch]);
    expect(patches.length).toBe(routes.filter((r) => r.method === 'PATCH').length);
    expect(patches.length).toBeGreaterThan(0);
    for (const [path, op] of patches) {
      const header = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      expect(header, `${path} Idempotency-Key`).toBeTruthy();
      expect(header.required ?? false).toBe(false);
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['409', '422']));
    }
  });
});
