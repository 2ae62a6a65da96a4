// The raw-material list's filters and sort keys, shared by the paged list (REST, `rawMaterials`)
// and the cursor connection (`rawMaterialConnection`), so both select and order the same rows.

import { expressionBuilder, sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { rawLinesNaming } from '../boms/for-materials.ts';
import { MATERIAL_SORTS, type MaterialOriginFilter, type MaterialSort, type MaterialUsageFilter } from './material-vocabulary.ts';
import { materialsSql, type MaterialsTables } from './tables.ts';

export { MATERIAL_SORTS, type MaterialSort };

export interface MaterialFilterParams {
  search: string | null;
  usageFilter: MaterialUsageFilter;
  originFilter: MaterialOriginFilter;
  vendorFilter: readonly string[];
}

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The unit separator joining the fields of `materials.search_text`. */
const SEARCH_SEPARATOR = '\u001f';

/**
 * The conditions the list's filters put on `materials m` (none: every listed material of the shop):
 * a search is one byte-compared `like` on the stored lowered `search_text` (the same match as
 * `ilike` on each field).
 */
function filterParts(params: MaterialFilterParams): Expression<SqlBool>[] {
  const eb = expressionBuilder<{ m: MaterialsTables['materials'] }, 'm'>();
  const where: Expression<SqlBool>[] = [];
  if (params.search) {
    const pattern = likePattern(params.search);
    if (params.search.includes(SEARCH_SEPARATOR)) {
      // The separator itself cannot be matched through the joined text (it would span fields).
      where.push(eb.or([eb('m.product_name', 'ilike', pattern), eb('m.variant_name', 'ilike', pattern), eb('m.sku', 'ilike', pattern), eb('m.vendor', 'ilike', pattern)]));
    } else {
      where.push(eb('m.search_text', 'like', sql<string>`lower(${pattern})`));
    }
  }
  if (params.originFilter !== 'all') where.push(eb('m.origin', '=', params.originFilter));
  if (params.usageFilter !== 'all') {
    const used = eb.exists(rawLinesNaming(eb.ref('m.shop_id'), eb.ref('m.variant_id')));
    where.push(params.usageFilter === 'used' ? used : eb.not(used));
  }
  if (params.vendorFilter.length > 0) where.push(eb('m.vendor', 'in', [...new Set(params.vendorFilter)]));
  return where;
}

/** The listed materials of a shop (archived ones leave the lists; they stay readable by id and in the recipes that name them) under the filters. */
export function materialFilter(shopId: string, params: MaterialFilterParams): Expression<SqlBool> {
  const eb = expressionBuilder<{ m: MaterialsTables['materials'] }, 'm'>();
  return eb.and([eb('m.shop_id', '=', shopId), eb('m.archived_at', 'is', null), ...filterParts(params)]);
}

/**
 * How many rows `materialFilter` selects, as one scalar of the list's statement. Without a filter
 * it is the shop's stored list count (`material_list_counts`, kept by the database on every write),
 * read by primary key: O(1), whatever the size of the shop. A filter counts its matches
 * (O(matches): a search of three characters or more finds them through the trigram index
 * `materials_search_text_trgm_index`; a shorter one checks the shop's every material).
 */
export function materialCount(shopId: string, params: MaterialFilterParams): RawBuilder<string | number> {
  if (filterParts(params).length > 0) return sql<string>`(${materialsSql.selectFrom('materials as m').select(sql<string>`count(*)`.as('n')).where(materialFilter(shopId, params))})`;
  return sql<number>`coalesce((${materialsSql.selectFrom('material_list_counts').select('listed').where('shop_id', '=', shopId)}), 0)`;
}

/** An unrecognised sort is the default one (productName), as in the REST list. */
export function materialSortOf(sortBy: string | null): MaterialSort {
  return (MATERIAL_SORTS as readonly string[]).includes(sortBy ?? '') ? (sortBy as MaterialSort) : 'productName';
}

type MaterialColumn = `m.${keyof MaterialsTables['materials']}`;
const bytes = (column: MaterialColumn) => sql`${sql.ref(column)} collate "C"`;
const lower = (column: MaterialColumn) => sql`lower(${sql.ref(column)}) collate "C"`;

/**
 * Sort keys of each sort, in order. Text sorts are case-insensitive and byte-ordered after
 * lowering, so PostgreSQL and PGlite agree whatever the database collation; variantName is
 * nullable (nulls last). Ties always break on variantId ascending (MATERIAL_TIE_KEY).
 */
// inventoryQuantity sorts on the stored `material_quantities.inventory_quantity` (its own narrow row,
// joined by primary key: `materialsFrom`), ties on that row's variant id, so a quantity-sorted page is
// an index scan of that table that stops at the page.
export const MATERIAL_SORT_KEYS: Record<MaterialSort, { key: Expression<unknown>; nullable: boolean; numeric: boolean }[]> = {
  productName: [{ key: lower('m.product_name'), nullable: false, numeric: false }, { key: bytes('m.product_name'), nullable: false, numeric: false }],
  variantName: [{ key: lower('m.variant_name'), nullable: true, numeric: false }, { key: bytes('m.variant_name'), nullable: true, numeric: false }],
  inventoryQuantity: [{ key: sql.ref('q.inventory_quantity'), nullable: false, numeric: true }],
};

/** The tie key of each sort: the variant id, byte-compared (the quantity sort's from its quantity row, the same value). */
export function materialTieKey(sort: MaterialSort): Expression<unknown> {
  return sort === 'inventoryQuantity' ? sql`${sql.ref('q.variant_id')} collate "C"` : bytes('m.variant_id');
}

/** `materials as m`, joined to its quantity row `q` when the sort reads it. */
export function materialsFrom(sort: MaterialSort) {
  const from = materialsSql.selectFrom('materials as m');
  return sort === 'inventoryQuantity'
    ? from.innerJoin('material_quantities as q', (join) => join.onRef('q.shop_id', '=', 'm.shop_id').onRef('q.variant_id', '=', 'm.variant_id'))
    : from;
}
