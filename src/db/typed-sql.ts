import {
  AliasNode, ColumnNode, DummyDriver, IdentifierNode, Kysely, ReferenceNode, type SelectQueryNode, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type Compilable, type CompiledQuery, type InferResult,
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

/** Marks a value slot of a prepared statement's template (no text of the service starts with NUL). */
const SLOT = '\u0000slot:';

/**
 * A statement whose SQL text depends only on its shape (a key the caller names), built and compiled
 * with Kysely once per shape; a call only puts its values in. `build(shape, ...values)` must use each
 * value as a parameter as it is (never inside the SQL text or another value): the template is built
 * with a marker in each value's place, and a marker found anywhere else fails that first call. The
 * answer runs with `runSql` and its rows are typed as `build`'s query types them. For the large
 * statements of the reads (a recipe walk, a work order's parts): building them is CPU work per request.
 */
export function preparedSql<S extends string, A extends string[], O>(build: (shape: S, ...values: A) => Compilable<O>): (shape: S, ...values: A) => Compilable<O> {
  const templates = new Map<string, { compiled: CompiledQuery<O>; slots: (number | { constant: unknown })[] }>();
  const templateOf = (shape: S, count: number) => {
    const known = templates.get(shape);
    if (known) return known;
    const markers = Array.from({ length: count }, (_, i) => `${SLOT}${i}`) as A;
    const compiled = build(shape, ...markers).compile();
    if (compiled.sql.includes(SLOT)) throw new Error(`prepared statement "${shape}": a value is written into the SQL text`);
    const slots = compiled.parameters.map((parameter) => {
      if (typeof parameter === 'string' && parameter.startsWith(SLOT) && /^\d+$/.test(parameter.slice(SLOT.length))) return Number(parameter.slice(SLOT.length));
      if (JSON.stringify(parameter)?.includes('\\u0000slot:')) throw new Error(`prepared statement "${shape}": a value is used inside another parameter`);
      return { constant: parameter };
    });
    const template = { compiled, slots };
    templates.set(shape, template);
    return template;
  };
  return (shape, ...values) => ({
    compile: () => {
      const { compiled, slots } = templateOf(shape, values.length);
      return { ...compiled, parameters: slots.map((slot) => (typeof slot === 'number' ? values[slot] : slot.constant)) };
    },
  });
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
