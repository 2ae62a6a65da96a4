import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLFieldResolver, type GraphQLTypeResolver } from 'graphql';
import { bulkOperationRunQuery } from './bulk.ts';
import type { EmulatorContext } from './context.ts';
import { inventoryAdjustQuantities } from './resolvers/inventory-mutations.ts';
import { inventorySetQuantities } from './resolvers/inventory-set.ts';
import { objectResolvers } from './resolvers/objects.ts';
import { metafieldsSet, webhookSubscriptionCreate, webhookSubscriptionDelete } from './resolvers/other-mutations.ts';
import { queryResolvers } from './resolvers/query.ts';
import type { Resolvers } from './resolvers/types.ts';

/** Every resolver the emulator has, by type then field: the subset of the Admin API bomcore uses. */
export const RESOLVERS: Resolvers = {
  ...queryResolvers,
  ...objectResolvers,
  Mutation: { inventoryAdjustQuantities, inventorySetQuantities, metafieldsSet, webhookSubscriptionCreate, webhookSubscriptionDelete, bulkOperationRunQuery },
};

/**
 * A type with a resolver map serves only the fields it names; any other field of it is an error
 * that names it, so a test fails loudly rather than reading null. Types without a map (payloads,
 * connections, MoneyV2, user errors) are plain objects the resolvers built: their own properties
 * answer, a missing one is the same error.
 */
const fieldResolver: GraphQLFieldResolver<any, EmulatorContext> = (source, args, ctx, info) => {
  const typeName = info.parentType.name;
  const map = RESOLVERS[typeName];
  const resolve = map?.[info.fieldName];
  if (resolve) return resolve(source, args, ctx, info);
  if (!map && source !== null && typeof source === 'object' && Object.hasOwn(source, info.fieldName)) return source[info.fieldName];
  if (info.fieldName === '__typename') return typeName;
  throw new GraphQLError(`emulator: ${typeName}.${info.fieldName} not implemented`, { extensions: { code: 'EMULATOR_NOT_IMPLEMENTED' } });
};

/** Interfaces and unions (Node, Media, DisplayableError, …) resolve by the record's `__typename`. */
const typeResolver: GraphQLTypeResolver<any, EmulatorContext> = (value, _ctx, info, abstractType) => {
  const name = value?.__typename;
  if (typeof name !== 'string') throw new GraphQLError(`emulator: cannot tell the ${abstractType.name} of a value at ${info.fieldName}`);
  return name;
};

export async function executeDocument(ctx: EmulatorContext, document: DocumentNode, variableValues: Record<string, unknown>, operationName?: string): Promise<ExecutionResult> {
  return execute({ schema: ctx.shop.schema, document, rootValue: {}, contextValue: ctx, variableValues, operationName, fieldResolver, typeResolver });
}
