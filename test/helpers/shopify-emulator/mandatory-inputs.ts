import {
  isInputObjectType, isListType, isNonNullType, Kind, TypeInfo, visit, visitWithTypeInfo,
  type DocumentNode, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode, type ValueNode,
} from 'graphql';

// Input fields Shopify refuses to go without although the schema types them nullable: since
// 2026-04 `changeFromQuantity` of InventoryChangeInput / InventoryQuantityInput "is mandatory: you
// must explicitly pass in a value, even if that value is `null`, or the mutation returns an error"
// (https://shopify.dev/docs/api/admin-graphql/2026-07/input-objects/InventoryChangeInput,
// https://shopify.dev/changelog/posts/compare-and-swap-for-inventory-mutations-with-change-from-quantity).
// GraphQL validation cannot see the rule (an omitted nullable field is valid), so the emulator reads
// it from the published schema's descriptions and refuses every request that leaves such a field
// out, whichever operation it is: a new operation of bomcore's is held to it without a new rule.

/**
 * What makes a description a mandate: "mandatory", "you must explicitly pass", or a description
 * that is "Required." alone. A "required when…" / "required for…" is a condition of another field's
 * value, not a mandate on every call, and is left to the resolvers that enforce it.
 */
const MANDATE = /\bmandatory\b|\bmust explicitly pass\b|^\s*(?:this field is )?required\.?\s*$/i;

const cache = new WeakMap<GraphQLSchema, ReadonlyMap<string, ReadonlyMap<string, string>>>();

/** Every input field the schema's descriptions make mandatory: type → field → its description. */
export function mandatoryInputFields(schema: GraphQLSchema): ReadonlyMap<string, ReadonlyMap<string, string>> {
  let found = cache.get(schema);
  if (found) return found;
  const byType = new Map<string, Map<string, string>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      // A non-null field is GraphQL's own business (validation refuses it missing).
      if (isNonNullType(field.type) || !field.description || !MANDATE.test(field.description)) continue;
      if (!byType.has(type.name)) byType.set(type.name, new Map());
      byType.get(type.name)!.set(field.name, field.description);
    }
  }
  found = byType;
  cache.set(schema, found);
  return found;
}

export interface MissingInput { path: string; type: string; field: string; description: string }

/**
 * The mandatory input fields the operation leaves out, in its argument literals and in the values
 * of its variables, each with where it is missing (`inventoryAdjustQuantities.input.changes[0]`).
 */
export function missingMandatoryInputs(
  schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>,
): MissingInput[] {
  const mandatory = mandatoryInputFields(schema);
  const missing: MissingInput[] = [];
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  const typeInfo = new TypeInfo(schema);
  const fieldStack: string[] = [];

  const checkValue = (type: GraphQLInputType, value: unknown, path: string): void => {
    if (value === null || value === undefined) return;
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) {
      if (Array.isArray(value)) value.forEach((item, i) => checkValue(inner.ofType, item, `${path}[${i}]`));
      else checkValue(inner.ofType, value, path); // a single value where a list is expected is coerced to one item
      return;
    }
    if (!isInputObjectType(inner) || typeof value !== 'object') return;
    const object = value as Record<string, unknown>;
    for (const [field, description] of mandatory.get(inner.name) ?? []) {
      if (!Object.hasOwn(object, field)) missing.push({ path, type: inner.name, field, description });
    }
    for (const [name, field] of Object.entries(inner.getFields())) {
      if (Object.hasOwn(object, name)) checkValue(field.type, object[name], `${path}.${name}`);
    }
  };

  /** A literal with its variables resolved, as the server would see it: absent fields stay absent. */
  const literal = (node: ValueNode): unknown => {
    switch (node.kind) {
      case Kind.VARIABLE: return Object.hasOwn(variables, node.name.value) ? variables[node.name.value] : undefined;
      case Kind.NULL: return null;
      case Kind.LIST: return node.values.map(literal);
      case Kind.OBJECT: return Object.fromEntries(node.fields.map((f) => [f.name.value, literal(f.value)]));
      default: return (node as { value?: unknown }).value;
    }
  };

  visit({ kind: Kind.DOCUMENT, definitions: [operation, ...fragments] }, visitWithTypeInfo(typeInfo, {
    Field: {
      enter: (node) => { fieldStack.push(node.alias?.value ?? node.name.value); },
      leave: () => { fieldStack.pop(); },
    },
    Argument: (node) => {
      const argument = typeInfo.getArgument();
      if (!argument) return;
      const value = literal(node.value);
      if (value !== undefined) checkValue(argument.type, value, `${fieldStack.join('.')}.${node.name.value}`);
    },
  }));
  return missing;
}

/** The error Shopify answers for a mandatory field left out, with what the schema says of it. */
export function missingInputMessage(missing: MissingInput): string {
  const first = missing.description.split(/\n\n/).find((p) => MANDATE.test(p)) ?? missing.description;
  return `${missing.type}.${missing.field} must be given at ${missing.path}: ${first.replace(/\s+/g, ' ').trim()}`;
}
