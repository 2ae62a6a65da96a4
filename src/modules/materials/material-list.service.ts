import { ceilDiv } from '../../numbers/index.ts';
import type { ShopContext } from '../../shop-context.ts';
import { MATERIAL_COLUMNS, toMaterialView, type MaterialRow, type MaterialView } from './material-view.ts';

export const MATERIAL_SORTS = ['productName', 'variantName', 'inventoryQuantity'] as const;
export type MaterialSort = (typeof MATERIAL_SORTS)[number];

export interface MaterialListParams {
  search: string | null;
  usageFilter: 'all' | 'used' | 'unused';
  originFilter: 'all' | 'platform' | 'virtual';
  vendorFilter: readonly string[];
  /** Unrecognised values are ignored (productName order). */
  sortBy: string | null;
  sortOrder: 'asc' | 'desc';
  page: number;
  pageSize: number;
}

export interface MaterialListRow extends MaterialView { bomUsageCount: number; subAssemblyUsageCount: number }

export interface MaterialPage {
  items: MaterialListRow[];
  totalCount: number;
  page: number;
  pageSize: number;
  totalPages: number;
  availableVendors: string[];
}

// Text sorts are case-insensitive and byte-ordered after lowering, so PostgreSQL and PGlite agree
// whatever the database collation; ties break on variantId (ascending) so the order is total.
const SORT_SQL: Record<MaterialSort, string> = {
  productName: 'lower(product_name) collate "C" {dir}, product_name collate "C" {dir}',
  variantName: 'lower(variant_name) collate "C" {dir} nulls last, variant_name collate "C" {dir} nulls last',
  inventoryQuantity: 'inventory_quantity {dir}',
};

const USED = `exists (select 1 from recipe_lines r where r.shop_id = m.shop_id and r.line_type = 'raw' and r.node_id = m.variant_id)`;

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The unit separator joining the fields of `materials.search_text`. */
const SEARCH_SEPARATOR = '\u001f';

/**
 * One page of the shop's raw materials, both origins in one query (platform rows mirror their
 * variant's catalogue fields), with the total count, the vendor list and the usage counts of the
 * page's rows. A single SQL round trip whatever the page size.
 *
 * O(page) where it can be: a search is one byte-compared `like` on the stored lowered
 * `search_text` (the same match as `ilike` on each field); a name sort walks its index and stops
 * at the page; the inventory quantities and usage counts are computed for the page's rows only.
 * The total count still reads every matching row (a substring search has no index that counts),
 * and an inventory-quantity sort sums every virtual material's levels once (a hash aggregate).
 */
export async function listMaterials(ctx: ShopContext, params: MaterialListParams): Promise<MaterialPage> {
  const where: string[] = ['m.shop_id = ?'];
  const args: unknown[] = [ctx.shopId];
  if (params.search) {
    const pattern = likePattern(params.search);
    if (params.search.includes(SEARCH_SEPARATOR)) {
      // The separator itself cannot be matched through the joined text (it would span fields).
      where.push(`(m.product_name ilike ? or m.variant_name ilike ? or m.sku ilike ? or m.vendor ilike ?)`);
      args.push(pattern, pattern, pattern, pattern);
    } else {
      where.push('m.search_text like lower(?)');
      args.push(pattern);
    }
  }
  if (params.originFilter !== 'all') {
    where.push('m.origin = ?');
    args.push(params.originFilter);
  }
  if (params.usageFilter !== 'all') where.push(params.usageFilter === 'used' ? USED : `not ${USED}`);
  if (params.vendorFilter.length > 0) {
    where.push('m.vendor in (?)');
    args.push([...new Set(params.vendorFilter)]);
  }
  const sort = (MATERIAL_SORTS as readonly string[]).includes(params.sortBy ?? '') ? (params.sortBy as MaterialSort) : 'productName';
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const order = `${SORT_SQL[sort].replaceAll('{dir}', dir)}, variant_id collate "C" asc`;
  const usage = (ownerType: string) =>
    `(select count(distinct r.owner_id) from recipe_lines r
       where r.shop_id = m.shop_id and r.line_type = 'raw' and r.node_id = m.variant_id and r.owner_type = '${ownerType}')`;
  // Sorting by quantity needs every matching row's quantity: virtual levels summed in one pass.
  const quantitySort = sort === 'inventoryQuantity';
  const pageFrom = quantitySort
    ? `(select m.*, case when m.origin = 'platform' then coalesce(m.cached_quantity, 0) else coalesce(t.total, 0) end as inventory_quantity
          from materials m
          left join (select variant_id, sum(available) as total from material_levels where shop_id = ? group by variant_id) t
            on t.variant_id = m.variant_id
         where ${where.join(' and ')}) m`
    : `materials m where ${where.join(' and ')}`;
  const pageArgs = quantitySort ? [ctx.shopId, ...args] : args;

  const rows = await ctx.em.execute<MaterialRow[]>(
    // The vendor list is a loose index scan: one index probe per distinct vendor, not per material.
    `with recursive page as (select m.* from ${pageFrom} order by ${order} limit ? offset ?),
          vendors as (
            (select vendor from materials where shop_id = ? and vendor > '' order by vendor limit 1)
            union all
            select (select m.vendor from materials m where m.shop_id = ? and m.vendor > v.vendor order by m.vendor limit 1)
              from vendors v where v.vendor is not null)
     select (select count(*) from materials m where ${where.join(' and ')}) as total_count,
            (select coalesce(json_agg(v.vendor order by v.vendor collate "C"), '[]'::json) from vendors v where v.vendor is not null) as vendors,
            ${MATERIAL_COLUMNS}, ${usage('bom')} as bom_usage_count, ${usage('sub_assembly')} as sub_assembly_usage_count
       from (select 1) one left join page m on true
      order by ${order}`,
    [...pageArgs, params.pageSize, (params.page - 1) * params.pageSize, ctx.shopId, ctx.shopId, ...args],
  );
  const first = rows[0]!;
  const totalCount = Number(first.total_count);
  const vendors = typeof first.vendors === 'string' ? JSON.parse(first.vendors) : first.vendors;
  return {
    items: rows.filter((r) => r.variant_id !== null).map((r) => ({
      ...toMaterialView(r), bomUsageCount: Number(r.bom_usage_count), subAssemblyUsageCount: Number(r.sub_assembly_usage_count),
    })),
    totalCount,
    page: params.page,
    pageSize: params.pageSize,
    totalPages: ceilDiv(totalCount, params.pageSize).toNumber(),
    availableVendors: vendors as string[],
  };
}
