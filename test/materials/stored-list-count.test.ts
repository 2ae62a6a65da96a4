import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId, usingPostgres } from '../helpers/database.ts';
import { virtualJson } from '../helpers/bom-context.ts';
import { gql, ok } from '../helpers/catalog-helpers.ts';
import { expectMaterialCountCurrent, materialCounts } from '../helpers/list-aggregates.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';

// O(page), not O(shop): the unfiltered materials list answers its totalCount from a stored per-shop
// count (material_list_counts), which the database keeps current on every write of `materials`
// (statement-level triggers, Migration20261202090000). After every kind of write the stored count is
// the count taken from scratch, and the lists answer it in their one statement.

let t: TestApp;
const shop = uniqueShopId('mlc');
const other = uniqueShopId('mlc-other');
let key: string;

const many = (n: number) => Array.from({ length: n }, (_, i) => virtualJson(`M${String(i).padStart(3, '0')}`, `Material ${String(i).padStart(3, '0')}`, [], { vendor: `Vendor ${i % 7}` }));
const archived = (suffix: string) => virtualJson(suffix, `Archived ${suffix}`, [], { archivedAt: '2026-11-01T00:00:00.000Z' });
const dataset = (shopId: string, n: number) => toDataset(datasetJson(shopId, {
  materials: [...(datasetJson(shopId).materials as unknown[]), ...many(n), archived('A001'), archived('A002')],
}));

