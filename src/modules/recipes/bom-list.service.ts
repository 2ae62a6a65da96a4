import { Decimal } from 'decimal.js';
import type { ShopContext } from '../../shop-context.ts';
import { allBomViews } from './bom.service.ts';
import type { BomView } from './bom-views.ts';

export const BOM_SORTS = ['name', 'bomId', 'sku', 'price', 'totalCost', 'status'] as const;
export type BomSort = (typeof BOM_SORTS)[number];
export const BOM_STATUS_FILTERS = ['all', 'active', 'inactive'] as const;

export interface BomListInput {
  search: string | null; statusFilter: 'all' | 'active' | 'inactive'; sortBy: string | null; sortOrder: 'asc' | 'desc'; page: number; pageSize: number;
}
export interface BomStats { total: number; active: number; inactive: number; totalValue: string; avgCost: string; platformLinked: number }
export interface BomListPage { items: BomView[]; totalCount: number; page: number; pageSize: number; totalPages: number; stats: BomStats }

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

type Key = (b: BomView) => string | Decimal | null;
const KEYS: Record<BomSort, Key> = {
  name: (b) => b.name,
  bomId: (b) => b.bomId,
  sku: (b) => b.sku,
  price: (b) => (b.price === null ? null : new Decimal(b.price)),
  totalCost: (b) => new Decimal(b.totalCost),
  status: (b) => b.status,
};

function compareKeys(a: string | Decimal | null, b: string | Decimal | null): number {
  if (a === null || b === null) return 0;
  return typeof a === 'string' ? collator.compare(a, b as string) : a.comparedTo(b as Decimal);
}

/**
 * The BOM list. Costs need the whole recipe of every BOM and `stats` covers every BOM of the shop,
 * so the list is built from one forest load of the shop (5 round trips in all, whatever the page
 * size or number of BOMs), then filtered, sorted and paged in memory. Sort keys: name (default,
 * case-insensitive), bomId (by its number), sku, price, totalCost, status; nulls last in both
 * directions; ties by bomId ascending.
 */
export async function listBoms(ctx: ShopContext, input: BomListInput): Promise<BomListPage> {
  const all = await allBomViews(ctx);
  const totalValue = all.reduce((sum, b) => sum.plus(b.totalCost), new Decimal(0));
  const stats: BomStats = {
    total: all.length,
    active: all.filter((b) => b.status === 'active').length,
    inactive: all.filter((b) => b.status === 'inactive').length,
    totalValue: totalValue.toFixed(),
    avgCost: all.length === 0 ? '0' : totalValue.div(all.length).toFixed(),
    platformLinked: all.filter((b) => b.variantId !== null).length,
  };
  const needle = input.search?.toLowerCase() ?? '';
  const rows = all.filter((b) => (input.statusFilter === 'all' || b.status === input.statusFilter)
    && (needle === '' || [b.name, b.sku ?? '', b.bomId].some((v) => v.toLowerCase().includes(needle))));
  const sortBy: BomSort = (BOM_SORTS as readonly string[]).includes(input.sortBy ?? '') ? (input.sortBy as BomSort) : 'name';
  const key = KEYS[sortBy];
  const direction = input.sortOrder === 'desc' ? -1 : 1;
  rows.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else {
      const c = compareKeys(ka, kb) * direction;
      if (c !== 0) return c;
    }
    return collator.compare(a.bomId, b.bomId) || (a.bomId < b.bomId ? -1 : a.bomId > b.bomId ? 1 : 0);
  });
  const start = (input.page - 1) * input.pageSize;
  return {
    items: rows.slice(start, start + input.pageSize), totalCount: rows.length, page: input.page, pageSize: input.pageSize,
    totalPages: Math.ceil(rows.length / input.pageSize), stats,
  };
}
