import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../../src/app/database.ts';

// Runs on its own in-memory PGlite whatever DATABASE_URL says: migrating a shared PostgreSQL
// database down and up would drop tables under the other test files.
let orm: Orm;
beforeAll(async () => {
  orm = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
  await orm.migrator.up({ to: 'Migration20261122210000' });
});
afterAll(() => orm.close());

describe('QC per item: the migration that adds review items', () => {
  it('carries a whole-run review over as its decision applied to every unit each item of the run built; a review naming no run gets no items', async () => {
    const em = orm.em.fork();
    const at = '2026-11-01T09:00:00.000Z';
    await em.execute(`insert into build_run_items (shop_id, work_order_id, build_run_id, item_id, quantity) values
      ('s1', 'wo_1', 'run-a', 'woi_1', 3), ('s1', 'wo_1', 'run-a', 'woi_2', 2.5), ('s1', 'wo_1', 'run-b', 'woi_1', 7),
      ('s2', 'wo_1', 'run-a', 'woi_1', 99)`);
    await em.execute(`insert into qc_reviews (shop_id, work_order_id, review_id, build_run_id, decision, created_at) values
      ('s1', 'wo_1', 'qc_1', 'run-a', 'rejected', '${at}'), ('s1', 'wo_1', 'qc_2', 'run-b', 'approved', '${at}'),
      ('s1', 'wo_1', 'qc_3', null, 'approved', '${at}')`);
    await orm.migrator.up();
    const rows = await em.execute(`select shop_id, review_id, item_id, approved_quantity::text as approved, failed_quantity::text as failed
      from qc_review_items order by shop_id, review_id, item_id`);
    expect(rows).toEqual([
      { shop_id: 's1', review_id: 'qc_1', item_id: 'woi_1', approved: '0.000000', failed: '3.000000' },
      { shop_id: 's1', review_id: 'qc_1', item_id: 'woi_2', approved: '0.000000', failed: '2.500000' },
      { shop_id: 's1', review_id: 'qc_2', item_id: 'woi_1', approved: '7.000000', failed: '0.000000' },
    ]);
  });
});
