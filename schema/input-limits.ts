import {
  getArgumentValues, getNamedType, getNullableType, getOperationAST, getVariableValues, isInputObjectType, isListType,
  isObjectType, isInterfaceType, isScalarType, Kind, TypeInfo, visit, visitWithTypeInfo,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLArgument, type GraphQLInputField, type GraphQLInputType,
  type GraphQLSchema, type ASTNode,
} from 'graphql';
import { DomainError, type FieldError } from '../src/kernel/domain-error.ts';
import { tooDeepMessage, valueNestsDeeper } from '../src/kernel/json-depth.ts';
import { LIST_LIMITS, MAX_JSON_DEPTH, STRING_LIMITS, textLength, unstorableText, type ListKind, type StringKind } from '../src/kernel/limits.ts';
import { representationProblem } from './entity-keys.ts';

// Every String or ID argument and input field of the schema has a maximum length, and every list
// argument a maximum number of items (src/kernel/limits.ts). They are stated in the argument's description
// and checked once, before execution, over the operation's arguments as coerced from literals and
// variables alike; text PostgreSQL cannot store (NUL, lone surrogates) is refused in any string.

/** String kinds by argument or input-field name. Names ending in `Id`/`Ids` (and `ID` types) are ids. */
const STRING_KIND_BY_NAME: Record<string, StringKind> = {
  name: 'name', productName: 'name', variantName: 'name',
  displayName: 'person', reviewerName: 'person', authorName: 'person', actorDisplayName: 'person',
  sku: 'label', vendor: 'label', vendorFilter: 'label', unit: 'label', productType: 'label', productCategory: 'label',
  weightUnitId: 'label', savedBy: 'label',
  tags: 'tag',
  search: 'search', q: 'search',
  sortBy: 'sortKey',
  after: 'cursor', before: 'cursor',
  url: 'url', imageUrl: 'url',
  description: 'text', notes: 'text', specifications: 'text', note: 'text', body: 'text',
  dueDate: 'date',
  assignedTo: 'id', id: 'id', ids: 'id',
};

/** List kinds by argument or input-field name; `Type.field(.arg)` coordinates first. Anything else is `ids`. */
const LIST_KIND_BY_NAME: Record<string, ListKind> = {
  'Query.orderBomBreakdowns.ids': 'orderIds',
  'Mutation.addQcReview.items': 'qcReviewItems',
  tags: 'tags',
  updates: 'inventoryUpdates',
  items: 'items', manualMaterials: 'items',
  rawMaterialLines: 'recipeLines', subAssemblyLines: 'recipeLines', costFactorLines: 'recipeLines', overrides: 'recipeLines',
};

/** The string kind of an argument or input field, or undefined when the table misses it (a test keeps that from happening). */
export function stringKindOf(coordinate: string, name: string, type: GraphQLInputType): StringKind | undefined {
  const named = getNamedType(type).name;
  if (named !== 'String' && named !== 'ID') return undefined;
  if (Object.hasOwn(STRING_KIND_BY_NAME, coordinate)) return STRING_KIND_BY_NAME[coordinate];
  if (Object.hasOwn(STRING_KIND_BY_NAME, name)) return STRING_KIND_BY_NAME[name];
  if (/Ids?$/.test(name) || named === 'ID') return 'id';
  return undefined;
}

/** The list kind of an argument or input field whose type is a list. */
export function listKindOf(coordinate: string, name: string): ListKind {
  return LIST_KIND_BY_NAME[coordinate] ?? LIST_KIND_BY_NAME[name] ?? 'ids';
}

interface Limits { maxLength?: number; maxItems?: number }

/** Where a limit is kept: one lookup per argument or input field, made when the schema is built. */
const limitsOf = new WeakMap<GraphQLArgument | GraphQLInputField, Limits>();

