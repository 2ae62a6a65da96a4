import { sql, type AliasedExpression, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { DomainError } from '../kernel/domain-error.ts';

// Keyset (cursor) pagination for the GraphQL connections. A cursor carries the sort key values of
// its row (as the database prints them) and the list and sort it belongs to, so a page is a seek
// on the sort order: its cost follows the page size, not how deep in the list it lies.
// Pieces of a Kysely query (no table access): each owning module builds its page's statement over
// its own tables with them (a CTE or lateral `page` of the window's rows, selected beside
// `keysetTotals`) and turns its rows into a connection with `toConnection`.

/**
 * The sort directions of every list, paged or keyset (GraphQL's RawMaterialSortOrder, BomSortOrder and
 * WorkOrderSortDirection are built from it; REST learns them through those enums).
 */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** One column of a total order. Nullable columns sort nulls last in both directions (as the REST lists do). */
export interface SortColumn {
  /** The key's expression over the list's rows. */
  key: Expression<unknown>;
  dir: SortDirection;
  /** How a printed key value is read back (`?::<cast>`). */
  cast: 'text' | 'numeric' | 'int' | 'timestamptz' | 'date';
  nullable?: boolean;
  /**
   * For keys that are positions rather than values (dense collation ranks, which shift when rows
   * are added): the key's current value for the cursor's row, read from the cursor's values
   * (a scalar subquery). The printed value stands in when the row is gone.
   */
  current?: (values: readonly (string | null)[]) => Expression<unknown>;
}

/** A page request, validated: exactly one of `first`/`last` is set. */
export interface PageWindow {
  first: number | null;
  last: number | null;
  after: (string | null)[] | null;
  before: (string | null)[] | null;
}

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface Edge<T> { cursor: string; node: T }
export interface PageInfo { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }
export interface Connection<T> { edges: Edge<T>[]; pageInfo: PageInfo; totalCount: number }

/** The page size when neither `first` nor `last` is given (the REST lists' default). */
export const DEFAULT_PAGE_SIZE = 50;

export function encodeCursor(tag: string, values: readonly (string | null)[]): string {
  return Buffer.from(JSON.stringify([tag, ...values]), 'utf8').toString('base64url');
}

function decodeCursor(field: string, cursor: string, tag: string, width: number): (string | null)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const ok = Array.isArray(parsed) && typeof parsed[0] === 'string' && parsed.slice(1).every((v) => v === null || typeof v === 'string');
  if (!ok || !Array.isArray(parsed)) throw DomainError.invalid(field, 'is not a cursor of this list');
  // A cursor of another sort (or direction) would seek on the wrong keys.
  if (parsed[0] !== tag) throw DomainError.invalid(field, 'belongs to another sort order or list: request the first page again with this sort');
  if (parsed.length !== width + 1) throw DomainError.invalid(field, 'is not a cursor of this list');
  return parsed.slice(1) as (string | null)[];
}

/** Checks the Relay arguments against the list's page-size limit (the REST maximum); out of range is INVALID_INPUT. */
export function pageWindow(args: ConnectionArgs, maxPageSize: number, tag: string, width: number): PageWindow {
  const size = (field: 'first' | 'last', value: number | null | undefined): number | null => {
    if (value === null || value === undefined) return null;
    if (!Number.isInteger(value) || value < 1 || value > maxPageSize) throw DomainError.invalid(field, `must be between 1 and ${maxPageSize}`);
    return value;
  };
  const first = size('first', args.first);
  const last = size('last', args.last);
  if (first !== null && last !== null) throw DomainError.invalid('last', 'cannot be combined with first: page forward (first/after) or backward (last/before)');
  return {
    first: first ?? (last === null ? DEFAULT_PAGE_SIZE : null),
    last,
    after: args.after ? decodeCursor('after', args.after, tag, width) : null,
    before: args.before ? decodeCursor('before', args.before, tag, width) : null,
  };
}

