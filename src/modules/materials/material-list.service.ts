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

/**
 * One page of the shop's raw materials, both origins in one query (platform rows mirror their
 * variant's catalogue fields), with the total count, the vendor list and the usage counts of the
 * page's rows. A single SQL round trip whatever the page size.
 */
export async function listMaterials(ctx: ShopContext, params: MaterialListParams): Promise<MaterialPage> {
  const where: string[] = ['m.shop_id = ?'];
  const args: unknown[] = [ctx.shopId];
  if (params.search) {
    where.push(`(m.product_name ilike ? or m.variant_name ilike ? or m.sku ilike ? or m.vendor ilike ?)`);
    const pattern = likePattern(params.search);
    args.push(pattern, pattern, pattern, pattern);
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
       where r.shop_id = p.shop_id and r.line_type = 'raw' and r.node_id = p.variant_id and r.owner_type = '${ownerType}')`;

  const rows = await ctx.em.execute<MaterialRow[]>(
    `with base as (select ${MATERIAL_COLUMNS} from materials m where ${where.join(' and ')}),
          page as (select * from base order by ${order} limit ? offset ?)
     select (select count(*) from base) as total_count,
            (select coalesce(json_agg(v.vendor order by v.vendor collate "C"), '[]'::json)
               from (select distinct vendor from materials where shop_id = ? and vendor is not null and vendor <> '') v) as vendors,
            p.*, ${usage('bom')} as bom_usage_count, ${usage('sub_assembly')} as sub_assembly_usage_count
       from (select 1) one left join page p on true
      order by ${order}`,
    [...args, params.pageSize, (params.page - 1) * params.pageSize, ctx.shopId],
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
