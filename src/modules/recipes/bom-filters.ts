import { BOM_SORTS, type BomSort, type BomStatusFilter } from './recipe-vocabulary.ts';

export { BOM_SORTS, type BomSort };

// The BOM list's filters and sort keys over `bom_list_entries e` (kept by cost-rollup.repository.ts):
// the text keys are ranks in the list collation (case-insensitive, digit runs by value), so SQL
// orders exactly as that collator does. Shared by the cursor connection; the same rules as the
// paged list (bom-list.service.ts).

export interface BomFilterParams { search: string | null; statusFilter: BomStatusFilter }

/** search: case-insensitive literal substring of name, sku or bomId (the keys are stored lower-cased). */
export function bomFilter(shopId: string, params: BomFilterParams): { sql: string; args: unknown[] } {
  const where: string[] = ['e.shop_id = ?'];
  const args: unknown[] = [shopId];
  if (params.statusFilter !== 'all') {
    where.push('e.status = ?');
    args.push(params.statusFilter);
  }
  const needle = params.search?.toLowerCase() ?? '';
  if (needle !== '') {
    where.push('(strpos(e.search_name, ?) > 0 or strpos(e.search_sku, ?) > 0 or strpos(e.search_bom_id, ?) > 0)');
    args.push(needle, needle, needle);
  }
  return { sql: where.join(' and '), args };
}

/** An unknown sort is the default one (name), as in the paged list. */
export function bomSortOf(sortBy: string | null): BomSort {
  return (BOM_SORTS as readonly string[]).includes(sortBy ?? '') ? (sortBy as BomSort) : 'name';
}

export interface BomSortKey { sql: string; cast: 'text' | 'numeric' | 'int'; nullable: boolean; fixedAsc?: boolean }

// Ties break on bomId ascending: its collation rank, then its bytes (bomIds are ASCII).
const TIE: BomSortKey[] = [
  { sql: 'e.bom_id_rank', cast: 'int', nullable: false, fixedAsc: true },
  { sql: 'e.bom_id collate "C"', cast: 'text', nullable: false, fixedAsc: true },
];

/** Keys of each sort in order; `fixedAsc` keys stay ascending whatever the direction. Nullable keys sort last both ways. */
export const BOM_SORT_KEYS: Record<BomSort, BomSortKey[]> = {
  name: [{ sql: 'e.name_rank', cast: 'int', nullable: false }, ...TIE],
  bomId: [{ sql: 'e.bom_id_rank', cast: 'int', nullable: false }, TIE[1]!],
  sku: [{ sql: 'e.sku_rank', cast: 'int', nullable: true }, ...TIE],
  price: [{ sql: 'e.price', cast: 'numeric', nullable: true }, ...TIE],
  totalCost: [{ sql: 'e.total_cost', cast: 'numeric', nullable: false }, ...TIE],
  status: [{ sql: 'e.status', cast: 'text', nullable: false }, ...TIE], // 'active' < 'inactive' in every collation
};
