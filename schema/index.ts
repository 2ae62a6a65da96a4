import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import { applyInputLimits } from './input-limits.ts';
import './scalars.ts';
import './types/location.ts';
import './types/assignee.ts';
import './types/materials/index.ts';
import './types/boms/index.ts';
import './types/orders/breakdown.ts';
import './types/orders/material-requirements.ts';
import './types/work-orders/index.ts';
// Fields that link types to each other (through the per-request loaders of schema/loaders.ts).
import './types/links/index.ts';
// Cursor connections and the parts of the navigable graph.
import './types/graph/index.ts';
// The write surface: catalogue (materials, cost factors, bills, BOMs, location rules) and work orders.
import './types/writes/catalog/index.ts';
import './types/writes/work-orders/index.ts';
// Federation 2 entities last: they reference every type above.
import './federation.ts';

let built: GraphQLSchema | undefined;

/** The executable schema: an Apollo Federation 2 subgraph. Built once per process. */
export function getSchema(): GraphQLSchema {
  // Every argument states and enforces its maximum (src/limits.ts, schema/input-limits.ts).
  built ??= applyInputLimits(builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' }));
  return built;
}

/** The SDL committed as `schema/schema.graphql` (sorted, so diffs show real changes only). */
export function printSchemaSdl(): string {
  return printSchema(lexicographicSortSchema(getSchema())) + '\n';
}
