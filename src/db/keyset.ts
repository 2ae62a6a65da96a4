import { DomainError } from '../domain-error.ts';

// Keyset (cursor) pagination for the GraphQL connections. A cursor carries the sort key values of
// its row (as the database prints them) and the list and sort it belongs to, so a page is a seek
// on the sort order: its cost follows the page size, not how deep in the list it lies.
// Plain SQL building (no table access): each owning module runs the statement over its tables.

/**
 * The sort directions of every list, paged or keyset (GraphQL's RawMaterialSortOrder, BomSortOrder and
 * WorkOrderSortDirection are built from it; REST learns them through those enums).
 */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** One column of a total order. Nullable columns sort nulls last in both directions (as the REST lists do). */
export interface SortColumn {
  sql: string;
  dir: SortDirection;
  /** How a printed key value is read back (`?::<cast>`). */
  cast: 'text' | 'numeric' | 'int' | 'timestamptz' | 'date';
  nullable?: boolean;
  /**
   * For keys that are positions rather than values (dense collation ranks, which shift when rows
   * are added): the key's current value for the cursor's row, read from the cursor's values
   * (a scalar subquery). The printed value stands in when the row is gone.
   */
  current?: (values: readonly (string | null)[]) => Sql;
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

interface Sql { sql: string; args: unknown[] }

/** The cursor's value of a column as a bound parameter (or the row's current value, see SortColumn.current). */
function param(c: SortColumn, v: string, values: readonly (string | null)[]): Sql {
  if (!c.current) return { sql: `?::${c.cast}`, args: [v] };
  const current = c.current(values);
  return { sql: `coalesce((${current.sql}), ?::${c.cast})`, args: [...current.args, v] };
}

/** Strictly after value `v` in the column's order (nulls last); never null. */
function after(c: SortColumn, v: string | null, values: readonly (string | null)[]): Sql | null {
  if (v === null) return null; // nothing sorts after a null (nulls last), among equal earlier columns
  const op = c.dir === 'asc' ? '>' : '<';
  const p = param(c, v, values);
  return { sql: c.nullable ? `(${c.sql} ${op} ${p.sql} or ${c.sql} is null)` : `${c.sql} ${op} ${p.sql}`, args: p.args };
}

/** Strictly before value `v` in the column's order (nulls last); never null. */
function before(c: SortColumn, v: string | null, values: readonly (string | null)[]): Sql | null {
  if (v === null) return c.nullable ? { sql: `${c.sql} is not null`, args: [] } : null;
  const op = c.dir === 'asc' ? '<' : '>';
  const p = param(c, v, values);
  return { sql: c.nullable ? `(${c.sql} is not null and ${c.sql} ${op} ${p.sql})` : `${c.sql} ${op} ${p.sql}`, args: p.args };
}

function equal(c: SortColumn, v: string | null, values: readonly (string | null)[]): Sql {
  if (v === null) return { sql: `${c.sql} is null`, args: [] };
  const p = param(c, v, values);
  return { sql: `${c.sql} = ${p.sql}`, args: p.args };
}

/**
 * Rows strictly beyond the cursor on one side: OR over i of (columns before i equal) and
 * (column i beyond). Led by an index-friendly bound on the first column when it is not nullable,
 * so the scan starts at the cursor instead of filtering from the top of the list.
 */
function beyond(columns: readonly SortColumn[], values: readonly (string | null)[], side: 'after' | 'before'): Sql {
  const step = side === 'after' ? after : before;
  const terms: Sql[] = [];
  for (let i = 0; i < columns.length; i++) {
    const last = step(columns[i]!, values[i]!, values);
    if (!last) continue;
    const parts = [...columns.slice(0, i).map((c, j) => equal(c, values[j]!, values)), last];
    terms.push({ sql: parts.map((p) => p.sql).join(' and '), args: parts.flatMap((p) => p.args) });
  }
  const any: Sql = terms.length === 0 ? { sql: 'false', args: [] } : { sql: terms.map((t) => `(${t.sql})`).join(' or '), args: terms.flatMap((t) => t.args) };
  const lead = columns[0]!;
  const leadValue = values[0];
  if (lead.nullable || leadValue === null || leadValue === undefined) return any;
  const bound = side === 'after' ? (lead.dir === 'asc' ? '>=' : '<=') : (lead.dir === 'asc' ? '<=' : '>=');
  const p = param(lead, leadValue, values);
  return { sql: `${lead.sql} ${bound} ${p.sql} and (${any.sql})`, args: [...p.args, ...any.args] };
}

function orderBy(columns: readonly SortColumn[], reversed: boolean): string {
  return columns.map((c) => {
    const dir = reversed ? (c.dir === 'asc' ? 'desc' : 'asc') : c.dir;
    return `${c.sql} ${dir} ${reversed ? 'nulls first' : 'nulls last'}`;
  }).join(', ');
}

/** The parts of one list's connection statement, given by its owning module. */
export interface KeysetSource {
  /** FROM clause, with the alias the other parts use (bound by `fromArgs`). */
  from: string;
  fromArgs?: unknown[];
  /** The list's filters over `from` (the same as its REST list). */
  filter: Sql;
  /** FROM clause of the total count, without placeholders (defaults to `from`). */
  countFrom?: string;
  /** Columns the page keeps for `rowColumns`. */
  pageColumns: string;
  /** The alias `rowColumns` and `joins` use for a page row. */
  alias: string;
  /** The node's columns over a page row (may hold `?` placeholders, bound by `rowArgs`). */
  rowColumns: string;
  rowArgs?: unknown[];
  /** Lateral joins of a page row (bound by `joinArgs`). */
  joins?: string;
  joinArgs?: unknown[];
  columns: readonly SortColumn[];
}

export interface KeysetRow { total_count: string | number; outside: boolean | null; ord_: string | number | null; [key: string]: unknown }

/** The window's SQL pieces over the sort columns: its bounds, order, look-ahead limit, key columns and the far-side test. */
export interface WindowSql { bounds: Sql; order: string; limit: number; keys: string; outside: Sql | null }

export function windowSql(columns: readonly SortColumn[], window: PageWindow): WindowSql {
  const backward = window.last !== null;
  const bounds: Sql[] = [];
  if (window.after) bounds.push(beyond(columns, window.after, 'after'));
  if (window.before) bounds.push(beyond(columns, window.before, 'before'));
  // The cursor the page starts from (`after` going forward, `before` going backward): rows not
  // beyond it — the cursor's own row included — lie on the other side of the page.
  const start = backward ? window.before : window.after;
  const side = start ? beyond(columns, start, backward ? 'before' : 'after') : null;
  return {
    bounds: bounds.length === 0 ? { sql: 'true', args: [] } : { sql: bounds.map((b) => `(${b.sql})`).join(' and '), args: bounds.flatMap((b) => b.args) },
    order: orderBy(columns, backward),
    limit: (window.first ?? window.last!) + 1,
    keys: columns.map((c, i) => `(${c.sql})::text as k${i}`).join(', '),
    outside: side ? { sql: `not coalesce((${side.sql}), false)`, args: side.args } : null,
  };
}

/**
 * ONE statement for a page: the window's rows (one more than asked, to know whether more follow),
 * the filtered total, and whether rows lie on the far side of the cursor the page starts from.
 */
export function keysetStatement(source: KeysetSource, window: PageWindow): Sql {
  const { columns, filter, alias } = source;
  const fromArgs = source.fromArgs ?? [];
  const w = windowSql(columns, window);
  const outside = w.outside;
  return {
    sql: `with page as (
            select ${source.pageColumns}, ${w.keys}, row_number() over (order by ${w.order}) as ord_
              from ${source.from} where (${filter.sql}) and ${w.bounds.sql} order by ${w.order} limit ?)
          select (select count(*) from ${source.countFrom ?? source.from} where ${filter.sql}) as total_count,
                 ${outside ? `exists (select 1 from ${source.from} where (${filter.sql}) and (${outside.sql}))` : 'false'} as outside,
                 ${source.rowColumns}, ${columns.map((_, i) => `${alias}.k${i}`).join(', ')}, ${alias}.ord_
            from (select 1) one left join page ${alias} on true ${source.joins ?? ''}
           order by ${alias}.ord_`,
    args: [
      ...fromArgs, ...filter.args, ...w.bounds.args, w.limit, ...(source.countFrom ? [] : fromArgs), ...filter.args,
      ...(outside ? [...fromArgs, ...filter.args, ...outside.args] : []), ...(source.rowArgs ?? []), ...(source.joinArgs ?? []),
    ],
  };
}

/** Turns the statement's rows into a connection: trims the look-ahead row, restores forward order, sets pageInfo. */
export function toConnection<T>(rows: readonly KeysetRow[], window: PageWindow, tag: string, width: number, node: (row: KeysetRow) => T): Connection<T> {
  const first = rows[0];
  const totalCount = Number(first?.total_count ?? 0);
  const outside = Boolean(first?.outside);
  const found = rows.filter((r) => r.ord_ !== null);
  const size = window.first ?? window.last!;
  const more = found.length > size;
  const page = found.slice(0, size);
  if (window.last !== null) page.reverse();
  const edges = page.map((r) => ({ cursor: encodeCursor(tag, Array.from({ length: width }, (_, i) => (r[`k${i}`] ?? null) as string | null)), node: node(r) }));
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
