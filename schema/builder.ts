import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { AuthFailure } from '@pothos/plugin-scope-auth';
import { DomainError } from '../src/kernel/domain-error.ts';
import { complexityLimitOf, fieldCost, tooComplex } from '../src/kernel/graphql-limits.ts';
import type { GraphQLContext } from './context.ts';

interface BuilderTypes {
  Context: GraphQLContext;
  AuthScopes: { read: boolean; write: boolean };
  Scalars: {
    Decimal: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: string; Output: string };
  };
  DefaultFieldNullability: false;
}

/** The schema's Pothos types, for helpers that take a field builder or a ref (schema/types/common/payload.ts). */
export type SchemaTypes = PothosSchemaTypes.ExtendDefaultTypes<BuilderTypes>;

/** The scopes an authorization failure asked for (`write`, or `read`), however the field combined them. */
function missingScopes(failure: AuthFailure): string[] {
  if ('scope' in failure) return [failure.scope];
  if ('failures' in failure) return [...new Set(failure.failures.flatMap(missingScopes))];
  return [];
}

/** The one schema builder. It defines no types: each lives in its folder, `schema/types/<type>/`. */
export const builder = new SchemaBuilder<BuilderTypes>({
  plugins: [ScopeAuthPlugin, DataloaderPlugin, ComplexityPlugin, DirectivePlugin, FederationPlugin],
  defaultFieldNullability: false,
  // A missing scope is a GraphQL error; a mutation's business failures are its payload's `userErrors`
  // (schema/types/common/payload.ts).
  scopeAuth: {
    authScopes: (ctx) => ({ read: ctx.scopes.includes('read'), write: ctx.scopes.includes('write') }),
    // The message names the scope, as REST's 403 does (`this route needs the "write" scope`).
    unauthorizedError: (_parent, _ctx, info, result) => {
      const scopes = missingScopes(result.failure);
      const named = scopes.length ? scopes.map((scope) => `"${scope}"`).join(' or ') : 'a';
      return new DomainError('FORBIDDEN_SCOPE', `${info.parentType.name}.${info.fieldName} needs the ${named} scope, which the API key lacks`);
    },
  },
  // Complexity is checked as a /graphql operation starts, with its real arguments and variables (a
  // field may price itself by its page size); REST's stored operations carry no limit. Depth and
  // aliases are validation rules of /graphql (src/kernel/graphql-limits.ts), refused before execution.
  // A field's cost counts the rows its arguments ask for (page sizes, id lists): see fieldCost.
  complexity: {
    fieldComplexity: (args, _ctx, field) => fieldCost(args, field as never),
    limit: (ctx) => {
      const complexity = complexityLimitOf(ctx);
      return complexity === undefined ? {} : { complexity };
    },
    complexityError: (_kind, result) => tooComplex(result.complexity, result.maxComplexity ?? 0),
  },
});

builder.queryType({});
// The mutation type is added by the first type file that defines a mutation (builder.mutationType).

/**
 * An enum's values with their descriptions, from a vocabulary's table of code → description
 * (`builder.enumType(name, { values: describedValues(TABLE) })`): the values stay the table's keys.
 */
export function describedValues<K extends string>(descriptions: Readonly<Record<K, string>>): Record<K, { description: string }> {
  return Object.fromEntries(Object.entries<string>(descriptions).map(([value, description]) => [value, { description }])) as Record<K, { description: string }>;
}

/** A value set as descriptions write it: `a (default) | b | c` (the first value marked when `markDefault`). */
export function valueList(values: readonly string[], markDefault = false): string {
  return values.map((v, i) => (markDefault && i === 0 ? `${v} (default)` : v)).join(' | ');
}
