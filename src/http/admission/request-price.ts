import {
  getArgumentValues, getDirectiveValues, getNamedType, getVariableValues, GraphQLIncludeDirective, GraphQLSkipDirective, isInterfaceType,
  isObjectType, Kind, parse,
  type DirectiveNode, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType, type GraphQLResolveInfo, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { fixedFieldWork, operationCost, requestedRows, scopeCount } from '../../kernel/graphql-limits.ts';

/**
 * What a request costs, in two units that are never mixed:
 *
 * - **tokens** (the rate limit): the REST calls it stands for. A REST call is one token whatever its
 *   page size or number of ids; a /graphql operation is one token per root field it runs (each
 *   alias counts; `__typename` and introspection count nothing), a batch the sum of its operations.
 * - **work** (admission to costly work, fair sharing): what its arguments make the server compute,
 *   whatever it selects: the rows a page asks for, the ids of a batch, the locations of a
 *   `locationIds`, a nested field's multiplied by its parent's rows. `orderBomBreakdowns` of 50 ids
 *   is 50 (50 breakdowns are built even when only `notFound` is read), a 1000-row page 1000, a
 *   single read or `locations` 1, the whole shop's plan WHOLE_SHOP_WORK (its schema says so).
 *
 * The GraphQL complexity limit (`operationCost`) is a third, separate measure: it refuses a
 * document whose selections would explode, before anything runs.
 */
export interface OperationPrice { tokens: number; work: number }

/** A root field's work is at least this: a single read, a location list. */
const MIN_ROOT_WORK = 1;

/**
 * The work of one field (see above), without what it selects: the rows its arguments ask for plus
 * one per location of `locationIds`, plus the fixed work its schema gives it (a whole-shop
 * computation: WHOLE_SHOP_WORK). `rows` multiplies the work of the fields below it.
 */
export function fieldWork(args: Record<string, unknown>, field: GraphQLField<unknown, unknown>): { own: number; rows: number } {
  const rows = requestedRows(args, field);
  return { own: (rows ?? 0) + scopeCount(args) + fixedFieldWork(field), rows: Math.max(1, rows ?? 1) };
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Work per selection set and type: a fragment's fields are walked once however often it is spread. */
  measured: Map<SelectionSetNode, Map<GraphQLNamedType, number>>;
  /** Selection sets being walked: a fragment cycle (refused by validation later) counts as empty. */
  active: Set<SelectionSetNode>;
}

interface Selected { node: FieldNode; parent: GraphQLNamedType }

/** @skip / @include with the operation's variables: a skipped field runs nothing and costs nothing. */
function included(walk: Walk, node: { directives?: readonly DirectiveNode[] }): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, walk.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, walk.variables)?.if !== false;
}

/**
 * The fields of `set` on `type` by response key, fragments flattened as execution collects them
 * (each named fragment once per selection set, so nested spreads cannot blow the walk up).
 */
function collectFields(walk: Walk, set: SelectionSetNode, type: GraphQLNamedType, into = new Map<string, Selected[]>(), visited = new Set<string>()): Map<string, Selected[]> {
  for (const selection of set.selections) {
    if (!included(walk, selection)) continue;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      into.set(key, [...(into.get(key) ?? []), { node: selection, parent: type }]);
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      if (visited.has(selection.name.value)) continue;
      visited.add(selection.name.value);
    }
    const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
    if (!fragment) continue;
    const condition = fragment.typeCondition ? walk.schema.getType(fragment.typeCondition.name.value) : type;
    collectFields(walk, fragment.selectionSet, condition ?? type, into, visited);
  }
  return into;
}

/** The field a node selects on `parent`; undefined for `__typename` and introspection (free here). */
function fieldOf({ node, parent }: Selected): GraphQLField<unknown, unknown> | undefined {
  const name = node.name.value;
  if (name.startsWith('__') || !(isObjectType(parent) || isInterfaceType(parent))) return undefined;
  const field = parent.getFields()[name];
  if (!field) throw new Error(`unknown field ${parent.name}.${name}`);
  return field;
}