/** The cursor's value of a column as a bound parameter (or the row's current value, see SortColumn.current). */
function param(c: SortColumn, v: string, values: readonly (string | null)[]): Condition {
  const value = sql<unknown>`${v}::${sql.raw(c.cast)}`;
  return c.current ? sql<unknown>`coalesce((${c.current(values)}), ${value})` : value;
}

type Condition = RawBuilder<unknown>;
const and = (parts: readonly Condition[]): Condition => sql.join(parts, sql` and `);

/** Strictly after value `v` in the column's order (nulls last); never null. */
function after(c: SortColumn, v: string | null, values: readonly (string | null)[]): Condition | null {
  if (v === null) return null; // nothing sorts after a null (nulls last), among equal earlier columns
  const op = sql.raw(c.dir === 'asc' ? '>' : '<');
  const p = param(c, v, values);
  return c.nullable ? sql`(${c.key} ${op} ${p} or ${c.key} is null)` : sql`${c.key} ${op} ${p}`;
}

/** Strictly before value `v` in the column's order (nulls last); never null. */
function before(c: SortColumn, v: string | null, values: readonly (string | null)[]): Condition | null {
  if (v === null) return c.nullable ? sql`${c.key} is not null` : null;
  const op = sql.raw(c.dir === 'asc' ? '<' : '>');
  const p = param(c, v, values);
  return c.nullable ? sql`(${c.key} is not null and ${c.key} ${op} ${p})` : sql`${c.key} ${op} ${p}`;
}

function equal(c: SortColumn, v: string | null, values: readonly (string | null)[]): Condition {
  return v === null ? sql`${c.key} is null` : sql`${c.key} = ${param(c, v, values)}`;
}

/**
 * Rows strictly beyond the cursor on one side: OR over i of (columns before i equal) and
 * (column i beyond). Led by an index-friendly bound on the first column when it is not nullable,
 * so the scan starts at the cursor instead of filtering from the top of the list.
 */
function beyond(columns: readonly SortColumn[], values: readonly (string | null)[], side: 'after' | 'before'): Condition {
  const step = side === 'after' ? after : before;
  const terms: Condition[] = [];
  for (let i = 0; i < columns.length; i++) {
    const last = step(columns[i]!, values[i]!, values);
    if (!last) continue;
    terms.push(and([...columns.slice(0, i).map((c, j) => equal(c, values[j]!, values)), last]));
  }
  const any = terms.length === 0 ? sql`false` : sql.join(terms.map((t) => sql`(${t})`), sql` or `);
  const lead = columns[0]!;
  const leadValue = values[0];
  if (lead.nullable || leadValue === null || leadValue === undefined) return any;
  const bound = sql.raw(side === 'after' ? (lead.dir === 'asc' ? '>=' : '<=') : (lead.dir === 'asc' ? '<=' : '>='));
  return sql`${lead.key} ${bound} ${param(lead, leadValue, values)} and (${any})`;
}

function orderBy(columns: readonly SortColumn[], reversed: boolean): RawBuilder<unknown> {
  return sql.join(columns.map((c) => {
    const dir = reversed ? (c.dir === 'asc' ? 'desc' : 'asc') : c.dir;
    return sql`${c.key} ${sql.raw(`${dir} ${reversed ? 'nulls first' : 'nulls last'}`)}`;
  }));
}

/** The name a page row's sort key `i` has in the statement (`k0`, `k1`, …): its cursor is made of them. */
type KeyName = `k${number}`;

/**
 * The window's pieces of a page's statement, over the sort columns: its bounds (a where), its
 * order (an order by, also the order of `ord_`), its look-ahead limit, the columns a page row
 * selects (its sort keys as printed, `k0`…, and its place, `ord_`) and the far-side test.
 */