function limitsFor(coordinate: string, input: GraphQLArgument | GraphQLInputField): Limits {
  const limits: Limits = {};
  const kind = stringKindOf(coordinate, input.name, input.type);
  // A String nobody classified still gets the free-text bound.
  if (kind) limits.maxLength = STRING_LIMITS[kind];
  else if (['String', 'ID'].includes(getNamedType(input.type).name)) limits.maxLength = STRING_LIMITS.text;
  if (isListType(getNullableType(input.type))) limits.maxItems = LIST_LIMITS[listKindOf(coordinate, input.name)];
  return limits;
}

function describeLimits(limits: Limits): string {
  const parts: string[] = [];
  if (limits.maxItems !== undefined) parts.push(`at most ${limits.maxItems} items`);
  if (limits.maxLength !== undefined) parts.push(`at most ${limits.maxLength.toLocaleString('en-US')} characters${limits.maxItems !== undefined ? ' each' : ''}`);
  return parts.length ? `Limits: ${parts.join(', ')}.` : '';
}

/** Every argument and input field of the schema with its coordinate (`Type.field.arg`, `Input.field`). */
export function* schemaInputs(schema: GraphQLSchema): Generator<{ coordinate: string; input: GraphQLArgument | GraphQLInputField }> {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) yield { coordinate: `${type.name}.${field.name}.${arg.name}`, input: arg };
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) yield { coordinate: `${type.name}.${field.name}`, input: field };
    }
  }
}

/**
 * Records the maximum of every argument and input field and appends it to its description, so the
 * SDL, introspection and GraphiQL show it. Called once when the schema is built.
 */
export function applyInputLimits(schema: GraphQLSchema): GraphQLSchema {
  for (const { coordinate, input } of schemaInputs(schema)) {
    const limits = limitsFor(coordinate, input);
    limitsOf.set(input, limits);
    const text = describeLimits(limits);
    if (text && !(input.description ?? '').includes(text)) input.description = input.description ? `${input.description} ${text}` : text;
  }
  return schema;
}

/** The limits recorded for an argument or input field (for tests and the checker). */
export function inputLimitsOf(input: GraphQLArgument | GraphQLInputField): Limits {
  return limitsOf.get(input) ?? {};
}

const MAX_REPORTED = 20;

/** The `input` argument of a mutation: an input object standing for the body of the REST write. */
function isBodyArgument(arg: GraphQLArgument): boolean {
  return arg.name === 'input' && isInputObjectType(getNullableType(arg.type));
}

function checkValue(value: unknown, type: GraphQLInputType, limits: Limits, path: string, errors: FieldError[]): void {
  if (value === null || value === undefined || errors.length >= MAX_REPORTED) return;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return;
    if (limits.maxItems !== undefined && value.length > limits.maxItems) {
      errors.push({ field: path, message: `must have at most ${limits.maxItems} items, got ${value.length}` });
      return;
    }
    value.forEach((item, i) => checkValue(item, nullable.ofType as GraphQLInputType, limits, `${path}[${i}]`, errors));
    return;
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object') return;
    for (const field of Object.values(nullable.getFields())) {
      checkValue((value as Record<string, unknown>)[field.name], field.type, inputLimitsOf(field), path ? `${path}.${field.name}` : field.name, errors);
    }
    return;
  }
  if (isScalarType(nullable)) checkLeaf(value, limits, path, errors);
}

/**
 * A scalar value: strings are checked for storability and length; custom scalars (`_Any`) are
 * measured for depth (MAX_JSON_DEPTH) and then walked for strings, with an explicit stack.
 */
function checkLeaf(value: unknown, limits: Limits, path: string, errors: FieldError[]): void {
  if (valueNestsDeeper(value, MAX_JSON_DEPTH)) {
    errors.push({ field: path, message: tooDeepMessage() });
    return;
  }
  const stack: { value: unknown; maxLength: number | undefined; path: string }[] = [{ value, maxLength: limits.maxLength, path }];
  while (stack.length > 0 && errors.length < MAX_REPORTED) {
    const { value: current, maxLength, path: at } = stack.pop()!;
    if (typeof current === 'string') {
      const unstorable = unstorableText(current);
      if (unstorable) errors.push({ field: at, message: unstorable });
      else if (maxLength !== undefined && textLength(current) > maxLength) {
        errors.push({ field: at, message: `must be at most ${maxLength} characters, got ${textLength(current)}` });
      }
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], maxLength: STRING_LIMITS.text, path: `${at}[${i}]` });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], maxLength: STRING_LIMITS.text, path: `${at}.${entries[i]![0]}` });
    }
  }
}

