import { sql, type Compilable, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';

/**
 * SQL text written with `?` placeholders (and its arguments, in order) as a Kysely fragment, so a
 * module's older string-built pieces (keyset windows, shared CTEs) can sit inside a typed query:
 * the compiler numbers the parameters, nothing is inlined. The text must hold no other `?`.
 */
export function sqlText<T = unknown>(text: string, args: readonly unknown[]): RawBuilder<T> {
  const pieces = text.split('?');
  if (pieces.length !== args.length + 1) throw new Error(`sqlText: ${pieces.length - 1} placeholders for ${args.length} arguments`);
  return sql<T>`${sql.join(pieces.flatMap((piece, i) => (i < args.length ? [sql.raw(piece), sql.val(args[i])] : [sql.raw(piece)])), sql``)}`;
}

/**
 * A whole statement written as a Kysely `sql` template (lateral pages, shapes the builder does not
 * express) as something `runSql` sends: its rows are typed `Row`.
 */
export function rawQuery<Row>(db: Kysely<any>, statement: RawBuilder<Row>): Compilable<Row> {
  return { compile: () => statement.compile(db) as CompiledQuery<Row> };
}
