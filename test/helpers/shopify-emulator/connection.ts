import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { compareIds } from './gid.ts';
import type { EmulatorContext } from './context.ts';

// Cursor-based pagination of the Admin API (https://shopify.dev/docs/api/usage/pagination-graphql):
// `first`/`after` or `last`/`before` (at most 250 a page, one of the two required), opaque cursors,
// `pageInfo`; and the `query` search syntax (https://shopify.dev/docs/api/usage/search-syntax).

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  reverse?: boolean | null;
}

/** Shopify's page cap on `first`/`last`. */
export const MAX_PAGE_SIZE = 250;

export function cursorOf(id: string): string {
  return Buffer.from(JSON.stringify({ last_id: Number(id), last_value: id })).toString('base64');
}

function idOfCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { last_value?: unknown };
    if (typeof parsed.last_value === 'string') return parsed.last_value;
  } catch { /* falls through */ }
  throw new GraphQLError(`Invalid cursor for current pagination sort.`, { extensions: { code: 'BAD_REQUEST' } });
}

/** Index of the first record whose id is greater than `id` in an id-ordered list. */
function indexAfter<T extends { id: string }>(list: T[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareIds(list[mid]!.id, id) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A Relay connection over an id-ordered list, as Shopify pages: `first` or `last` is required
 * (≤ 250) except inside a bulk operation, where every connection is walked whole and the root one
 * is cut into the bulk runner's slices.
 */
export function connection<T extends { id: string }>(all: T[], args: PageArgs, ctx: EmulatorContext, info: GraphQLResolveInfo, cursor: (t: T) => string = (t) => cursorOf(t.id)) {
  let list = args.reverse ? [...all].reverse() : all;
  if (ctx.bulk) {
    if (!info.path.prev) {
      ctx.bulk.rootTotal = list.length;
      list = list.slice(ctx.bulk.offset, ctx.bulk.offset + ctx.bulk.limit);
    }
    return page(list, false, false, cursor);
  }
  const { first, last } = args;
  if (first == null && last == null) throw new GraphQLError('you must provide one of first or last', { extensions: { code: 'BAD_REQUEST' } });
  for (const [name, value] of [['first', first], ['last', last]] as const) {
    if (value != null && (value < 0 || value > MAX_PAGE_SIZE)) {
      throw new GraphQLError(`The '${name}' argument must be between 0 and ${MAX_PAGE_SIZE}.`, { extensions: { code: 'BAD_REQUEST' } });
    }
  }
  let start = 0;
  let end = list.length;
  const position = (id: string) => (args.reverse ? list.findIndex((t) => t.id === id) + 1 : indexAfter(list, id));
  if (args.after) start = position(idOfCursor(args.after));
  if (args.before) end = Math.max(start, position(idOfCursor(args.before)) - 1);
  let slice = list.slice(start, end);
  let hasNext = end < list.length;
  let hasPrevious = start > 0;
  if (first != null && slice.length > first) {
    slice = slice.slice(0, first);
    hasNext = true;
  }
  if (last != null && slice.length > last) {
    slice = slice.slice(slice.length - last);
    hasPrevious = true;
  }
  return page(slice, hasNext, hasPrevious, cursor);
}

function page<T>(items: T[], hasNextPage: boolean, hasPreviousPage: boolean, cursor: (t: T) => string) {
  const edges = items.map((node) => ({ cursor: cursor(node), node }));
  return {
    edges,
    nodes: items,
    pageInfo: {
      hasNextPage, hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

// ---- Shopify search syntax, the subset the adapter sends: `updated_at:>'2026-…' AND status:open` ----

export interface SearchTerm {
  field: string;
  op: '=' | '>' | '>=' | '<' | '<=';
  value: string;
  negate: boolean;
}

export function parseSearch(query: string | null | undefined): SearchTerm[] {
  if (!query) return [];
  const terms: SearchTerm[] = [];
  const re = /(-|NOT\s+)?([a-z_]+):(>=|<=|>|<)?('(?:[^'])*'|"(?:[^"])*"|\S+)/gi;
  for (const m of query.matchAll(re)) {
    terms.push({ negate: !!m[1], field: m[2]!.toLowerCase(), op: (m[3] ?? '=') as SearchTerm['op'], value: m[4]!.replace(/^['"]|['"]$/g, '') });
  }
  return terms;
}

/** Field values a search term reads; a field the type does not know is ignored, as Shopify ignores it. */
export type SearchFields<T> = Record<string, (record: T) => string | null | string[]>;

export function matchesSearch<T>(record: T, terms: SearchTerm[], fields: SearchFields<T>): boolean {
  for (const term of terms) {
    const read = fields[term.field];
    if (!read) continue;
    const raw = read(record);
    const values = Array.isArray(raw) ? raw : [raw];
    const hit = values.some((value) => value != null && compareTerm(term, value));
    if (hit === term.negate) return false;
  }
  return true;
}

function compareTerm(term: SearchTerm, value: string): boolean {
  const isTime = /^\d{4}-\d{2}-\d{2}/.test(term.value);
  const isId = /^\d+$/.test(term.value) && /^\d+$/.test(value);
  const order = isTime ? Math.sign(Date.parse(value) - Date.parse(term.value)) : isId ? compareIds(value, term.value) : null;
  if (order === null) {
    if (term.op !== '=') return false;
    const want = term.value.toLowerCase();
    return want.endsWith('*') ? value.toLowerCase().startsWith(want.slice(0, -1)) : value.toLowerCase() === want;
  }
  switch (term.op) {
    case '=': return order === 0;
    case '>': return order > 0;
    case '>=': return order >= 0;
    case '<': return order < 0;
    case '<=': return order <= 0;
  }
}