/** `_entities(representations:)`: each one an object naming a known entity with its key (schema/entity-keys.ts). */
function checkRepresentations(schema: GraphQLSchema, representations: unknown, errors: FieldError[]): void {
  if (!Array.isArray(representations)) return;
  // One error per representation: one already refused (too deep, a NUL in it) is not judged again.
  const refused = new Set(errors.map((e) => /^representations\[(\d+)\]/.exec(e.field)?.[1]).filter((i) => i !== undefined).map(Number));
  for (let i = 0; i < representations.length && errors.length < MAX_REPORTED; i++) {
    if (refused.has(i)) continue;
    const problem = representationProblem(schema, representations[i]);
    if (problem) errors.push({ field: `representations[${i}]`, message: problem });
  }
}

/** The fragments an operation uses, directly or through other fragments. */
function fragmentsUsedBy(document: DocumentNode, root: ASTNode): FragmentDefinitionNode[] {
  const byName = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) byName.set(d.name.value, d);
  const seen = new Map<string, FragmentDefinitionNode>();
  const queue: ASTNode[] = [root];
  while (queue.length > 0) {
    visit(queue.pop()!, {
      FragmentSpread(node) {
        const fragment = byName.get(node.name.value);
        if (fragment && !seen.has(node.name.value)) {
          seen.set(node.name.value, fragment);
          queue.push(fragment);
        }
      },
    });
  }
  return [...seen.values()];
}

/**
 * Checks every argument of the operation about to run, as coerced from literals and variables:
 * a string over its maximum or holding NUL / a lone surrogate, or a list over its maximum, is
 * INVALID_INPUT naming the argument (`updates[0].note`, `input.productName`) before anything runs;
 * so are variables or argument values nested deeper than MAX_JSON_DEPTH, and an `_entities`
 * representation the federation resolver cannot use (`representations[2]`).
 * Variables that do not coerce are left to execution, which reports them as it always has.
 */
export function checkOperationInput(schema: GraphQLSchema, document: DocumentNode, rawVariables: Record<string, unknown> | null | undefined, operationName?: string | null): void {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return;
  // Before anything walks them: variables of a GET (a POST body was measured by its parser, src/http/requests/json-body.ts).
  if (valueNestsDeeper(rawVariables, MAX_JSON_DEPTH)) throw DomainError.invalidFields([{ field: 'variables', message: tooDeepMessage() }]);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {}, { maxErrors: 1 });
  if ('errors' in coerced && coerced.errors) return;
  const variables = coerced.coerced ?? {};
  const errors: FieldError[] = [];
  for (const root of [operation, ...fragmentsUsedBy(document, operation)]) {
    const typeInfo = new TypeInfo(schema);
    visit(root, visitWithTypeInfo(typeInfo, {
      Field(node) {
        const field = typeInfo.getFieldDef();
        if (!field || field.args.length === 0 || !node.arguments?.length) return;
        let values: Record<string, unknown>;
        try {
          values = getArgumentValues(field, node, variables);
        } catch {
          return; // execution reports an argument that does not coerce
        }
        // The fields of an `input` object are named as the mutation's own rules (and REST's body) name them: `tags`, not `input.tags`.
        for (const arg of field.args) checkValue(values[arg.name], arg.type, inputLimitsOf(arg), isBodyArgument(arg) ? '' : arg.name, errors);
        if (field.name === '_entities' && typeInfo.getParentType() === schema.getQueryType()) checkRepresentations(schema, values.representations, errors);
      },
    }));
    if (errors.length >= MAX_REPORTED) break;
  }
  if (errors.length > 0) {
    throw DomainError.invalidFields(errors);
  }
}
