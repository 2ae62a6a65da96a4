import { OptionalKind, type TSchema } from '@sinclair/typebox';
import {
  getNamedType, GraphQLEnumType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType, isInterfaceType, isObjectType, Kind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLOutputType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import type { FacadeRoute } from './define-route.ts';
import type { DataOverride, DataOverrides, Json } from './data-overrides.ts';

/**
 * A REST response field is declared once: in the Pothos schema (its type, nullability, description)
 * and selected once in the route's stored operation. This file derives a route's `data` JSON schema
 * from the two; the converter (derive-data.ts), Fastify's serializer and the OpenAPI document all read
 * that derived schema. GraphQL → JSON schema:
 *
 * - non-null → required; nullable → `null` allowed (`type: [T, 'null']` for scalars, `anyOf: [T, null]`
 *   for objects, enums gain a null member); a field under `@include`/`@skip` is optional instead;
 * - String/ID → string, Int → integer, Float and Decimal → number (the converter turns the exact decimal
 *   string into a number), Boolean → boolean, DateTime → string `format: date-time`;
 * - an enum → the union of its values (as `EnumOf`), a list → an array, an object → its selected fields
 *   in selection order, `additionalProperties: false`;
 * - descriptions are the GraphQL fields' (else the object type's);
 * - a mutation's payload stands for its one result field (rest-facade/payloads.ts).
 *
 * What a route says beyond the two is its `dataOverrides` (rest-facade/data-overrides.ts).
 */

const OVERRIDE_KEYS = new Set(['optional', 'nullable', 'nullAs', 'omit', 'add', 'to']);
/** Keywords of the position itself; every other keyword goes to the value inside (a list's item, a nullable object's object). */
const OUTER_KEYWORDS = new Set(['description', 'maxItems', 'minItems']);

interface Selected { key: string; field: GraphQLField<unknown, unknown>; node: FieldNode; conditional: boolean; selections: SelectionSetNode[] }

export interface DeriveOptions {
  /** The root field (response key) holding `data`; `null`: the whole result (every root field). Default: the only root field. */
  dataField?: string | null;
  overrides?: DataOverrides;
  /** For messages: the route. */
  name?: string;
}

/** The JSON schema of a route's `data`, derived from its stored operation and the GraphQL schema. */
export function deriveDataSchema(schema: GraphQLSchema, document: DocumentNode, options: DeriveOptions = {}): TSchema {
  const name = options.name ?? 'data';
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`${name}: the document has no operation`);
  const fragments = new Map(document.definitions
    .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
    .map((d) => [d.name.value, d]));
  const rootType = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!rootType) throw new Error(`${name}: the schema has no ${operation.operation} type`);
  const overrides = options.overrides ?? {};
  const used = new Set<string>();
  const walker = new Walker(fragments, overrides, used, name, operation.operation === 'mutation');

  const roots = walker.fields(rootType, [operation.selectionSet]);
  let data: Json;
  if (options.dataField === null) {
    data = walker.object(roots, '', undefined, true);
  } else {
    const key = options.dataField ?? (roots.length === 1 ? roots[0]!.key : undefined);
    const root = roots.find((r) => r.key === key);
    if (!root) throw new Error(`${name}: name a dataField among the root fields (${roots.map((r) => r.key).join(', ')})`);
    data = walker.position(root, '', true);
  }
  const unused = Object.keys(overrides).filter((path) => !used.has(path));
  if (unused.length) throw new Error(`${name}: dataOverrides name no field of the derived data: ${unused.join(', ')}`);
  return data as TSchema;
}

/** A route's `data` schema: its operation's selection, its `dataField` and its `dataOverrides`. */
export function routeDataSchema(schema: GraphQLSchema, route: Pick<FacadeRoute, 'method' | 'url' | 'dataField' | 'dataOverrides'>, document: DocumentNode): TSchema {
  return deriveDataSchema(schema, document, { dataField: route.dataField, overrides: route.dataOverrides, name: `${route.method} ${route.url} data` });
}

class Walker {
  private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  private readonly overrides: DataOverrides;
  private readonly used: Set<string>;
  private readonly name: string;
  private readonly mutation: boolean;

  constructor(fragments: ReadonlyMap<string, FragmentDefinitionNode>, overrides: DataOverrides, used: Set<string>, name: string, mutation: boolean) {
    this.fragments = fragments;
    this.overrides = overrides;
    this.used = used;
    this.name = name;
    this.mutation = mutation;
  }

