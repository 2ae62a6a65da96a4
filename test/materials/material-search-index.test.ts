import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materialFilter } from '../../src/modules/materials/material-filters.ts';
import { materialsSql } from '../../src/modules/materials/tables.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { materialShop } from '../helpers/material-fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// The materials search does not scan: a search of three characters or more is answered through the
// trigram index on the stored lowered search text (materials_search_text_trgm_index), and its
// answers are exactly those of a scan (the index proposes rows, the database rechecks each).

const shop = uniqueShopId('search-index');
const COUNT = 4000;
const VENDORS = ['WaxCo', 'WickWorks', 'Acme', 'Jar & Lid Ltd', 'Perfumery 100%'];
let t: TestApp;
let key: string;

beforeAll(async () => {
  const json = materialShop(shop) as { materials: Record<string, unknown>[] };
  for (let i = 0; i < COUNT; i++) {
    const n = String(1000 + i).padStart(4, '0');
    json.materials.push({
      variantId: `VMAT-VAR-S${n}`, productId: `VMAT-PROD-S${n}`, inventoryItemId: `VMAT-INV-S${n}`,
      productName: `${['Soy', 'Coconut', 'Beeswax', 'Rapeseed'][i % 4]} blend ${i}`, variantName: i % 7 === 0 ? null : `${i % 50} kg`,
      sku: `SKU-${i.toString(36).toUpperCase()}`, vendor: VENDORS[i % VENDORS.length], unit: 'kg', unitCost: 1, unitPrice: 0, levels: [],
    });
  }
  t = await createTestApp();
  await t.load(toDataset(json));
  key = await t.createKey(shop, ['read']);
  await t.orm.em.fork().execute('analyze materials');
}, 120_000);
afterAll(() => t?.close());

const search = (text: string) => ({ search: text, usageFilter: 'all' as const, originFilter: 'all' as const, vendorFilter: [] });
const idsQuery = (text: string) => materialsSql.selectFrom('materials as m').select('m.variant_id').where(materialFilter(shop, search(text))).orderBy('m.variant_id').compile();

async function plan(text: string): Promise<string> {
  const q = idsQuery(text);
  const rows = await t.orm.em.fork().execute<{ 'QUERY PLAN': string }[]>(`explain ${q.sql}`, [...q.parameters] as unknown[]);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe(`materials search through the trigram index, on ${databaseLabel}`, () => {
  it.each(['coconut blend 123', 'sku-1a2', 'blend 1234', 'rapeseed blend 59'])('a selective search for "%s" is planned on materials_search_text_trgm_index, not a scan', async (text) => {
    expect(await plan(text)).toContain('materials_search_text_trgm_index');
  });

  it.each(['Coconut blend 12', 'SKU-1A', '100%', 'blend 2999', '_', 'nothing like this'])('the answers for "%s" are exactly a scan\'s (the REST list included)', async (text) => {
    const q = idsQuery(text);
    const em = t.orm.em.fork();
    const indexed = (await em.execute<{ variant_id: string }[]>(q.sql, [...q.parameters] as unknown[])).map((r) => r.variant_id);
    const scanned = await em.transactional(async (tx) => {
      await tx.execute('set local enable_bitmapscan = off');
      await tx.execute('set local enable_indexscan = off');
      return (await tx.execute<{ variant_id: string }[]>(q.sql, [...q.parameters] as unknown[])).map((r) => r.variant_id);
    });
    expect(indexed).toEqual(scanned);
    const res = await t.get(`/api/v1/raw-materials?search=${encodeURIComponent(text)}&pageSize=100`, key);
    expect(res.status).toBe(200);
    expect(res.body.data.totalCount).toBe(scanned.length);
  });
});
