import { printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLObjectType, GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
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
  if (built) return built;
  // Every argument states and enforces its maximum (src/limits.ts, schema/input-limits.ts).
  const schema = applyInputLimits(builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' }));
  // The federation plugin prints `_service { sdl }` before the limits join the argument
  // descriptions: serve the SDL of the finished schema, the one schema/subgraph.graphql holds.
  const sdl = printSubgraphSchema(schema);
  const service = schema.getQueryType()?.getFields()._service;
  if (service) service.resolve = () => ({ sdl });
  built = schema;
  return built;
}

/** What only a federation gateway uses: the `_entities`/`_service` root fields and their types. */
const FEDERATION_FIELDS = new Set(['_entities', '_service']);
const FEDERATION_TYPES = new Set(['_Any', '_Entity', '_Service']);

/** The schema clients see and generate code from: the executable schema without federation internals. */
export function clientSchema(): GraphQLSchema {
  const config = getSchema().toConfig();
  const query = config.query;
  const clientQuery = query && new GraphQLObjectType({
    ...query.toConfig(),
    fields: () => Object.fromEntries(Object.entries(query.toConfig().fields).filter(([name]) => !FEDERATION_FIELDS.has(name))),
  });
  return new GraphQLSchema({
    ...config,
    query: clientQuery,
    types: config.types.filter((type) => !FEDERATION_TYPES.has(type.name) && type !== query),
  });
}

/** The client SDL committed as `schema/schema.graphql` (sorted, so diffs show real changes only). */
export function printSchemaSdl(): string {
  return printSchema(lexicographicSortSchema(clientSchema())) + '\n';
}

/** The subgraph SDL committed as `schema/subgraph.graphql`: what `_service { sdl }` serves a gateway. */
export function printSubgraphSdl(): string {
  return printSubgraphSchema(getSchema()) + '\n';
}
