import {
  CommonTableExpressionNameNode, CommonTableExpressionNode, DeleteQueryNode, InsertQueryNode, SelectQueryNode, sql, UpdateQueryNode,
  type Compilable, type OperationNode, type OperationNodeSource, type RawBuilder,
} from 'kysely';
import { sqlBuilder } from './typed-sql.ts';

// One statement out of several modules' queries. PostgreSQL runs every data-modifying part of a
// WITH clause to completion, once, against one snapshot; but it forbids a data-modifying query in a
// nested WITH, so a module's query that has CTEs of its own (a recursive walk feeding an insert)
// cannot simply become a CTE of another's. `statementPart` hoists them: each module still builds its
// query with its own builder, over its own tables, and hands the query over; the statement is the
// CTEs of every part side by side (`with recursive`, which also admits plain ones) and a final select.

type PartQuery = SelectQueryNode | InsertQueryNode | UpdateQueryNode | DeleteQueryNode;

/** A query ready to join a statement's WITH clause: its own CTEs first, then itself under `name`. */
export interface StatementPart { readonly ctes: readonly CommonTableExpressionNode[] }

const asSource = (node: OperationNode): OperationNodeSource => ({ toOperationNode: () => node });

function cteNamed(name: string, node: PartQuery): CommonTableExpressionNode {
  return CommonTableExpressionNode.create(CommonTableExpressionNameNode.create(name), node);
}

const cteName = (cte: CommonTableExpressionNode): string => cte.name.table.table.identifier.name;

/**
 * `query` as part `name` of a composed statement, its own CTEs hoisted beside it. Its CTE names
 * must be unique across the parts (`composedStatement` refuses a clash), except those listed in
 * `shared`: CTEs another part of the statement provides (the query names them in its WITH only
 * to refer to them), which are dropped here. A part is visible to later parts by `name`.
 */
export function statementPart(name: string, query: OperationNodeSource, shared: readonly string[] = []): StatementPart {
  const node = query.toOperationNode();
  if (!SelectQueryNode.is(node) && !InsertQueryNode.is(node) && !UpdateQueryNode.is(node) && !DeleteQueryNode.is(node)) {
    throw new Error(`statement part ${name}: a ${node.kind} cannot be a CTE`);
  }
  const own = (node.with?.expressions ?? []).filter((cte) => !shared.includes(cteName(cte)));
  return { ctes: [...own, cteNamed(name, Object.freeze({ ...node, with: undefined }) as PartQuery)] };
}

const builder = sqlBuilder<Record<string, never>>();

/**
 * One statement of the parts' CTEs (in the order given) and a final `select` over them
 * (`select 1` when none is given): one round trip, one snapshot; the rows are the final select's.
 */
export function composedStatement<Row = { one: number }>(parts: readonly StatementPart[], final?: RawBuilder<Row>): Compilable<Row> {
  const ctes = parts.flatMap((p) => p.ctes);
  const names = new Set<string>();
  for (const cte of ctes) {
    const name = cteName(cte);
    if (names.has(name)) throw new Error(`composed statement: two parts name a CTE ${name}`);
    names.add(name);
  }
  const body = final ?? sql<Row>`select 1 as one`;
  const text = ctes.length === 0 ? body : sql<Row>`with recursive ${sql.join(ctes.map(asSource))} ${body}`;
  // A raw statement compiled by the module-neutral builder (no table of its own).
  return { compile: () => text.compile(builder) } as Compilable<Row>;
}
