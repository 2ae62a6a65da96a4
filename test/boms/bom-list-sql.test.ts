import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.ts';
import { toDecimalString } from '../../src/kernel/decimals.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { BOM_SORTS, listBoms, type BomListInput, type BomListPage, type BomSort } from '../../src/modules/boms/bom-list.service.ts';
import { allBomViews } from '../../src/modules/boms/bom.service.ts';
import type { BomView } from '../../src/modules/boms/bom-views.ts';
import type { ShopContext } from '../../src/kernel/shop-context.ts';
import { bomJson, shopContext, variantJson } from '../helpers/bom-context.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { databaseLabel, openTestOrm, uniqueShopId } from '../helpers/database.ts';

// The BOM list pages, filters, sorts and aggregates in SQL over the stored roll-up. Its answers must be
// the ones the list gave when it built every BOM (recipe forest and costs) in memory and sorted with
// the collator: that implementation is kept below as the oracle, over the same database.

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Exact comparison of two decimal strings (no float). */
function compareDecimals(a: string, b: string): number {
  const parts = (s: string) => {
    const negative = s.startsWith('-');
    const [int, frac = ''] = (negative ? s.slice(1) : s).split('.');
    return { negative, int: int!, frac };
  };
  const x = parts(a);
  const y = parts(b);
  const places = Math.max(x.frac.length, y.frac.length);
  const big = (p: { negative: boolean; int: string; frac: string }) => (p.negative ? -1n : 1n) * BigInt(p.int + p.frac.padEnd(places, '0'));
  const d = big(x) - big(y);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/**
 * The list as it was: every BOM built in memory, filtered, sorted with the collator, sliced. (Its
 * stats summed with decimal.js at 20 significant digits; here they are exact, as the SQL list is.)
 */
/** A list request with its page spelled out (the oracle pages by hand). */
type PagedInput = BomListInput & { page: number; pageSize: number };

async function inMemoryList(ctx: ShopContext, input: PagedInput): Promise<BomListPage> {
  const all = await allBomViews(ctx);
  const sumText = all.reduce((sum, b) => addDecimals(sum, b.totalCost), '0');
  const needle = input.search?.toLowerCase() ?? '';
  const rows = all.filter((b) => (input.statusFilter === 'all' || b.status === input.statusFilter)
    && (needle === '' || [b.name, b.sku ?? '', b.bomId].some((v) => v.toLowerCase().includes(needle))));
  const sortBy: BomSort = (BOM_SORTS as readonly string[]).includes(input.sortBy ?? '') ? (input.sortBy as BomSort) : 'name';
  const key = (b: BomView): { text: string } | { num: string } | null => {
    switch (sortBy) {
      case 'name': return { text: b.name };
      case 'bomId': return { text: b.bomId };
      case 'sku': return b.sku === null ? null : { text: b.sku };
      case 'price': return b.price === null ? null : { num: b.price };
      case 'totalCost': return { num: b.totalCost };
      case 'status': return { text: b.status };
    }
  };
  const direction = input.sortOrder === 'desc' ? -1 : 1;
  rows.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else {
      const c = ('text' in ka ? collator.compare(ka.text, (kb as { text: string }).text) : compareDecimals(ka.num, (kb as { num: string }).num)) * direction;
      if (c !== 0) return c;
    }
    return collator.compare(a.bomId, b.bomId) || (a.bomId < b.bomId ? -1 : a.bomId > b.bomId ? 1 : 0);
  });
  const start = (input.page - 1) * input.pageSize;
  return {
    items: rows.slice(start, start + input.pageSize), totalCount: rows.length, page: input.page, pageSize: input.pageSize,
    totalPages: Math.ceil(rows.length / input.pageSize),
    stats: {
      total: all.length, active: all.filter((b) => b.status === 'active').length, inactive: all.filter((b) => b.status === 'inactive').length,
      totalValue: sumText, avgCost: all.length === 0 ? '0' : divideHalfUp6(sumText, all.length), platformLinked: all.filter((b) => b.variantId !== null).length,
    },
  };
}

function addDecimals(a: string, b: string): string {
  const places = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  const scaled = (s: string) => {
    const negative = s.startsWith('-');
    const [int, frac = ''] = (negative ? s.slice(1) : s).split('.');
    return (negative ? -1n : 1n) * BigInt(int! + frac.padEnd(places, '0'));
  };
  const sum = scaled(a) + scaled(b);
  const digits = (sum < 0n ? -sum : sum).toString().padStart(places + 1, '0');
  return `${sum < 0n ? '-' : ''}${digits.slice(0, digits.length - places)}${places ? `.${digits.slice(digits.length - places)}` : ''}`;
}

/** a / n rounded half-up to 6 places, exactly. */
function divideHalfUp6(a: string, n: number): string {
  const [int, frac = ''] = a.split('.');
  const num = BigInt(int! + frac) * 1_000_000n;
  const den = BigInt(n) * 10n ** BigInt(frac.length);
  const q = (2n * num + den) / (2n * den);
  const text = q.toString().padStart(7, '0');
  return `${text.slice(0, -6)}.${text.slice(-6)}`;
}

