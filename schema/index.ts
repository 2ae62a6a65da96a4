import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './types/location.ts';
import './types/assignee.ts';
import './types/materials/index.ts';
import './types/boms/index.ts';
import './types/orders/breakdown.ts';
import './types/orders/material-requirements.ts';
import './types/work-orders/index.ts';

let built: GraphQLSchema | undefined;

/** The executable schema: an Apollo Federation 2 subgraph. Built once per process. */
export function getSchema(): GraphQLSchema {
  built ??= builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' });
  return built;
}

/** The SDL committed as `schema/schema.graphql` (sorted, so diffs show real changes only). */
export function printSchemaSdl(): string {
  return printSchema(lexicographicSortSchema(getSchema())) + '\n';
}