beforeAll(async () => {
  t = await createTestApp();
  await t.load(dataset(shop, 30));
  await t.load(dataset(other, 5));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const sql = (text: string, params: unknown[] = []) => t.orm.em.fork().getConnection().execute(text, params);
const CREATE = `mutation($input: NewVirtualMaterialInput!) { createVirtualMaterial(input: $input) { rawMaterial { variantId } ${USER_ERRORS} } }`;
const ARCHIVE = `mutation($id: ID!, $archived: Boolean) { setRawMaterialArchived(variantId: $id, archived: $archived) { catalogArchive { archived } ${USER_ERRORS} } }`;

/** The unfiltered REST list's and GraphQL connection's totalCount, each asserted to be one statement. */
async function listedTotals(k = key): Promise<number[]> {
  const rest = await t.request({ method: 'GET', url: '/api/v1/raw-materials?sortBy=inventoryQuantity&sortOrder=desc&pageSize=5', key: k });
  expect(rest.statusCode).toBe(200);
  expect(rest.headers['x-query-count']).toBe('1');
  const gqlRes = await t.graphql(k, '{ rawMaterialConnection(first: 5) { totalCount } }');
  expect(gqlRes.statements).toBe(1);
  return [rest.json().data.totalCount, gqlRes.body.data.rawMaterialConnection.totalCount];
}

describe(`the stored materials list count on ${databaseLabel}`, () => {
  it('after a dataset load the stored count is the recount (archived materials left out), and both lists answer it in one statement', async () => {
    // 2 from the base dataset + 30, the 2 archived left out
    expect(await expectMaterialCountCurrent(t, shop)).toBe(32);
    expect(await expectMaterialCountCurrent(t, other)).toBe(7);
    expect(await listedTotals()).toEqual([32, 32]);
  });

  it('a filter still counts its matches exactly (search, origin, vendor, usage), as the rows it pages through', async () => {
    for (const query of ['search=material%2000', 'originFilter=platform', 'vendorFilter=Vendor%203', 'usageFilter=unused', 'search=zzz-none']) {
      const res = (await t.get(`/api/v1/raw-materials?${query}&pageSize=1000`, key)).body.data;
      expect(res.totalCount, query).toBe(res.items.length);
    }
    expect((await t.get('/api/v1/raw-materials?originFilter=virtual&pageSize=1000', key)).body.data.totalCount).toBe(31);
  });

  it('create, archive and restore (GraphQL) move the stored count by one each, and the lists follow', async () => {
    const created = ok(await gql(t, key, CREATE, { input: { productName: 'Counted' } })).createVirtualMaterial.variantId as string;
    expect(await expectMaterialCountCurrent(t, shop)).toBe(33);
    expect(await listedTotals()).toEqual([33, 33]);
    expect(ok(await gql(t, key, ARCHIVE, { id: created, archived: true })).setRawMaterialArchived.archived).toBe(true);
    expect(await expectMaterialCountCurrent(t, shop)).toBe(32);
    expect(await listedTotals()).toEqual([32, 32]);
    ok(await gql(t, key, ARCHIVE, { id: 'VMAT-VAR-A001', archived: false }));
    expect(await expectMaterialCountCurrent(t, shop)).toBe(33);
    expect(await listedTotals()).toEqual([33, 33]);
    // The other shop's count did not move.
    expect(await expectMaterialCountCurrent(t, other)).toBe(7);
  });

  it('multi-row statements over two shops (insert, archive, delete) keep both counts, and an update that lists nothing new writes no count', async () => {
    const row = (s: string, id: string, archivedAt: string | null) => [s, id, 'virtual', `P-${id}`, `I-${id}`, `Bulk ${id}`, archivedAt];
    const rows = [row(shop, 'VMAT-B1', null), row(shop, 'VMAT-B2', null), row(shop, 'VMAT-B3', '2026-11-01'), row(other, 'VMAT-B1', null), row(other, 'VMAT-B2', null)];
    await sql(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, archived_at, updated_at)
      values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?::timestamptz, now())').join(', ')}`, rows.flat());
    expect(await expectMaterialCountCurrent(t, shop)).toBe(35);
    expect(await expectMaterialCountCurrent(t, other)).toBe(9);

    await sql(`update materials set archived_at = case when variant_id = 'VMAT-B3' then null else now() end
      where shop_id in (?, ?) and variant_id like 'VMAT-B%'`, [shop, other]);
    expect(await expectMaterialCountCurrent(t, shop)).toBe(34);
    expect(await expectMaterialCountCurrent(t, other)).toBe(7);

    // A rename of every row (as a platform mirror update) changes no count: the count rows are not even written.
    const version = async () => (await sql(`select xmin::text as x from material_list_counts where shop_id = ?`, [shop]))[0].x;
    const before = await version();
    await sql(`update materials set product_name = product_name || '.' where shop_id in (?, ?)`, [shop, other]);
    expect(await version()).toBe(before);
    expect(await expectMaterialCountCurrent(t, shop)).toBe(34);

    await sql(`delete from materials where shop_id in (?, ?) and variant_id like 'VMAT-B%'`, [shop, other]);
    expect(await expectMaterialCountCurrent(t, shop)).toBe(33);
    expect(await expectMaterialCountCurrent(t, other)).toBe(7);
    expect(await listedTotals()).toEqual([33, 33]);
  });

  it('a write rolled back leaves the count as it was', async () => {
    await expect(t.orm.em.fork().transactional(async (em) => {
      await em.execute(`insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, updated_at)
        values (?, 'VMAT-RB', 'virtual', 'P', 'I', 'Rolled back', now())`, [shop], 'run');
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await expectMaterialCountCurrent(t, shop)).toBe(33);
  });

  it('a re-load replacing the shop with fewer materials (delete all, insert in batches) leaves the recount', async () => {
    await t.load(dataset(shop, 3));
    expect(await expectMaterialCountCurrent(t, shop)).toBe(5);
    expect(await listedTotals()).toEqual([5, 5]);
    expect(await expectMaterialCountCurrent(t, other)).toBe(7);
  });

  it('a shop without materials (no count row) answers 0', async () => {
    const empty = uniqueShopId('mlc-empty');
    await t.load(toDataset(datasetJson(empty, { materials: [], assemblyBills: [], boms: [] })));
    expect(await materialCounts(t, empty)).toEqual({ stored: 0, fresh: 0 });
    expect(await listedTotals(await t.createKey(empty, ['read']))).toEqual([0, 0]);
  });

  // Concurrent writers need two connections: PGlite has one.
  if (usingPostgres) {
    it.each([['a shop with a count row', () => shop], ['a new shop (both insert its first count row)', () => uniqueShopId('mlc-race')]])(
      'two transactions inserting materials of one shop at once both count (%s): the second waits for the first and adds to its committed count',
      async (_label, shopOf) => {
        const s = shopOf();
        const start = (await materialCounts(t, s)).stored;
        const insert = (id: string) => `insert into materials (shop_id, variant_id, origin, product_id, inventory_item_id, product_name, updated_at)
          values ('${s}', '${id}', 'virtual', 'P', 'I', 'Race', now()), ('${s}', '${id}-2', 'virtual', 'P', 'I', 'Race', now())`;
        let inserted!: () => void;
        let commit!: () => void;
        const firstInserted = new Promise<void>((resolve) => { inserted = resolve; });
        const mayCommit = new Promise<void>((resolve) => { commit = resolve; });
        const first = t.orm.em.fork().transactional(async (em) => {
          await em.execute(insert('VMAT-R1'), [], 'run');
          inserted();
          await mayCommit;
        });
        await firstInserted;
        const second = t.orm.em.fork().transactional(async (em) => { await em.execute(insert('VMAT-R2'), [], 'run'); });
        // The second is blocked on the first's count row until the first commits.
        let waiting: unknown[] = [];
        for (let i = 0; i < 50 && waiting.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 20));
          waiting = await sql(`select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%VMAT-R2%'`);
        }
        expect(waiting).toHaveLength(1);
        commit();
        await Promise.all([first, second]);
        expect((await materialCounts(t, s)).stored).toBe(start + 4);
        await expectMaterialCountCurrent(t, s);
      },
    );
  }
});
