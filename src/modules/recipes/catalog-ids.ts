import { sql } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../domain-error.ts';
import type { ShopContext } from '../../shop-context.ts';
import { recipesSql } from './tables.ts';

// Ids of new cost factors, assembly bills and BOMs: the client's (in the dataset's form), or the
// next number after the shop's highest numbered id of that kind (`BOM-1001`, `ASM-1`, `CF-1`), so
// ids stay short, readable and valid in an exported dataset.

export interface NumberedTable {
  table: 'boms' | 'assembly_bills' | 'cost_factors';
  idColumn: 'bom_id' | 'assembly_id' | 'cost_factor_id';
  prefix: 'BOM-' | 'ASM-' | 'CF-';
  /** The number after which a shop's first generated id starts. */
  base: number;
  /** How an error names a row of this table. */
  label: string;
}

export const BOM_IDS: NumberedTable = { table: 'boms', idColumn: 'bom_id', prefix: 'BOM-', base: 1000, label: 'bom' };
export const ASSEMBLY_IDS: NumberedTable = { table: 'assembly_bills', idColumn: 'assembly_id', prefix: 'ASM-', base: 0, label: 'assembly bill' };
export const COST_FACTOR_IDS: NumberedTable = { table: 'cost_factors', idColumn: 'cost_factor_id', prefix: 'CF-', base: 0, label: 'cost factor' };

/** A column of the new row and its SQL type (parameters of an `insert … select` need explicit types). */
export type TypedColumn = readonly [name: string, sqlType: 'text' | 'boolean' | 'numeric'];

/**
 * Inserts one row (`values` for `columns`, without the shop and id columns) under the client's id,
 * or under the next free number when `id` is null, and returns the id. A client id already taken is
 * 409 CONFLICT. Generated ids are serialised per shop and table by a transaction-level advisory lock,
 * so concurrent creates never compute the same number. Two statements (one with a client id).
 */
export async function insertCatalogRow(tx: ShopContext, t: NumberedTable, id: string | null, columns: readonly TypedColumn[], values: readonly unknown[]): Promise<string> {
  const list = ['shop_id', t.idColumn, ...columns.map(([name]) => name)].join(', ');
  const marks = columns.map(([, type]) => `?::${type}`).join(', ');
  if (id !== null) {
    const rows = await tx.em.execute<{ id: string }[]>(
      `insert into ${t.table} (${list}) values (?, ?, ${marks}) on conflict do nothing returning ${t.idColumn} as id`, [tx.shopId, id, ...values]);
    if (rows.length === 0) throw new DomainError('CONFLICT', `${t.label} ${id} already exists`);
    return id;
  }
  await runSql(tx.em, recipesSql.selectNoFrom(sql<unknown>`pg_advisory_xact_lock(hashtextextended(${`bomcore:catalog-ids:${t.table}:${tx.shopId}`}, 0))`.as('locked')));
  const [row] = await tx.em.execute<{ id: string }[]>(
    `insert into ${t.table} (${list})
     select ?::text, ?::text || (coalesce(max(substring(${t.idColumn} from ${t.prefix.length + 1})::numeric), ${t.base}) + 1)::text, ${marks}
       from ${t.table} where shop_id = ? and ${t.idColumn} ~ ?
     returning ${t.idColumn} as id`,
    [tx.shopId, t.prefix, ...values, tx.shopId, `^${t.prefix}[0-9]+$`],
  );
  return row!.id;
}
