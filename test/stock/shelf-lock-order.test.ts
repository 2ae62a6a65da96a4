import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { graphqlCaller, only, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { stockSnapshot } from '../helpers/stock-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Rule (stock ledger, lock order): every consumer of a pre-assembled shelf locks the shelf's row
// before its residual row, so a build run's start (which locks the shelves it plans from, then the
// residuals of what it takes) and a hand count of the same shelf (adjustPreassembledStock) never
// wait for each other in a cycle: both answer 200, no deadlock (40P01, answered 503), and the shelf
// ends exactly where the two changes take it.
// PostgreSQL only: PGlite has one connection, so two transactions never wait for each other.

let t: TestApp;
let key: string;
const shop = uniqueShopId('shelf-lock');

beforeAll(async () => {
  t = await createTestApp();
  // BOM-1001 = 0.4 wax 44001 (+5%) + 1 × ASM-1: a start of one unit takes ASM-1 from its shelf
  // and 0.42 wax, whose residual ('44001') sorts before the shelf's ('ASM-1').
  await t.load(toDataset(workOrderShop(shop, [workOrder('wo_lock', 'in_progress')], { preassembled: [{ itemId: 'ASM-1', locationId: '101', quantity: 5 }] })));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const gql = graphqlCaller(() => t, () => key);
const ADJUST = `mutation($input: AdjustPreassembledStockInput!) { adjustPreassembledStock(input: $input) {
  preassembledStockAdjustment { before after delta } ${USER_ERRORS} } }`;

/** Resolves once `n` backends of this database wait for a lock. */
async function untilWaiting(client: pg.Client, n: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    if (Number(rows[0]!.n) >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${n} backends ever waited for a lock`);
}

describe.runIf(usingPostgres)('a build run start and a hand count of the same shelf at once (PostgreSQL)', () => {
  it('lock the shelf before its residual: no deadlock, both applied, the shelf exact', async () => {
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      const token = (await t.get('/api/v1/work-orders/wo_lock', key)).body.data.updatedAt as string;
      // The other transaction holds the wax's residual: the start, once it holds the shelf rows it
      // plans from, waits here before it takes the shelf's residual.
      await other.query('begin');
      await other.query(`set local deadlock_timeout = '60s'`);
      await other.query(`insert into residuals (shop_id, item_id, location_id, kind, quantity) values ($1, '44001', '101', 'buildRun', 0)
        on conflict (shop_id, item_id, location_id, kind) do update set quantity = residuals.quantity`, [shop]);
      const started = t.request({ method: 'PATCH', url: '/api/v1/work-orders/wo_lock/build-runs', key, headers: { 'content-type': 'application/json' },
        payload: { expectedUpdatedAt: token, buildRunId: 'lock-1', items: [{ itemId: 'woi_1', quantity: 1 }] } });
      await untilWaiting(other, 1);
      // The hand count meanwhile: taking the shelf's residual first, it would hold what the start
      // needs next while it waits for the shelf the start holds.
      const counted = gql(ADJUST, { input: { itemId: 'ASM-1', locationId: '101', delta: '1', reason: 'found' } });
      await untilWaiting(other, 2);
      await other.query('rollback');
      const [start, count] = await Promise.all([started, counted]);

      expect(start.statusCode).toBe(200);
      expect(start.json().data.picks).toContainEqual({ stock: 'preassembled', itemId: 'ASM-1', locationId: '101', quantity: 1, deducted: 1 });
      const adjusted = only(count);
      expect(adjusted.failure).toBeNull();
      // The start went first (it held the shelf): the count saw its result.
      expect(adjusted.result).toMatchObject({ before: '4', after: '5', delta: '1' });
      expect((await stockSnapshot(t.orm, shop))['shelf|ASM-1|101']).toBe('5');
    } finally {
      await other.end();
    }
  });
});