/** What leaves the service: every decimal as the API writes it (rounded half-up to 6 places). */
function written(page: BomListPage) {
  const d = (v: string | null) => (v === null ? null : toDecimalString(v));
  return {
    ...page,
    stats: { ...page.stats, totalValue: d(page.stats.totalValue), avgCost: d(page.stats.avgCost) },
    items: page.items.map((b) => ({
      ...b, price: d(b.price), totalRawMaterialCost: d(b.totalRawMaterialCost), totalSubAssemblyCost: d(b.totalSubAssemblyCost),
      directCostFactorCost: d(b.directCostFactorCost), totalCost: d(b.totalCost), preAssembledQuantity: d(b.preAssembledQuantity),
      rawMaterialLines: b.rawMaterialLines.map((l) => ({ ...l, quantity: d(l.quantity), wastePercentage: d(l.wastePercentage), node: l.node && { ...l.node, unitCost: d(l.node.unitCost) } })),
      subAssemblyLines: b.subAssemblyLines.map((l) => ({ ...l, quantity: d(l.quantity) })),
      costFactorLines: b.costFactorLines.map((l) => ({ ...l, quantity: d(l.quantity), node: l.node && { ...l.node, unitCost: d(l.node.unitCost) } })),
    })),
  };
}

/** Names, skus and ids where the collation matters: digits by value, case and accents ignored, punctuation, nulls. */
function collationShop(shopId: string) {
  const v = (id: string, sku: string | null, price: number | null) => variantJson(id, `Product ${id}`, [], { sku, price });
  const raw = (q: number): [string, number][] => [['VMAT-VAR-0001', q]];
  const json = datasetJson(shopId) as { platform: { variants: unknown[] } };
  json.platform.variants.push(v('60001', 'CANDLE-10', 30), v('60002', 'candle-9', 12.5), v('60003', 'Candle-9', 12.5), v('60004', null, null),
    v('60005', 'Émile-2', 99.999999), v('60006', 'x_1%', 7));
  return toDataset({
    ...json,
    boms: [
      bomJson('BOM-10', '60001', raw(2), [['ASM-1', 1]], { name: 'Candle 10' }),
      bomJson('BOM-9', '60002', raw(1), [], { name: 'candle 9' }),
      bomJson('BOM-010', '60003', raw(1), [], { name: 'Candle 9' }),
      bomJson('BOM-0010', null, raw(3), [], { name: 'émile' }),
      bomJson('BOM-11', '60004', raw(0.5), [], { name: 'Emile', status: 'inactive' }),
      bomJson('BOM-12', '60005', raw(0.25), [], { name: 'a_b' }),
      bomJson('BOM-13', '60006', raw(0.25), [], { name: 'a-b' }),
      bomJson('BOM-14', null, raw(7), [], { name: 'ab', status: 'inactive' }),
      bomJson('BOM-100', null, [], [], { name: 'Straße 100%' }),
    ],
  });
}

let orm: Orm;
const generated = uniqueShopId('list-gen');
const collation = uniqueShopId('list-coll');

beforeAll(async () => {
  orm = await openTestOrm();
  await loadDataset(orm.em, generateDataset({ materials: 120, boms: 90, depth: 4, locations: 2, workOrders: 0, orders: 0, seed: 99, shopId: generated }));
  await loadDataset(orm.em, collationShop(collation));
});
afterAll(() => orm.close());

const base: PagedInput = { search: null, statusFilter: 'all', sortBy: null, sortOrder: 'asc', page: 1, pageSize: 1000 };

async function same(shopId: string, input: PagedInput): Promise<void> {
  const ctx = shopContext(orm, shopId);
  expect([input, written(await listBoms(ctx, input))]).toEqual([input, written(await inMemoryList(ctx, input))]);
}

describe(`BOM list in SQL answers as the in-memory list did, on ${databaseLabel}`, () => {
  for (const [label, shopId] of [['a generated shop', generated], ['names, skus and ids where the collation matters', collation]] as const) {
    it(`${label}: every sortBy (unknown = name) in both orders: collation order (digits by value, case and accents ignored), nulls last, ties by bomId`, async () => {
      for (const sortBy of [...BOM_SORTS, 'nonsense', null]) {
        for (const sortOrder of ['asc', 'desc'] as const) await same(shopId, { ...base, sortBy, sortOrder });
      }
    });

    it(`${label}: search is a literal case-insensitive substring of name, sku or bomId; statusFilter narrows; stats ignore both`, async () => {
      for (const search of ['candle', 'CANDLE-1', 'bom-01', '9', 'É', 'x_1%', '%', '_', 'ß', 'zzz', '']) {
        for (const statusFilter of ['all', 'active', 'inactive'] as const) await same(shopId, { ...base, search, statusFilter, sortBy: 'price', sortOrder: 'desc' });
      }
    });

    it(`${label}: pages are slices of the same order; a page past the end is empty`, async () => {
      for (const [page, pageSize] of [[1, 1], [2, 4], [3, 7], [50, 10]]) await same(shopId, { ...base, page: page!, pageSize: pageSize!, sortBy: 'totalCost' });
    });
  }

  it('an empty shop: no rows, stats of zero (avgCost 0)', async () => {
    const shopId = uniqueShopId('list-empty');
    await loadDataset(orm.em, toDataset(datasetJson(shopId, { boms: [] })));
    await same(shopId, base);
  });
});
