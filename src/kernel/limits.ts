import { DomainError } from './domain-error.ts';

/**
 * The one table of input maxima (docs/api-conventions.md, "Input limits"). REST schemas
 * (`maxLength` / `maxItems`, so they appear in the OpenAPI document), GraphQL arguments (checked
 * before execution by schema/input-limits.ts and stated in each argument's description) and
 * dataset files (src/dataset/dataset-shape.ts) read their bounds from here, so a value
 * accepted by one surface is accepted by the others.
 *
 * Why these numbers: text columns are `text`, but several are keys of btree indexes, whose rows
 * must stay under 2,704 bytes. The widest, `materials (shop_id, lower(product_name),
 * product_name, variant_id)`, holds a name twice: 255 characters of 4-byte UTF-8 twice plus a
 * generated id is about 2,150 bytes. Free text that no index holds may be long.
 */
export const STRING_LIMITS = {
  /** Any id or reference: variantId, bomId, workOrderId, locationId, order ids, item ids. */
  id: 255,
  /** Names and titles (indexed): productName, variantName, bill, BOM, cost factor, work order, location and document names. */
  name: 255,
  /** People's names: assignee display names, reviewers, authors, actors. */
  person: 200,
  /** Short labels: sku, vendor, unit, productType, productCategory, weightUnitId, savedBy. */
  label: 255,
  /** One work-order tag. */
  tag: 100,
  /** A search string (`search`, `q`). */
  search: 200,
  /** A sort key name (`sortBy`). */
  sortKey: 64,
  /** An opaque page cursor (`after`, `before`). */
  cursor: 4_096,
  /** A URL (imageUrl, document url). */
  url: 2_000,
  /** Free text: description, notes, specifications, note, message body. */
  text: 10_000,
  /** A date or date-time written as text. */
  date: 64,
} as const;

export type StringKind = keyof typeof STRING_LIMITS;

/**
 * Any text field of a dataset file (src/dataset/shape.ts) or a catalogue write
 * (src/modules/boms/catalog-input.ts): generous, but a bound (the database columns are unbounded
 * text). One constant, so anything written through the API exports and loads again.
 */
export const MAX_STRING_LENGTH = 10_000;

/** Maxima of lists (items per array argument or body field). */
export const LIST_LIMITS = {
  /** Ids filtering a read (locationIds, vendorFilter, status, representations…): the default. */
  ids: 100,
  /** Orders of one breakdown batch (`orderBomBreakdowns(ids:)`, `GET /order-bom-breakdown?ids=`). */
  orderIds: 50,
  /** Tags of a work order or a tag filter. */
  tags: 50,
  /** Rows of one inventory batch (`PATCH …/inventory`, `adjustRawMaterialInventory`). */
  inventoryUpdates: 1_000,
  /** Items of a build run, or of a new work order; manual material lines of a new work order. */
  items: 500,
  /** Items of one QC review. */
  qcReviewItems: 200,
  /** Lines of one recipe list, overrides of one location rule. */
  recipeLines: 1_000,
} as const;

export type ListKind = keyof typeof LIST_LIMITS;

/** Maxima of rows per page of a list (`pageSize`, `first`, `last`, `limit`). */
export const PAGE_LIMITS = {
  /** Raw materials, BOMs, a material's adjustment history (api-v1: up to 1000). */
  rows: 1_000,
  /** Work orders, whose rows carry their header and facets. */
  workOrders: 100,
  /** Versions of one bill. */
  billVersions: 20,
} as const;

/** What a list answers when the client names no page size (the GraphQL arguments' defaults say so too). */
export const PAGE_DEFAULTS = {
  rows: 50,
  workOrders: 50,
  billVersions: 10,
} satisfies Record<keyof typeof PAGE_LIMITS, number>;

/** A page as a client asks for it: a missing or null value takes the default (page 1, PAGE_DEFAULTS). */
export interface PageRequest {
  page?: number | null;
  pageSize?: number | null;
}

/**
 * The page a list service reads: defaults filled in, bounds refused rather than clamped (a client
 * asking for 5,000 rows must learn it got at most 1,000). One check for every paged list, whatever
 * the surface (REST, GraphQL, a test calling the service).
 */
export function pageOf(request: PageRequest, list: keyof typeof PAGE_LIMITS): { page: number; pageSize: number } {
  const page = request.page ?? 1;
  const pageSize = request.pageSize ?? PAGE_DEFAULTS[list];
  if (!Number.isInteger(page) || page < 1) throw DomainError.invalid('page', 'must be at least 1');
  checkSize('pageSize', pageSize, PAGE_LIMITS[list]);
  return { page, pageSize };
}

/** `pageOf` for lists paged by `limit` and `offset` (bill versions). */
export function windowOf(request: { limit?: number | null; offset?: number | null }, list: keyof typeof PAGE_LIMITS): { limit: number; offset: number } {
  const limit = request.limit ?? PAGE_DEFAULTS[list];
  const offset = request.offset ?? 0;
  checkSize('limit', limit, PAGE_LIMITS[list]);
  if (!Number.isInteger(offset) || offset < 0) throw DomainError.invalid('offset', 'must be at least 0');
  return { limit, offset };
}

function checkSize(field: string, size: number, max: number): void {
  if (!Number.isInteger(size) || size < 1 || size > max) throw DomainError.invalid(field, `must be between 1 and ${max}`);
}

/**
 * Deepest nesting of arrays and objects in one JSON value: a request body, GraphQL variables, a
 * GraphQL argument value (`_Any` representations). `{}` is 1 level, `{"a":[1]}` 2. Measured without
 * recursion before anything walks the value (src/kernel/json-depth.ts); deeper is 400 naming the limit.
 * The bodies the API defines nest a handful of levels (`{"updates":[{…}]}` is 3).
 */
export const MAX_JSON_DEPTH = 32;

/** `'a\u0000b'` → the reason it cannot be stored, or null. PostgreSQL text holds neither NUL nor lone surrogates. */
export function unstorableText(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL (U+0000) characters';
  if (!value.isWellFormed()) return 'must be valid Unicode (it holds a lone surrogate)';
  return null;
}

/** Length in characters as JSON Schema's maxLength counts them (code points). */
export function textLength(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const d = value.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Planning lead times (materials, BOMs, assembly bills): whole days, at most a hundred years. */
export const MAX_LEAD_TIME_DAYS = 36500;
