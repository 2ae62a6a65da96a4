import { expressionBuilder, sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { BOM_SORTS, type BomSort, type BomStatusFilter } from './recipe-vocabulary.ts';
import { recipesSql, type RecipesTables } from './tables.ts';

export { BOM_SORTS, type BomSort };

// The BOM list's filters and sort keys over `bom_list_entries e` (kept by cost-rollup.repository.ts):
// the text keys are ranks in the list collation (case-insensitive, digit runs by value), so SQL
// orders exactly as that collator does. Shared by the cursor connection; the same rules as the
// paged list (bom-list.service.ts).

export interface BomFilterParams { search: string | null; statusFilter: BomStatusFilter }

type Entries = RecipesTables['bom_list_entries'];

/** search: case-insensitive literal substring of name, sku or bomId (the keys are stored lower-cased). */
export function bomFilter(shopId: string, params: BomFilterParams): Expression<SqlBool> {
  const eb = expressionBuilder<{ e: Entries }, 'e'>();
  const where: Expression<SqlBool>[] = [eb('e.shop_id', '=', shopId)];
  if (params.statusFilter !== 'all') where.push(eb('e.status', '=', params.statusFilter));
  const needle = params.search?.toLowerCase() ?? '';
  if (needle !== '') {
    where.push(eb.or((['e.search_name', 'e.search_sku', 'e.search_bom_id'] as const).map((column) => eb(eb.fn('strpos', [column, eb.val(needle)]), '>', 0))));
  }
  return eb.and(where);
}

/**
 * How many entries `bomFilter` selects, as one scalar of the list's statement. Without a search it
 * is read from the shop's stored stats (`bom_list_stats`, kept by the database on every write):
 * O(1), whatever the size of the shop. A search counts its matches (O(matches)).
 */
export function bomCount(shopId: string, params: BomFilterParams): RawBuilder<string | number> {
  if ((params.search ?? '') !== '') {
    return sql<string>`(${recipesSql.selectFrom('bom_list_entries as e').select(sql<string>`count(*)`.as('n')).where(bomFilter(shopId, params))})`;
  }
  const stored = params.statusFilter === 'all' ? sql<number>`st.active + st.inactive` : sql.ref<number>(`st.${params.statusFilter}`);
  return sql<number>`coalesce((${recipesSql.selectFrom('bom_list_stats as st').select(stored.as('n')).where('st.shop_id', '=', shopId)}), 0)`;
}

/** An unknown sort is the default one (name), as in the paged list. */
export function bomSortOf(sortBy: string | null): BomSort {
  return (BOM_SORTS as readonly string[]).includes(sortBy ?? '') ? (sortBy as BomSort) : 'name';
}

export interface BomSortKey {
  column: keyof Entries & ('name_rank' | 'bom_id_rank' | 'sku_rank' | 'price' | 'total_cost' | 'status' | 'bom_id');
  cast: 'text' | 'numeric' | 'int';
  nullable: boolean;
  fixedAsc?: boolean;
  /** Compared byte by byte (`collate "C"`). */
  bytes?: boolean;
}

/** The key's expression over the list entries `e`. */
export function bomSortExpression(key: BomSortKey) {
  const ref = sql.ref(`e.${key.column}`);
  return key.bytes ? sql`${ref} collate "C"` : ref;
}

/**
 * For a rank key (ranks are dense and shift when BOMs are added or renamed): its current value for
 * the entry of `bomId`, as a scalar subquery. Undefined for a key that is a value.
 */
export function currentRank(shopId: string, key: BomSortKey): ((bomId: string | null) => Expression<unknown>) | undefined {
  if (!key.column.endsWith('_rank')) return undefined;
  return (bomId) => recipesSql.selectFrom('bom_list_entries as x').select(`x.${key.column}`)
    .where('x.shop_id', '=', shopId).where('x.bom_id', '=', sql<string>`${bomId}`);
}

// Ties break on bomId ascending: its collation rank, then its bytes (bomIds are ASCII).
const TIE: BomSortKey[] = [
  { column: 'bom_id_rank', cast: 'int', nullable: false, fixedAsc: true },
  { column: 'bom_id', cast: 'text', nullable: false, fixedAsc: true, bytes: true },
];

/** Keys of each sort in order; `fixedAsc` keys stay ascending whatever the direction. Nullable keys sort last both ways. */
export const BOM_SORT_KEYS: Record<BomSort, BomSortKey[]> = {
  name: [{ column: 'name_rank', cast: 'int', nullable: false }, ...TIE],
  bomId: [{ column: 'bom_id_rank', cast: 'int', nullable: false }, TIE[1]!],
  sku: [{ column: 'sku_rank', cast: 'int', nullable: true }, ...TIE],
  price: [{ column: 'price', cast: 'numeric', nullable: true }, ...TIE],
  totalCost: [{ column: 'total_cost', cast: 'numeric', nullable: false }, ...TIE],
  status: [{ column: 'status', cast: 'text', nullable: false }, ...TIE], // 'active' < 'inactive' in every collation
};
