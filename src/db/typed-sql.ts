import {
  AliasNode, ColumnNode, DummyDriver, IdentifierNode, Kysely, ReferenceNode, type SelectQueryNode, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type Compilable, type InferResult,
} from 'kysely';
import type { QueryResult } from '@mikro-orm/core';
import type { Em } from './orm.ts';

/** Kysely's PostgreSQL compiler with `?` placeholders, the form `em.execute` binds. */
class QuestionMarkCompiler extends PostgresQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '?';
  }
}

/**
 * A query builder typed by a module's own tables (`InferKyselyDB` of its entities). It only
 * builds: `runSql` sends the statement through the EntityManager, so it joins the caller's
 * transaction, is counted per request and obeys the same deadline as every other statement.
 */
export function sqlBuilder<Tables>(): Kysely<Tables> {
  return new Kysely<Tables>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new QuestionMarkCompiler(),
    },
  });
}

/** Runs a built query through the EntityManager; the rows are typed by the query. */
export async function runSql<Q extends Compilable<unknown>>(em: Em, query: Q): Promise<InferResult<Q>> {
  const { sql, parameters } = query.compile();
  return em.execute(sql, [...parameters]) as Promise<InferResult<Q>>;
}

/**
 * Runs a built write whose rows the caller does not need (em.execute's `run` mode) and answers the
 * number of rows it touched.
 */
export async function runSqlWrite(em: Em, query: Compilable<unknown>): Promise<number> {
  const { sql, parameters } = query.compile();
  const result = await em.execute<QueryResult>(sql, [...parameters], 'run');
  return result.affectedRows;
}

/**
 * The column names of a built select, read from the query itself: where a statement puts other
 * columns beside a query's (a page's totals and keys), `pickColumns` cuts a row back to that
 * query's columns without restating them.
 */
export function columnNames(query: { toOperationNode(): SelectQueryNode }): string[] {
  return (query.toOperationNode().selections ?? []).map(({ selection }) => {
    if (AliasNode.is(selection) && IdentifierNode.is(selection.alias)) return selection.alias.name;
    if (ReferenceNode.is(selection) && ColumnNode.is(selection.column)) return selection.column.column.name;
    throw new Error(`a selection without a name (${selection.kind})`);
  });
}

/** The row's values of `names` (from `columnNames`), typed as the query that names them types its rows. */
export function pickColumns<T>(row: object, names: readonly string[]): T {
  return Object.fromEntries(names.map((name) => [name, (row as Record<string, unknown>)[name]])) as T;
}