  /** The fields a set of selection sets selects on `type`, fragments inlined, in order (one entry per response key). */
  fields(type: GraphQLObjectType | { getFields(): Record<string, GraphQLField<unknown, unknown>>; name: string }, sets: readonly SelectionSetNode[], conditional = false): Selected[] {
    const out = new Map<string, Selected>();
    const visit = (set: SelectionSetNode, underCondition: boolean) => {
      for (const selection of set.selections) {
        const skippable = underCondition || (selection.directives ?? []).some((d) => d.name.value === 'include' || d.name.value === 'skip');
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value === '__typename') continue;
          const key = selection.alias?.value ?? selection.name.value;
          const field = type.getFields()[selection.name.value];
          if (!field) throw new Error(`${this.name}: ${type.name} has no field ${selection.name.value}`);
          const existing = out.get(key);
          if (existing) {
            if (selection.selectionSet) existing.selections.push(selection.selectionSet);
            existing.conditional &&= skippable;
          } else {
            out.set(key, { key, field, node: selection, conditional: skippable, selections: selection.selectionSet ? [selection.selectionSet] : [] });
          }
        } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const fragment = this.fragments.get(selection.name.value);
          if (!fragment) throw new Error(`${this.name}: unknown fragment ${selection.name.value}`);
          visit(fragment.selectionSet, skippable);
        } else {
          visit(selection.selectionSet, skippable);
        }
      }
    };
    for (const set of sets) visit(set, conditional);
    return [...out.values()];
  }

  /** The schema of one selected field at `path`; `root`: a root field of the operation (always sent as `data` or in it). */
  position(selected: Selected, path: string, root = false): Json {
    const forceRequired = root;
    const override = this.take(path);
    let type: GraphQLOutputType = selected.field.type;
    let selections = selected.selections;
    // A mutation payload stands for its result: its userErrors were already turned into the problem.
    const payload = getNamedType(type);
    if (root && this.mutation && isObjectType(payload) && payload.getFields().userErrors) {
      const inner = this.fields(payload, selections).filter((f) => f.key !== 'userErrors');
      if (inner.length === 1) {
        type = new GraphQLNonNull(inner[0]!.field.type as never);
        selections = inner[0]!.selections;
        selected = { ...inner[0]!, key: selected.key };
      }
    }
    const nonNull = type instanceof GraphQLNonNull || forceRequired;
    const bare = type instanceof GraphQLNonNull ? type.ofType : type;
    const nullAs = override?.nullAs ?? this.nullAs(path);
    let schema = this.typeSchema(bare, selections, path, nullAs);
    const optional = override?.optional ?? (selected.conditional && !forceRequired);
    const nullable = override?.nullable ?? (!nonNull && !optional);
    if (nullable) schema = withNull(schema, nullAs);
    // The field's description, at the position: an object (which may be a named component, read through
    // several fields) keeps its type's; a list or a nullable object carries it on the array or the union.
    const description = selected.field.description ?? undefined;
    if (description !== undefined && schema.type !== 'object') schema = { ...schema, description };
    return this.apply(schema, override, path, optional);
  }

  private typeSchema(type: GraphQLOutputType, selections: SelectionSetNode[], path: string, nullAs: 'anyOf' | undefined): Json {
    if (type instanceof GraphQLNonNull) return this.typeSchema(type.ofType, selections, path, nullAs);
    if (type instanceof GraphQLList) {
      // List items are transparent in paths; a nullable item admits null.
      const item = type.ofType instanceof GraphQLNonNull
        ? this.typeSchema(type.ofType.ofType, selections, path, nullAs)
        : withNull(this.typeSchema(type.ofType, selections, path, nullAs), nullAs);
      return { type: 'array', items: item };
    }
    if (type instanceof GraphQLEnumType) {
      // As EnumOf writes it: a union of literals, one literal alone when the enum has one value.
      const values = type.getValues().map((v) => ({ const: v.name, type: 'string' }));
      return values.length === 1 ? values[0]! : { anyOf: values };
    }
    if (type instanceof GraphQLScalarType) return scalar(type.name, this.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      const fields = this.fields(type, selections);
      return this.object(fields, path, type.description ?? undefined);
    }
    throw new Error(`${this.name}: ${path || 'data'} is a ${String(type)}: unions are not derived`);
  }

  object(fields: Selected[], path: string, description: string | undefined, roots = false): Json {
    const properties: Json = {};
    const required: string[] = [];
    for (const f of fields) {
      const childPath = path ? `${path}.${f.key}` : f.key;
      const child = this.position(f, childPath, roots);
      if ((child as Flagged)[OPTIONAL] !== true) required.push(f.key);
      delete (child as Flagged)[OPTIONAL];
      properties[f.key] = child;
    }
    return {
      additionalProperties: false,
      ...(description ? { description } : {}),
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
    };
  }

  private take(path: string): DataOverride | undefined {
    const override = this.overrides[path];
    if (override) this.used.add(path);
    return override;
  }

  /** The nearest enclosing `nullAs`. */
  private nullAs(path: string): 'anyOf' | undefined {
    for (let p = path; p !== ''; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
      const value = this.overrides[p]?.nullAs;
      if (value) return value;
    }
    return this.overrides['']?.nullAs;
  }

  private apply(schema: Json, override: DataOverride | undefined, path: string, optional: boolean): Json {
    let out = schema;
    if (override) {
      const target = (keyword: string) => (OUTER_KEYWORDS.has(keyword) ? out : innermost(out));
      if (override.omit || override.add) {
        const object = objectOf(out);
        if (!object) throw new Error(`${this.name}: ${path || 'data'} is not an object (omit/add)`);
        for (const key of override.omit ?? []) {
          if (!(key in object.properties)) throw new Error(`${this.name}: ${path || 'data'} has no ${key} to omit`);
          delete object.properties[key];
          object.required = (object.required ?? []).filter((k: string) => k !== key);
        }
        for (const [key, value] of Object.entries(override.add ?? {})) {
          const isOptional = (value as { [OptionalKind]?: string })[OptionalKind] === 'Optional';
          object.properties[key] = JSON.parse(JSON.stringify(value));
          if (!isOptional) object.required = [...(object.required ?? []), key];
        }
        if (object.required?.length === 0) delete object.required;
      }
      for (const [keyword, value] of Object.entries(override)) {
        if (OVERRIDE_KEYS.has(keyword)) continue;
        const at = target(keyword);
        if (value === undefined) delete at[keyword];
        else at[keyword] = value;
      }
      if (override.to) out = override.to(out);
    }
    if (optional) out = { ...out, [OPTIONAL]: true } as Flagged;
    return out;
  }
}

