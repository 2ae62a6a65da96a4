import { ceilDiv } from '../../numbers/index.ts';
import type { SortDirection } from '../../db/keyset.ts';
import type { ShopContext } from '../../shop-context.ts';
import {
  MATERIAL_SORT_KEYS, MATERIAL_TIE_KEY, MATERIALS_WITH_QUANTITY, materialFilter, materialSortOf, type MaterialFilterParams,
} from './material-filters.ts';
import { MATERIAL_COLUMNS, toMaterialView, type MaterialRow, type MaterialView } from './material-view.ts';

export { MATERIAL_SORTS, type MaterialSort } from './material-filters.ts';

export interface MaterialListParams extends MaterialFilterParams {
  /** Unrecognised values are ignored (productName order). */
  sortBy: string | null;
  sortOrder: SortDirection;
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
  const where = materialFilter(ctx.shopId, params);
  const sort = materialSortOf(params.sortBy);
  const dir = params.sortOrder === 'desc' ? 'desc' : 'asc';
  const order = [...MATERIAL_SORT_KEYS[sort].map((k) => `${k.sql} ${dir}${k.nullable ? ' nulls last' : ''}`), `${MATERIAL_TIE_KEY} asc`].join(', ');
  const usage = (ownerType: string) =>
    `(select count(distinct r.owner_id) from recipe_lines r
       where r.shop_id = m.shop_id and r.line_type = 'raw' and r.node_id = m.variant_id and r.owner_type = '${ownerType}')`;
  // Sorting by quantity needs every matching row's quantity: virtual levels summed in one pass.
  const quantitySort = sort === 'inventoryQuantity';
  const pageFrom = quantitySort ? `${MATERIALS_WITH_QUANTITY} where ${where.sql}` : `materials m where ${where.sql}`;
  const pageArgs = quantitySort ? [ctx.shopId, ...where.args] : where.args;

  const rows = await ctx.em.execute<MaterialRow[]>(
    // The vendor list is a loose index scan: one index probe per distinct vendor, not per material.
    `with recursive page as (select m.* from ${pageFrom} order by ${order} limit ? offset ?),
          vendors as (
            (select vendor from materials where shop_id = ? and vendor > '' order by vendor limit 1)
            union all
            select (select m.vendor from materials m where m.shop_id = ? and m.vendor > v.vendor order by m.vendor limit 1)
              from vendors v where v.vendor is not null)
     select (select count(*) from materials m where ${where.sql}) as total_count,
            (select coalesce(json_agg(v.vendor order by v.vendor collate "C"), '[]'::json) from vendors v where v.vendor is not null) as vendors,
            ${MATERIAL_COLUMNS}, ${usage('bom')} as bom_usage_count, ${usage('sub_assembly')} as sub_assembly_usage_count
       from (select 1) one left join page m on true
      order by ${order}`,
    [...pageArgs, params.pageSize, (params.page - 1) * params.pageSize, ctx.shopId, ctx.shopId, ...where.args],
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