/** One selected field: its own work (at least `floor`) plus its rows × the work of what it selects. */
function fieldNodeWork(walk: Walk, selected: Selected, floor: number): number {
  const field = fieldOf(selected);
  if (!field) return 0;
  const { own, rows } = fieldWork(getArgumentValues(field, selected.node, walk.variables), field);
  const set = selected.node.selectionSet;
  return Math.max(floor, own) + (set ? rows * selectionWork(walk, set, getNamedType(field.type)) : 0);
}

/**
 * The work below one selection set. Fields merged under one response key are each counted (an
 * over-estimate only for a document that repeats a field, on the safe side).
 */
function selectionWork(walk: Walk, set: SelectionSetNode, type: GraphQLNamedType): number {
  const known = walk.measured.get(set)?.get(type);
  if (known !== undefined) return known;
  if (walk.active.has(set)) return 0;
  walk.active.add(set);
  let work = 0;
  for (const selected of collectFields(walk, set, type).values()) {
    for (const one of selected) work += fieldNodeWork(walk, one, 0);
  }
  walk.active.delete(set);
  walk.measured.set(set, (walk.measured.get(set) ?? new Map<GraphQLNamedType, number>()).set(type, work));
  return work;
}

/**
 * The tokens and work of the operation `operationName` selects in `document` (the only one when
 * unnamed), with its variables. Root fields sharing a response key run once: one token. Throws
 * when the variables do not coerce or a field is unknown (the operation is refused anyway).
 */
export function operationPrice(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown> | null, operationName?: string | null): OperationPrice {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return { tokens: 0, work: 0 };
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) throw coerced.errors[0]!;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const walk: Walk = { schema, fragments, variables: coerced.coerced, measured: new Map(), active: new Set() };
  let tokens = 0;
  let work = 0;
  for (const selected of collectFields(walk, operation.selectionSet, root).values()) {
    if (selected.some((one) => fieldOf(one))) tokens += 1;
    for (const one of selected) work += fieldNodeWork(walk, one, MIN_ROOT_WORK);
  }
  return { tokens, work };
}

/**
 * The work of the field being resolved (a root field, as the work lanes of src/http/admission/work-gate.ts
 * see it): the same count as `operationPrice` gives it, from the resolver's own info.
 */
export function resolvedFieldWork(info: GraphQLResolveInfo): number {
  const fragments = new Map(Object.entries(info.fragments));
  const walk: Walk = { schema: info.schema, fragments, variables: info.variableValues, measured: new Map(), active: new Set() };
  let work = 0;
  for (const node of info.fieldNodes) work += fieldNodeWork(walk, { node, parent: info.parentType }, MIN_ROOT_WORK);
  return work;
}

/** One operation of a /graphql request: its complexity (the limit), tokens and work; all 0 when it will be refused. */
export interface RequestedOperation extends OperationPrice { complexity: number }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const REFUSED: RequestedOperation = { complexity: 0, tokens: 0, work: 0 };

/** One operation of a request (a POST body or a GET query string), measured before anything runs. */
function requestedOperation(schema: GraphQLSchema, operation: unknown, limits: { maxTokens: number }): RequestedOperation {
  if (!isRecord(operation) || typeof operation.query !== 'string') return REFUSED;
  let variables = operation.variables;
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables) as unknown;
    } catch {
      return REFUSED;
    }
  }
  try {
    const document = parse(operation.query, { maxTokens: limits.maxTokens });
    const vars = isRecord(variables) ? variables : {};
    const name = typeof operation.operationName === 'string' ? operation.operationName : null;
    return { complexity: operationCost(schema, document, vars, name), ...operationPrice(schema, document, vars, name) };
  } catch {
    // Does not parse, validate or coerce: refused before it runs.
    return REFUSED;
  }
}

/**
 * Each operation of a /graphql request (a batch holds several), measured before anything runs: its
 * complexity, tokens and work; zeros for one that will be refused anyway (syntax, validation, variables).
 */
export function requestedOperations(schema: GraphQLSchema, body: unknown, limits: { maxTokens: number }): RequestedOperation[] {
  return (Array.isArray(body) ? body : [body]).map((operation) => requestedOperation(schema, operation, limits));
}
