import { Type, type TUnsafe } from '@sinclair/typebox';
import { GraphQLEnumType } from 'graphql';
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

/** A JSON-schema union of the enum's values. */
export function EnumOf(name: string, options: { description?: string; default?: string } = {}): TUnsafe<string> {
  return Type.Unsafe<string>(Type.Union(graphqlEnumValues(name).map((v) => Type.Literal(v)), options));
}