export function windowSql(columns: readonly SortColumn[], window: PageWindow) {
  const backward = window.last !== null;
  const bounds: Condition[] = [];
  if (window.after) bounds.push(beyond(columns, window.after, 'after'));
  if (window.before) bounds.push(beyond(columns, window.before, 'before'));
  // The cursor the page starts from (`after` going forward, `before` going backward): rows not
  // beyond it — the cursor's own row included — lie on the other side of the page.
  const start = backward ? window.before : window.after;
  const side = start ? beyond(columns, start, backward ? 'before' : 'after') : null;
  const order = orderBy(columns, backward);
  return {
    bounds: (bounds.length === 0 ? sql`true` : and(bounds.map((b) => sql`(${b})`))) as RawBuilder<SqlBool>,
    order,
    limit: (window.first ?? window.last!) + 1,
    keys: [
      ...columns.map((c, i) => sql<string | null>`(${c.key})::text`.as(`k${i}` as KeyName)),
      sql<string>`row_number() over (order by ${order})`.as('ord_'),
    ],
    outside: side ? sql<SqlBool>`not coalesce((${side}), false)` : null,
  };
}

export type WindowSql = ReturnType<typeof windowSql>;

/** The window's key columns and `ord_` of a page joined as `alias`, for the statement's select. */
export function pageKeys(alias: string, w: WindowSql) {
  return [
    ...w.keys.slice(0, -1).map((_, i) => sql.ref<string | null>(`${alias}.k${i}`).as(`k${i}` as KeyName)),
    sql.ref<string>(`${alias}.ord_`).as('ord_'),
  ];
}

/**
 * The two columns a page's statement adds beside its rows: the filtered total (`total_count`) and
 * whether rows lie on the far side of the cursor the page starts from (`outside`). `rows` are the
 * list's rows under its filters (a select without columns); `total` the count, when the list has a
 * cheaper one than counting `rows` (a stored count of the unfiltered list).
 */
export function keysetTotals(rows: () => AnySelect, w: WindowSql, total?: RawBuilder<string | number>) {
  return [
    (total ?? sql<string>`${rows().select(sql<string>`count(*)`.as('n'))}`).as('total_count'),
    (w.outside ? sql<boolean>`exists ${rows().select(sql.lit(1).as('one')).where(w.outside)}` : sql<boolean>`false`).as('outside'),
  ] as const;
}

/** Any module's select of its list's rows (the keyset pieces are plain SQL over the module's own query). */
type AnySelect = SelectQueryBuilder<any, any, object>;

/**
 * A page entry's columns as a statement that left-joins its page types them: each may be null
 * (the one row of an empty page). `toConnection` hands `node` only rows that carry an entry, which
 * hold the columns as the page's own query types them.
 */
export type LeftJoined<T> = { [K in keyof T]: T[K] | null };

/** The columns `windowSql` and `keysetTotals` add to a statement, as those selections type them (null: a row without a page entry). */
type KeysetColumns = Selected<WindowSql['keys'][number] | ReturnType<typeof keysetTotals>[number]>;
type Selected<E> = { [A in E extends AliasedExpression<unknown, infer N> ? N : never]: (E extends AliasedExpression<infer T, A> ? T : never) | null };

/** Turns the statement's rows into a connection: trims the look-ahead row, restores forward order, sets pageInfo. */
export function toConnection<R extends Partial<KeysetColumns>, T>(rows: readonly R[], window: PageWindow, tag: string, width: number, node: (row: R) => T): Connection<T> {
  const first = rows[0];
  const totalCount = Number(first?.total_count ?? 0);
  const outside = Boolean(first?.outside);
  const found = rows.filter((r) => r.ord_ !== null && r.ord_ !== undefined);
  const size = window.first ?? window.last!;
  const more = found.length > size;
  const page = found.slice(0, size);
  if (window.last !== null) page.reverse();
  const edges = page.map((r) => ({ cursor: encodeCursor(tag, Array.from({ length: width }, (_, i) => r[`k${i}`] ?? null)), node: node(r) }));
  const backward = window.last !== null;
  return {
    edges,
    totalCount,
    pageInfo: {
      hasNextPage: backward ? outside : more,
      hasPreviousPage: backward ? more : outside,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
