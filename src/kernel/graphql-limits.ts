import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  GraphQLError, isListType, isNonNullType, Kind,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLOutputType, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionSetNode, type ValidationRule,
} from 'graphql';

/** Codes of a request refused for its size or cost (HTTP 400, `extensions.code`). */
export const LIMIT_CODES = {
  depth: 'GRAPHQL_QUERY_TOO_DEEP',
  aliases: 'GRAPHQL_QUERY_TOO_MANY_ALIASES',
  tokens: 'GRAPHQL_QUERY_TOO_MANY_TOKENS',
  complexity: 'GRAPHQL_QUERY_TOO_COMPLEX',
} as const;

export type LimitCode = (typeof LIMIT_CODES)[keyof typeof LIMIT_CODES];

export function isLimitCode(code: unknown): code is LimitCode {
  return Object.values(LIMIT_CODES).includes(code as LimitCode);
}

/** A limit the request went over; `limit` and `measured` reach the client in `extensions`. */
export class GraphQLLimitError extends Error {
  readonly code: LimitCode;
  readonly limit: number;
  readonly measured: number;

  constructor(code: LimitCode, message: string, limit: number, measured: number) {
    super(message);
    this.name = 'GraphQLLimitError';
    this.code = code;
    this.limit = limit;
    this.measured = measured;
  }
}

const MAX_COMPLEXITY = Symbol('bomcore.graphql.maxComplexity');

/**
 * Marks a /graphql request's context with the complexity limit its operation is held to. The REST
 * facade's contexts carry none: its stored operations are fixed, checked against the defaults by a
 * test, and spared the per-request cost of measuring them.
 */
export function withComplexityLimit<T extends object>(ctx: T, limit: number): T {
  return Object.assign(ctx, { [MAX_COMPLEXITY]: limit });
}

/** The limit `withComplexityLimit` set (also through a batch operation's context, which inherits it). */
export function complexityLimitOf(ctx: object): number | undefined {
  return (ctx as { [MAX_COMPLEXITY]?: number })[MAX_COMPLEXITY];
}

/** The complexity error thrown by the Pothos complexity plugin (schema/builder.ts). */
export function tooComplex(measured: number, limit: number): GraphQLLimitError {
  const cost = Math.ceil(measured);
  return new GraphQLLimitError(LIMIT_CODES.complexity, `the operation costs ${cost}; the limit is ${limit}`, limit, cost);
}

/** A list of a field's own (a page, an id list) is priced as this many rows by its list multiplier. */
export const DEFAULT_LIST_MULTIPLIER = 10;
/** Arguments giving how many rows a field reads (a page size); absent and without a default: 50. */
const ROW_COUNT_ARGS = ['first', 'last', 'pageSize', 'limit'] as const;
const DEFAULT_ROWS = 50;
/** List arguments naming the rows a field reads (one row each). */
const ROW_LIST_ARGS = ['ids', 'representations'] as const;
/** List arguments narrowing the work to some locations: each costs one unit. */
const SCOPE_LIST_ARGS = ['locationIds'] as const;

/**
 * A field's extension (Pothos `extensions`) giving the work it costs whatever its arguments: a
 * computation over the whole shop takes no row count, yet costs more than any page.
 */
export const FIELD_WORK_EXTENSION = 'bomcoreWork';
/**
 * The work of one computation over the whole shop (the plan): ten times the largest page (1,000
 * rows), far above the costly threshold (BOMCORE_HEAVY_WORK, default 20), so such requests take
 * turns at the work gate instead of each holding the shop in memory at once.
 */
export const WHOLE_SHOP_WORK = 10_000;

/** The work a field's FIELD_WORK_EXTENSION gives it (0 without one). */
export function fixedFieldWork(field: { extensions?: Readonly<Record<string, unknown>> | null }): number {
  const work = field.extensions?.[FIELD_WORK_EXTENSION];
  return typeof work === 'number' && Number.isFinite(work) && work > 0 ? work : 0;
}

/** How many locations the field's scope arguments (`locationIds`) name: one unit each. */
export function scopeCount(args: Record<string, unknown>): number {
  let locations = 0;
  for (const name of SCOPE_LIST_ARGS) {
    const value = args[name];
    if (Array.isArray(value)) locations += value.length;
  }
  return locations;
}