const OPTIONAL = Symbol('optional');
type Flagged = Json & { [OPTIONAL]?: true };

/** The value a position holds: through list items and the object of a nullable object. */
function innermost(schema: Json): Json {
  if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type[0] === 'array')) return innermost(schema.items);
  if (schema.anyOf?.length === 2 && schema.anyOf[1].type === 'null' && !('const' in schema.anyOf[0])) return innermost(schema.anyOf[0]);
  return schema;
}

function objectOf(schema: Json): Json | undefined {
  if (schema.type === 'object') return schema;
  if (schema.type === 'array') return objectOf(schema.items);
  if (schema.anyOf) return schema.anyOf.map(objectOf).find(Boolean);
  return undefined;
}

function scalar(name: string, route: string): Json {
  switch (name) {
    case 'String': case 'ID': return { type: 'string' };
    case 'Int': return { type: 'integer' };
    case 'Float': case 'Decimal': return { type: 'number' };
    case 'Boolean': return { type: 'boolean' };
    case 'DateTime': return { type: 'string', format: 'date-time' };
    default: throw new Error(`${route}: no JSON schema for the scalar ${name}`);
  }
}

/** The schema admitting null too. */
function withNull(schema: Json, nullAs: 'anyOf' | undefined): Json {
  if ('const' in schema) return { anyOf: [schema, { type: 'null' }] };
  if (schema.anyOf) {
    // An enum (a union of literals) gains a null member, as EnumOf(…, { nullable: true }) writes it.
    return schema.anyOf.every((m: Json) => 'const' in m) ? { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] } : schema;
  }
  if (schema.type === 'object' || nullAs === 'anyOf') {
    const { description, ...inner } = schema;
    return { ...(description !== undefined ? { description } : {}), anyOf: [inner, { type: 'null' }] };
  }
  return { ...schema, type: [schema.type, 'null'] };
}
