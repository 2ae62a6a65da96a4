import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDecimalString } from '../../src/kernel/decimals.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { allBomViews } from '../../src/modules/boms/bom.service.ts';
import { shopContext } from '../helpers/bom-context.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// The BOM list reads a stored cost roll-up: these check it stays current through the API's writes
// and that the list's cost in SQL round trips does not depend on the page size or the shop's size.

let t: TestApp;
const small = uniqueShopId('rollup-small');
const big = uniqueShopId('rollup-big');
let smallKey: string;
let bigKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.load(bomShopDataset(small));
  await t.load(generateDataset({ materials: 200, boms: 300, depth: 5, locations: 3, workOrders: 0, orders: 0, seed: 7, shopId: big }));
  smallKey = await t.createKey(small, ['read', 'write']);
  bigKey = await t.createKey(big, ['read', 'write']);
});
afterAll(() => t.close());

const list = (key: string, q = '') => t.get(`/api/v1/bills-of-materials${q}`, key);
const patch = (key: string, id: string, payload: Record<string, unknown>) => t.patch(`/api/v1/raw-materials/${id}`, key, payload);

/** Stats as a full recompute gives them: every BOM costed in memory from the current rows, summed exactly. */
async function recomputedStats(shopId: string) {
  const all = await allBomViews(shopContext(t.orm, shopId));
  const places = Math.max(...all.map((b) => b.totalCost.split('.')[1]?.length ?? 0), 0);
  const sum = all.reduce((s, b) => {
    const [int, frac = ''] = b.totalCost.split('.');
    return s + BigInt(int! + frac.padEnd(places, '0'));
  }, 0n);
  const text = sum.toString().padStart(places + 1, '0');
  const totalValue = places ? `${text.slice(0, -places)}.${text.slice(-places)}` : text;
  const avg = (2n * sum * 1_000_000n + BigInt(all.length) * 10n ** BigInt(places)) / (2n * BigInt(all.length) * 10n ** BigInt(places));
  return { totalValue: Number(toDecimalString(totalValue)), avgCost: Number(toDecimalString(`${avg / 1_000_000n}.${(avg % 1_000_000n).toString().padStart(6, '0')}`)) };
}

describe('GET /bills-of-materials over the stored roll-up', () => {
  it('after PATCH /raw-materials/{id} changes unitCost, the list\'s costs and stats change as a recompute does (raw × (1 + waste/100), up through every assembly)', async () => {
    // Fragrance oil (2 → 3 per l) is 0.3 l of ASM-2; BOM-1001 uses ASM-2 once, BOM-1002 twice.
    expect((await patch(smallKey, 'VMAT-VAR-0002', { unitCost: 3 })).statusCode).toBe(200);
    const data = (await list(smallKey)).body.data;
    const byId = Object.fromEntries(data.items.map((b: any) => [b.bomId, b]));
    expect(byId['BOM-1001']).toMatchObject({ totalSubAssemblyCost: 0.96, totalCost: 8.564 });
    expect(byId['BOM-1002']).toMatchObject({ totalSubAssemblyCost: 3.42, totalCost: 6.024 });
    expect(byId['BOM-1003']).toMatchObject({ totalCost: 0.11 });
    expect(data.stats).toEqual({ total: 3, active: 2, inactive: 1, totalValue: 14.698, avgCost: 4.899333, platformLinked: 2 });
    expect(data.stats).toMatchObject(await recomputedStats(small));
    // Sorting by totalCost follows the new figures.
    expect((await list(smallKey, '?sortBy=totalCost&sortOrder=desc')).body.data.items.map((b: any) => b.bomId)).toEqual(['BOM-1001', 'BOM-1002', 'BOM-1003']);
    // A null unit cost counts 0.
    await patch(smallKey, 'VMAT-VAR-0002', { unitCost: null });
    expect((await list(smallKey)).body.data.items.find((b: any) => b.bomId === 'BOM-1001')).toMatchObject({ totalSubAssemblyCost: 0.06, totalCost: 7.664 });
    // A PATCH that leaves the unit cost alone changes no cost.
    await patch(smallKey, 'VMAT-VAR-0002', { unitCost: 2, vendor: 'Other' });
    const again = (await list(smallKey)).body.data;
    await patch(smallKey, 'VMAT-VAR-0002', { vendor: 'Another' });
    expect((await list(smallKey)).body.data).toEqual(again);
  });

  it('on a generated shop, after a unit-cost PATCH every list row equals the BOM read (costed live from the recipe) and the stats equal a recompute', async () => {
    const ctx = shopContext(t.orm, big);
    const used = await ctx.em.execute<{ node_id: string }[]>(
      `select l.node_id from recipe_lines l join materials m on m.shop_id = l.shop_id and m.variant_id = l.node_id
        where l.shop_id = ? and l.line_type = 'raw' and m.origin = 'virtual' group by l.node_id order by count(*) desc, l.node_id limit 2`, [big]);
    for (const [i, { node_id }] of used.entries()) expect((await patch(bigKey, node_id, { unitCost: 17.123456 + i })).statusCode).toBe(200);
    const data = (await list(bigKey, '?pageSize=1000')).body.data;
    expect(data.items).toHaveLength(300);
    for (const row of data.items) {
      const bom = (await t.get(`/api/v1/bills-of-materials/${row.bomId}`, bigKey)).body.data;
      expect([row.bomId, row.totalRawMaterialCost, row.totalSubAssemblyCost, row.directCostFactorCost, row.totalCost])
        .toEqual([bom.bomId, bom.totalRawMaterialCost, bom.totalSubAssemblyCost, bom.directCostFactorCost, bom.totalCost]);
    }
    expect(data.stats).toMatchObject(await recomputedStats(big));
  });

  it('costs one SQL round trip at page size 1 and 1000, for a 3-BOM and a 300-BOM shop, with or without search and sort', async () => {
    const counts = new Set<string>();
    for (const [key, q] of [[smallKey, '?pageSize=1'], [smallKey, '?pageSize=1000'], [bigKey, '?pageSize=1'], [bigKey, '?pageSize=1000'],
      [bigKey, '?pageSize=1000&search=candle&statusFilter=active&sortBy=price&sortOrder=desc'], [bigKey, '?page=3&pageSize=7&sortBy=sku']] as const) {
      const res = await list(key, q);
      expect(res.status).toBe(200);
      counts.add(String(res.headers['x-query-count']));
    }
    // One statement for the whole list: page, count, stats, the page's lines and shelves.
    expect([...counts]).toEqual(['1']);
  });
});
