import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { getSchema } from '../schema/index.ts';

/**
 * The values of a GraphQL enum. Vocabularies have one home in the domain; the facade learns them
 * through the schema (it imports no domain module), so the REST and GraphQL value sets cannot drift.
 */
export function graphqlEnumValues(name: string): string[] {
  const type = getSchema().getType(name);
  if (!(type instanceof GraphQLEnumType)) throw new Error(`${name} is not a GraphQL enum`);
  return type.getValues().map((v) => v.name);
}

/**
 * The description of argument `arg` of the query field `field`, without its closing full stop: a
 * text the schema builds from a vocabulary (a list's sort keys, the default marked), which a route
 * repeats in its own words around it.
 */
export function graphqlArgText(field: string, arg: string): string {
  const description = getSchema().getQueryType()?.getFields()[field]?.args.find((a) => a.name === arg)?.description;
  if (!description) throw new Error(`graphqlArgText: ${field}(${arg}:) has no description`);
  return description.replace(/[.]$/, '');
}

/** The field names of a GraphQL object type (a set the schema builds from a vocabulary, learnt the same way). */
export function graphqlFieldNames(name: string): string[] {
  const type = getSchema().getType(name);
  if (!(type instanceof GraphQLObjectType)) throw new Error(`${name} is not a GraphQL object type`);
  return Object.keys(type.getFields());
}

/**
 * A JSON-schema union of the enum's values; `nullable` adds null to the union (responses only: a
 * query-string parameter is never null).
 */
export function EnumOf(name: string, options: { description?: string; default?: string; nullable?: boolean } = {}): TUnsafe<string> {
  const { nullable, ...rest } = options;
  const values: TSchema[] = graphqlEnumValues(name).map((v) => Type.Literal(v));
  return Type.Unsafe<string>(Type.Union(nullable ? [...values, Type.Null()] : values, rest));
}

/**
 * A REST query-string schema whose defaults are the GraphQL arguments' own (`defaultValue` of the
 * root field `field`): each property named like an argument with a default takes it, so the REST
 * contract states the default GraphQL applies and the value is written once, in the schema. A
 * property that writes its own `default` for such an argument is refused at start-up.
 */
export function withArgDefaults<T extends TSchema & { properties: Record<string, TSchema> }>(field: string, querystring: T): T {
  const root = getSchema().getQueryType()?.getFields()[field];
  if (!root) throw new Error(`withArgDefaults: no query field ${field}`);
  for (const arg of root.args) {
    const property = querystring.properties[arg.name];
    if (!property || arg.defaultValue === undefined) continue;
    if (property.default !== undefined) throw new Error(`${field}(${arg.name}:): the default is the GraphQL argument's (${String(arg.defaultValue)}); do not restate it`);
    property.default = arg.defaultValue;
  }
  return querystring;
}
