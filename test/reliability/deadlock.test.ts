import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule (docs/reliability.md, "Faults"): a write that PostgreSQL rolls back because it collided with a
// concurrent transaction (a deadlock) is 503 UNAVAILABLE with Retry-After, not 500 INTERNAL; nothing of
// it was written, and the same request sent again (with its Idempotency-Key) is applied once.
// PostgreSQL only: PGlite has one connection, so two transactions never wait for each other.

let t: TestApp;
const shop = uniqueShopId('deadlock');
let key: string;

const VARIANT = 'VMAT-VAR-0001';
const LOCATION = '101';
const inventoryUrl = `/api/v1/raw-materials/${VARIANT}/inventory`;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(materialShop(shop)));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const level = async (): Promise<string> => {
  const [row] = await t.orm.em.fork().execute<{ available: string }[]>(
    'select available::text as available from material_levels where shop_id = ? and variant_id = ? and location_id = ?', [shop, VARIANT, LOCATION]);
  return row!.available;
};

/** Resolves once another backend waits for a lock this client's transaction holds (the write, on the event-sequence row). */
async function untilBlockedBy(client: pg.Client): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))');
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the write never waited for the event-sequence row');
}

describe.runIf(usingPostgres)('a write that deadlocks with another transaction (PostgreSQL)', () => {
  it('is 503 UNAVAILABLE with Retry-After and writes nothing; sent again with its Idempotency-Key it is applied once', async () => {
    // A first write records the shop's first event, so its event-sequence row exists to be locked.
    expect((await t.patch(inventoryUrl, key, { updates: [{ locationId: LOCATION, delta: 1 }] })).statusCode).toBe(200);
    const before = await level();

    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      // The other transaction holds the row the write locks last, and only the write runs the deadlock check
      // (after its own 1 s deadlock_timeout): this one waits far longer before it would.
      await other.query('begin');
      await other.query(`set local deadlock_timeout = '60s'`);
      await other.query('select last_sequence from event_sequences where shop_id = $1 for update', [shop]);
      const body = { updates: [{ locationId: LOCATION, delta: 2.5 }] };
      const idempotencyKey = `deadlock-${shop}`;
      const pending = t.patch(inventoryUrl, key, body, { 'idempotency-key': idempotencyKey });
      await untilBlockedBy(other);
      // The write holds the level's row and waits for the sequence row; now this one waits for the level's row.
      const blocked = other.query('update material_levels set available = available where shop_id = $1 and variant_id = $2 and location_id = $3', [shop, VARIANT, LOCATION]);
      const res = await pending;
      await blocked;
      await other.query('rollback');

      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
      expect(await level()).toBe(before);

      const again = await t.patch(inventoryUrl, key, body, { 'idempotency-key': idempotencyKey });
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotency-replayed']).toBeUndefined();
      const [moved] = await t.orm.em.fork().execute<{ exact: boolean }[]>(
        'select available - cast(? as numeric) = 2.5 as exact from material_levels where shop_id = ? and variant_id = ? and location_id = ?', [before, shop, VARIANT, LOCATION]);
      expect(moved!.exact).toBe(true);
    } finally {
      await other.end();
    }
  });
});
