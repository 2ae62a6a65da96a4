import { sql, type InsertObject, type Insertable } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { recipesSql, type RecipesTables } from './tables.ts';

// Ids of new cost factors, assembly bills and BOMs: the client's (in the dataset's form), or the
// next number after the shop's highest numbered id of that kind (`BOM-1001`, `ASM-1`, `CF-1`), so
// ids stay short, readable and valid in an exported dataset.

/** The id column of each numbered table. */
const ID_COLUMNS = { boms: 'bom_id', assembly_bills: 'assembly_id', cost_factors: 'cost_factor_id' } as const;
type Numbered = keyof typeof ID_COLUMNS;

export interface NumberedTable<T extends Numbered> {
  table: T;
  prefix: 'BOM-' | 'ASM-' | 'CF-';
  /** The number after which a shop's first generated id starts. */
  base: number;
  /** How an error names a row of this table. */
  label: string;
}

export const BOM_IDS: NumberedTable<'boms'> = { table: 'boms', prefix: 'BOM-', base: 1000, label: 'bom' };
export const ASSEMBLY_IDS: NumberedTable<'assembly_bills'> = { table: 'assembly_bills', prefix: 'ASM-', base: 0, label: 'assembly bill' };
export const COST_FACTOR_IDS: NumberedTable<'cost_factors'> = { table: 'cost_factors', prefix: 'CF-', base: 0, label: 'cost factor' };

/** A new row of a numbered table, without its shop and id. */
export type CatalogRow<T extends Numbered> = Omit<Insertable<RecipesTables[T]>, 'shop_id' | (typeof ID_COLUMNS)[T]>;

/**
 * Inserts one row under the client's id, or under the next free number when `id` is null, and
 * returns the id. A client id already taken is 409 CONFLICT. Generated ids are serialised per shop
 * and table by a transaction-level advisory lock, so concurrent creates never compute the same
 * number. Two statements (one with a client id).
 */
export async function insertCatalogRow<T extends Numbered>(tx: ShopContext, t: NumberedTable<T>, id: string | null, values: CatalogRow<T>): Promise<string> {
  const idColumn = sql.ref(ID_COLUMNS[t.table]);
  const insert = (newId: unknown) => recipesSql.insertInto(t.table)
    // The shop and id columns complete the row the caller typed by its table.
    .values({ ...values, shop_id: tx.shopId, [ID_COLUMNS[t.table]]: newId } as unknown as InsertObject<RecipesTables, T>)
    .returning(sql<string>`${idColumn}`.as('id'));
  if (id !== null) {
    const rows = await runSql(tx.em, insert(id).onConflict((oc) => oc.doNothing()));
    if (rows.length === 0) throw new DomainError('CONFLICT', `${t.label} ${id} already exists`);
    return id;
  }
  await runSql(tx.em, recipesSql.selectNoFrom(sql<unknown>`pg_advisory_xact_lock(hashtextextended(${`bomcore:catalog-ids:${t.table}:${tx.shopId}`}, 0))`.as('locked')));
  const next = sql`${t.prefix}::text || (select coalesce(max(substring(${idColumn} from ${sql.lit(t.prefix.length + 1)})::numeric), ${sql.lit(t.base)}) + 1
    from ${sql.table(t.table)} where shop_id = ${tx.shopId} and ${idColumn} ~ ${`^${t.prefix}[0-9]+$`})::text`;
  const [row] = await runSql(tx.em, insert(next));
  return row!.id;
}