function isListOutput(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** How many rows the field's arguments ask for; undefined when it takes no row-count argument. */
export function requestedRows(args: Record<string, unknown>, field: GraphQLField<unknown, unknown>): number | undefined {
  let takesRows = false;
  let given: number | undefined;
  let fallback: number | undefined;
  for (const name of ROW_COUNT_ARGS) {
    const definition = field.args.find((a) => a.name === name);
    if (!definition) continue;
    takesRows = true;
    const value = args[name];
    if (typeof value === 'number' && Number.isFinite(value)) given = Math.max(given ?? 0, Math.max(0, value));
    else if (typeof definition.defaultValue === 'number') fallback = Math.max(fallback ?? 0, definition.defaultValue);
  }
  // Absent: the argument's default, else the lists' default page of 50 (`first` without `last`: first).
  let rows = takesRows ? (given ?? fallback ?? DEFAULT_ROWS) : undefined;
  for (const name of ROW_LIST_ARGS) {
    const value = args[name];
    if (Array.isArray(value)) rows = Math.max(rows ?? 0, value.length);
  }
  return rows;
}

/**
 * The cost of one field (the Pothos complexity plugin's `fieldComplexity`, schema/builder.ts): what
 * it asks for, not only its shape.
 *
 * - A field costs 1, plus 1 per row its arguments ask for (`first`/`last`/`pageSize`/`limit`, the
 *   length of `ids`/`representations`) and 1 per location of `locationIds`.
 * - What it selects is multiplied by the rows asked for: `boms(pageSize: 1000) { items { … } }` costs
 *   its items 1000 times, `orderBomBreakdowns(ids: [50 ids])` its breakdown 50 times. A page object
 *   gets rows / 10, its row list (`items`, `edges`, `nodes`) the usual ×10 of a list.
 * - Any other list multiplies what it selects by 10 (an estimate: its length is the data's).
 *
 * This prices what a document may select (the complexity limit); the rate limit and admission to
 * costly work use tokens and work instead (src/http/admission/request-price.ts).
 */
export function fieldCost(args: Record<string, unknown>, field: GraphQLField<unknown, unknown>): { field: number; multiplier: number } {
  const list = isListOutput(field.type);
  const locations = scopeCount(args);
  const rows = requestedRows(args, field);
  if (rows === undefined) return { field: 1 + locations, multiplier: list ? DEFAULT_LIST_MULTIPLIER : 1 };
  return { field: 1 + rows + locations, multiplier: list ? rows : rows / DEFAULT_LIST_MULTIPLIER };
}

/**
 * The cost of the operation `operationName` selects in `document` (the only one when unnamed), as
 * the complexity plugin measures it when the operation starts: REST's stored operations and
 * /graphql documents are priced by the one rule (`fieldCost`). Throws when the document does not
 * validate or the variables do not coerce (the operation is refused anyway).
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown> | null, operationName?: string | null): number {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const selected = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!selected) return 0;
  const only: DocumentNode = operations.length === 1 ? document : { ...document, definitions: document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d === selected) };
  return complexityFromQuery(only, { schema, variables: variables ?? {} }).complexity;
}

/**
 * Validation rule when the federation SDL is off (BOMCORE_GRAPHQL_FEDERATION=0): `_service` is
 * refused like `__schema` is without introspection. `_entities` (tenant-scoped data) still answers.
 */
export const federationSdlRule: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value !== '_service' || context.getParentType() !== context.getSchema().getQueryType()) return;
    context.reportError(new GraphQLError(
      'GraphQL federation SDL (_service) is turned off on this server; set BOMCORE_GRAPHQL_FEDERATION=1 to serve it', { nodes: [node] }));
  },
});

/**
 * The parser's own message when it stops at `maxTokens` (graphql-js 16 spells it "more that").
 * The document is not read further, so the client learns it has more than the limit.
 */
export function isTooManyTokens(message: string): boolean {
  return /^Syntax Error: Document contains more th(?:an|at) \d+ tokens/.test(message);
}

export function tooManyTokensMessage(limit: number): string {
  return `the document has more than ${limit} tokens; the limit is ${limit}`;
}

export interface OperationShape {
  /** Deepest chain of nested fields (`{ a { b } }` is 2); fragments count as the fields they hold. */
  depth: number;
  /** Fields selected under an alias, each fragment counted every time it is spread. */
  aliases: number;
}

/**
 * Measures one operation. A fragment is measured once however often it is spread (so a document
 * built to explode on expansion costs no more to measure than to parse); a fragment cycle counts as
 * empty — the standard NoFragmentCycles rule refuses the document anyway.
 */
export function measureOperation(operation: OperationDefinitionNode, document: DocumentNode): OperationShape {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measured = new Map<string, OperationShape>();
  const visiting = new Set<string>();

  const fragmentShape = (name: string): OperationShape => {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment || visiting.has(name)) return { depth: 0, aliases: 0 };
    visiting.add(name);
    const shape = selectionShape(fragment.selectionSet);
    visiting.delete(name);
    measured.set(name, shape);
    return shape;
  };

  const selectionShape = (set: SelectionSetNode): OperationShape => {
    let depth = 0;
    let aliases = 0;
    for (const selection of set.selections) {
      let inner: OperationShape;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? selectionShape(selection.selectionSet) : { depth: 0, aliases: 0 };
        inner = { depth: below.depth + 1, aliases: below.aliases + (selection.alias ? 1 : 0) };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = selectionShape(selection.selectionSet);
      } else {
        inner = fragmentShape(selection.name.value);
      }
      depth = Math.max(depth, inner.depth);
      aliases += inner.aliases;
    }
    return { depth, aliases };
  };

  return selectionShape(operation.selectionSet);
}

function limitError(code: LimitCode, message: string, limit: number, measured: number, node: OperationDefinitionNode): GraphQLError {
  return new GraphQLError(message, { nodes: [node], extensions: { code, limit, measured } });
}

/**
 * Validation rule: every operation of the document stays within the depth and alias limits. It runs
 * with the standard rules, before anything executes, and needs no variables, so mercurius caches
 * its verdict with the document.
 */
export function operationShapeRule(limits: { maxDepth: number; maxAliases: number }): ValidationRule {
  return (context) => ({
    OperationDefinition(node) {
      const shape = measureOperation(node, context.getDocument());
      if (shape.depth > limits.maxDepth) {
        context.reportError(limitError(LIMIT_CODES.depth,
          `the operation is ${shape.depth} fields deep; the limit is ${limits.maxDepth}`, limits.maxDepth, shape.depth, node));
      }
      if (shape.aliases > limits.maxAliases) {
        context.reportError(limitError(LIMIT_CODES.aliases,
          `the operation has ${shape.aliases} aliased fields; the limit is ${limits.maxAliases}`, limits.maxAliases, shape.aliases, node));
      }
      return false;
    },
  });
}
