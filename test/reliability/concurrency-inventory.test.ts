import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/*
 * Rule (issue 11 "Tests that keep it so"; PATCH /raw-materials/{variantId}/inventory: "applied in
 * order in one transaction"): 200 concurrent deltas on one level of one material lose nothing —
 * the final level is exactly the start plus the sum of the deltas (decimal-exact), and the
 * adjustment history holds 200 entries whose `after − before` are those deltas and whose
 * before/after chain without gaps. On PGlite (one connection, requests interleave at every await)
 * and on PostgreSQL (DATABASE_URL: a pool of real parallel connections, and a second app instance
 * with its own pool on the same database taking half of the requests).
 */

const N = 200;
const MATERIAL = 'VMAT-VAR-0003';
const LOCATION = '101';
const START_MICROS = 1_000_000_000; // 1,000 units, in millionths

let t: TestApp;
let second: TestApp | undefined;
let key: string;
const shop = uniqueShopId('conc');

/** Delta i in millionths: distinct, six fractional digits, positive (the level only rises, so the before-levels are distinct and chain). */
const deltaMicros = (i: number) => ((i * 7919) % 2_500_001) + 1;
const toUnits = (micros: number) => Number((micros / 1_000_000).toFixed(6));

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(materialShop(shop)));
  key = await t.createKey(shop, ['read', 'write']);
  // A second instance (its own ORM and pool) on the same PostgreSQL database, as two servers would run.
  if (usingPostgres) second = await createTestApp({ orm: await openTestOrm() });
});
afterAll(async () => {
  await second?.close();
  if (second) await second.orm.close();
  await t.close();
});

const patch = (app: TestApp, delta: number, requestId: string) => app.request({
  method: 'PATCH', url: `/api/v1/raw-materials/${MATERIAL}/inventory`, key,
  headers: { 'content-type': 'application/json', 'x-request-id': requestId }, payload: { updates: [{ locationId: LOCATION, delta }] },
});

describe(`200 concurrent inventory deltas on one level (${databaseLabel}${usingPostgres ? ', two app instances' : ''})`, () => {
  it('the final level is exactly the start plus every delta, and the history has 200 chained entries', async () => {
    const reset = await patch(t, 0, 'conc-reset');
    expect(reset.statusCode).toBe(200);
    const set = await t.request({ method: 'PATCH', url: `/api/v1/raw-materials/${MATERIAL}/inventory`, key, headers: { 'content-type': 'application/json' },
      payload: { updates: [{ locationId: LOCATION, absolute: toUnits(START_MICROS) }] } });
    expect(set.statusCode).toBe(200);
    const historyBefore = await t.orm.em.fork().execute<{ n: string }[]>(
      'select count(*)::text as n from inventory_adjustments where shop_id = ? and variant_id = ?', [shop, MATERIAL]);

    const deltas = Array.from({ length: N }, (_, i) => deltaMicros(i + 1));
    const started = performance.now();
    const results = await Promise.all(deltas.map((d, i) => patch(second && i % 2 === 1 ? second : t, toUnits(d), `conc-${i}`)));
    const elapsed = performance.now() - started;

    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s !== 200), `non-200 answers: ${results.filter((r) => r.statusCode !== 200).map((r) => r.body.slice(0, 200)).slice(0, 3).join(' | ')}`).toEqual([]);
    for (const r of results) expect(r.json().data).toMatchObject({ okCount: 1, failedCount: 0 });

    const expectedMicros = START_MICROS + deltas.reduce((a, b) => a + b, 0);
    const level = await t.get(`/api/v1/raw-materials/${MATERIAL}/inventory?locationIds=${LOCATION}`, key);
    expect(level.body.data.levels).toEqual([{ locationId: LOCATION, available: toUnits(expectedMicros) }]);

    const rows = await t.orm.em.fork().execute<{ before: string; after: string; delta: string; request_id: string }[]>(
      `select before::text, after::text, delta::text, request_id from inventory_adjustments
        where shop_id = ? and variant_id = ? and location_id = ? and request_id like 'conc-%' and request_id <> 'conc-reset' order by created_at, before`,
      [shop, MATERIAL, LOCATION]);
    expect(rows.length).toBe(N);
    const micros = (text: string) => Math.round(Number(text) * 1_000_000);
    // Every request is recorded once, with its own delta, and after − before equals it.
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(N);
    for (const row of rows) {
      const i = Number(row.request_id.slice('conc-'.length));
      expect(micros(row.delta)).toBe(deltas[i]);
      expect(micros(row.after) - micros(row.before)).toBe(deltas[i]);
    }
    // The entries chain: ordered by their before-level walk, each starts where another ended (no lost update).
    const befores = new Map(rows.map((r) => [micros(r.before), r]));
    let cursor = START_MICROS;
    for (let k = 0; k < N; k++) {
      const next = befores.get(cursor);
      expect(next, `no adjustment starts at ${toUnits(cursor)} (step ${k}): an update was lost or applied on a stale level`).toBeDefined();
      cursor = micros(next!.after);
    }
    expect(cursor).toBe(expectedMicros);
    expect(Number(historyBefore[0]!.n)).toBeGreaterThanOrEqual(1);
    console.log(`${databaseLabel}: ${N} concurrent deltas in ${elapsed.toFixed(0)} ms, final ${toUnits(expectedMicros)} exact, ${rows.length} history entries`);
  }, 120_000);
});
