import {
  GraphQLError, Kind,
  type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode, type ValidationRule,
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
  return new GraphQLLimitError(LIMIT_CODES.complexity, `the operation's complexity is ${measured}; the limit is ${limit}`, limit, measured);
}

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
