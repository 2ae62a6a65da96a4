import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { bomJson, variantJson } from '../helpers/bom-context.ts';
import { gql, ok } from '../helpers/catalog-helpers.ts';
import { bomStats, expectBomStatsCurrent, type BomStatsFigures } from '../helpers/list-aggregates.ts';
import { USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// O(page), not O(shop): the BOM list's stats (total, active, inactive, platform-linked, total value;
// avgCost derives from them) are a stored per-shop row (bom_list_stats) that the database keeps
// current on every write of the list entries (statement-level triggers, Migration20261202090000).
// After every kind of write the stored row is the recount from the BOMs themselves, and the list
// answers it in its one statement.

let t: TestApp;
const shop = uniqueShopId('bls');
const other = uniqueShopId('bls-other');
let key: string;

// Every third BOM has a finished good of its own (a variant is the finished good of one BOM at most).
const boms = (n: number) => [
  ...(datasetJson(shop).boms as unknown[]),
  ...Array.from({ length: n }, (_, i) => bomJson(`BOM-${2000 + i}`, i % 3 === 0 ? `${45000 + i}` : null, [['44001', 0.1 + i, i % 4]], [['ASM-1', 1]],
    { status: i % 2 === 0 ? 'active' : 'inactive' })),
  bomJson('BOM-3000', '45999', [['44001', 1]], [], { archivedAt: '2026-11-01T00:00:00.000Z' }),
];
const dataset = (shopId: string, n: number) => {
  const base = datasetJson(shopId);
  const platform = base.platform as { variants: unknown[] };
  const goods = [...Array.from({ length: 20 }, (_, i) => `${45000 + i}`), '45900', '45999'].map((id) => variantJson(id, `Good ${id}`));
  return toDataset({ ...base, platform: { ...platform, variants: [...platform.variants, ...goods] }, boms: boms(n) });
};

beforeAll(async () => {
  t = await createTestApp();
  await t.load(dataset(shop, 12));
  await t.load(dataset(other, 4));
  key = await t.createKey(shop, ['read', 'write']);
});
afterAll(() => t.close());

const sql = (text: string, params: unknown[] = []) => t.orm.em.fork().getConnection().execute(text, params);
const CREATE_BOM = `mutation($input: NewBomInput!) { createBom(input: $input) { bomSave { bom { bomId } } ${USER_ERRORS} } }`;
const UPDATE_BOM = `mutation($id: String!, $input: BomPatchInput!) { updateBom(bomId: $id, input: $input) { bomSave { bom { bomId } } ${USER_ERRORS} } }`;
const ARCHIVE_BOM = `mutation($id: String!, $archived: Boolean) { setBomArchived(bomId: $id, archived: $archived) { catalogArchive { archived } ${USER_ERRORS} } }`;

/**
 * The list's stats (REST, one statement) are the stored figures, and each list's count without a
 * search (REST and the GraphQL connection, each one statement) is the stored count of its status.
 */
async function expectListAnswers(stored: BomStatsFigures): Promise<void> {
  const total = stored.active + stored.inactive;
  const res = await t.request({ method: 'GET', url: '/api/v1/bills-of-materials?pageSize=5', key });
  expect(res.statusCode).toBe(200);
  expect(res.headers['x-query-count']).toBe('1');
  const { stats, totalCount } = res.json().data;
  expect(stats).toMatchObject({ total, active: stored.active, inactive: stored.inactive, platformLinked: stored.platformLinked, totalValue: Number(stored.totalValue) });
  expect(totalCount).toBe(total);
  for (const [status, count] of [['active', stored.active], ['inactive', stored.inactive]] as const) {
    expect((await t.get(`/api/v1/bills-of-materials?statusFilter=${status}&pageSize=5`, key)).body.data.totalCount).toBe(count);
    const connection = await t.graphql(key, `{ bomConnection(statusFilter: ${status}, first: 3) { totalCount } }`);
    expect(connection.statements).toBe(1);
    expect(connection.body.data.bomConnection.totalCount).toBe(count);
  }
  const all = await t.graphql(key, '{ bomConnection(first: 3) { totalCount } }');
  expect(all.body.data.bomConnection.totalCount).toBe(total);
}

describe(`the stored BOM list stats on ${databaseLabel}`, () => {
  it('after a dataset load the stored stats are the recount (the archived BOM left out), and the list answers them in one statement', async () => {
    const stored = await expectBomStatsCurrent(t, shop);
    // BOM-1001 (active, linked) + 12: 6 active, 6 inactive, 4 linked (i = 0, 3, 6, 9)
    expect(stored).toMatchObject({ active: 7, inactive: 6, platformLinked: 5 });
    expect(Number(stored.totalValue)).toBeGreaterThan(0);
    await expectListAnswers(stored);
    await expectBomStatsCurrent(t, other);
  });

  it('a search counts its matches exactly, and the stats ignore it', async () => {
    const stored = await expectBomStatsCurrent(t, shop);
    const res = (await t.get('/api/v1/bills-of-materials?search=bom-200&pageSize=1000', key)).body.data;
    expect(res.totalCount).toBe(res.items.length);
    expect(res.totalCount).toBe(10);
    expect(res.stats.total).toBe(stored.active + stored.inactive);
  });

  it('create, a status change, linking and unlinking a finished good, archive and restore (GraphQL) each leave the recount', async () => {
    const created = ok(await gql(t, key, CREATE_BOM, { input: { name: 'Counted', rawMaterialLines: [{ nodeId: '44001', quantity: '2.5' }] } })).createBom.bom.bomId;
    const afterCreate = await expectBomStatsCurrent(t, shop);
    expect(afterCreate.active).toBe(8);
    await expectListAnswers(afterCreate);

    ok(await gql(t, key, UPDATE_BOM, { id: created, input: { status: 'inactive' } }));
    expect(await expectBomStatsCurrent(t, shop)).toMatchObject({ active: 7, inactive: 7 });
    ok(await gql(t, key, UPDATE_BOM, { id: created, input: { variantId: '45900' } }));
    expect((await expectBomStatsCurrent(t, shop)).platformLinked).toBe(6);
    ok(await gql(t, key, UPDATE_BOM, { id: 'BOM-1001', input: { variantId: null } }));
    expect((await expectBomStatsCurrent(t, shop)).platformLinked).toBe(5);

    ok(await gql(t, key, ARCHIVE_BOM, { id: created, archived: true }));
    expect(await expectBomStatsCurrent(t, shop)).toMatchObject({ active: 7, inactive: 6, platformLinked: 4 });
    ok(await gql(t, key, ARCHIVE_BOM, { id: 'BOM-3000', archived: false }));
    const restored = await expectBomStatsCurrent(t, shop);
    expect(restored).toMatchObject({ active: 8, inactive: 6, platformLinked: 5 });
    await expectListAnswers(restored);
    await expectBomStatsCurrent(t, other);
  });

  it('a material cost change reprices the BOMs above it, and the stored total value follows exactly', async () => {
    const before = await expectBomStatsCurrent(t, shop);
    const res = await t.patch('/api/v1/raw-materials/VMAT-VAR-0001', key, { unitCost: 0.051234 });
    expect(res.statusCode).toBe(200);
    const after = await expectBomStatsCurrent(t, shop);
    expect(after.totalValue).not.toBe(before.totalValue);
    await expectListAnswers(after);
  });

  it('multi-row statements on the list entries of two shops (update, delete) keep both rows', async () => {
    await sql(`update bom_list_entries set status = case status when 'active' then 'inactive' else 'active' end, total_cost = total_cost * 3,
      variant_id = case when variant_id is null then 'V' end where shop_id in (?, ?)`, [shop, other]);
    await expectBomStatsCurrent(t, shop, 'entries');
    await expectBomStatsCurrent(t, other, 'entries');
    // A rewrite that changes nothing the stats count writes no stats row.
    const version = async () => (await sql(`select xmin::text as x from bom_list_stats where shop_id = ?`, [shop]))[0].x;
    const before = await version();
    await sql(`update bom_list_entries set name_rank = name_rank + 0 where shop_id in (?, ?)`, [shop, other]);
    expect(await version()).toBe(before);
    await sql(`delete from bom_list_entries where shop_id in (?, ?) and bom_id like 'BOM-20%'`, [shop, other]);
    // BOM-1001 and the restored BOM-3000 are left (the created BOM is archived)
    const left = await expectBomStatsCurrent(t, shop, 'entries');
    expect(left.active + left.inactive).toBe(2);
    await expectBomStatsCurrent(t, other, 'entries');
  });

  it('a re-load rebuilds the entries (delete all, insert) and the stored stats are the recount again', async () => {
    await t.load(dataset(shop, 5));
    const stored = await expectBomStatsCurrent(t, shop);
    expect(stored).toMatchObject({ active: 4, inactive: 2, platformLinked: 3 });
    await expectListAnswers(stored);
  });

  it('a shop without BOMs (no stats row) answers zeros', async () => {
    const empty = uniqueShopId('bls-empty');
    await t.load(toDataset(datasetJson(empty, { boms: [] })));
    expect(await bomStats(t, empty)).toEqual({
      stored: { active: 0, inactive: 0, platformLinked: 0, totalValue: '0' }, fresh: { active: 0, inactive: 0, platformLinked: 0, totalValue: '0' },
    });
    const res = await t.get('/api/v1/bills-of-materials', await t.createKey(empty, ['read']));
    expect(res.body.data).toMatchObject({ totalCount: 0, stats: { total: 0, active: 0, inactive: 0, totalValue: 0, avgCost: 0, platformLinked: 0 } });
  });
});
