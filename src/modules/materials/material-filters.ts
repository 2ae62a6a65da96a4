// The raw-material list's filters and sort keys, shared by the paged list (REST, `rawMaterials`)
// and the cursor connection (`rawMaterialConnection`), so both select and order the same rows.

import { MATERIAL_SORTS, type MaterialOriginFilter, type MaterialSort, type MaterialUsageFilter } from './material-vocabulary.ts';

export { MATERIAL_SORTS, type MaterialSort };

export interface MaterialFilterParams {
  search: string | null;
  usageFilter: MaterialUsageFilter;
  originFilter: MaterialOriginFilter;
  vendorFilter: readonly string[];
}

const USED = `exists (select 1 from recipe_lines r where r.shop_id = m.shop_id and r.line_type = 'raw' and r.node_id = m.variant_id)`;

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The unit separator joining the fields of `materials.search_text`. */
const SEARCH_SEPARATOR = '\u001f';

/**
 * The filters over `materials m` of a shop: a search is one byte-compared `like` on the stored
 * lowered `search_text` (the same match as `ilike` on each field).
 */
export function materialFilter(shopId: string, params: MaterialFilterParams): { sql: string; args: unknown[] } {
  // Archived materials leave the lists (they stay readable by id and in the recipes that name them).
  const where: string[] = ['m.shop_id = ?', 'm.archived_at is null'];
  const args: unknown[] = [shopId];
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
  return { sql: where.join(' and '), args };
}

/** An unrecognised sort is the default one (productName), as in the REST list. */
export function materialSortOf(sortBy: string | null): MaterialSort {
  return (MATERIAL_SORTS as readonly string[]).includes(sortBy ?? '') ? (sortBy as MaterialSort) : 'productName';
}

/**
 * Sort keys of each sort, in order. Text sorts are case-insensitive and byte-ordered after
 * lowering, so PostgreSQL and PGlite agree whatever the database collation; variantName is
 * nullable (nulls last). Ties always break on variantId ascending (MATERIAL_TIE_KEY).
 */
export const MATERIAL_SORT_KEYS: Record<MaterialSort, { sql: string; nullable: boolean; numeric: boolean }[]> = {
  productName: [{ sql: 'lower(m.product_name) collate "C"', nullable: false, numeric: false }, { sql: 'm.product_name collate "C"', nullable: false, numeric: false }],
  variantName: [{ sql: 'lower(m.variant_name) collate "C"', nullable: true, numeric: false }, { sql: 'm.variant_name collate "C"', nullable: true, numeric: false }],
  inventoryQuantity: [{ sql: 'm.inventory_quantity', nullable: false, numeric: true }],
};
export const MATERIAL_TIE_KEY = 'm.variant_id collate "C"';

/**
 * Materials with their `inventory_quantity` as a column (platform: the cached total; virtual:
 * the sum of its levels, aggregated once for the shop), aliased `m`. Sorting by quantity needs it
 * for every row. One `?`: the shop id.
 */
export const MATERIALS_WITH_QUANTITY = `(select m.*, case when m.origin = 'platform' then coalesce(m.cached_quantity, 0) else coalesce(t.total, 0) end as inventory_quantity
     from materials m
     left join (select variant_id, sum(available) as total from material_levels where shop_id = ? group by variant_id) t
       on t.variant_id = m.variant_id) m`;
