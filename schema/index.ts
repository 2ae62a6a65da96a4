import { printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLObjectType, GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import { applyInputLimits } from './input-limits.ts';
import './scalars.ts';
// The schema's types live by feature under schema/types/<feature>/ (locations, people, materials,
// stock, boms, orders, work-orders, events; common/ holds what several use: connections, link fields,
// mutation payloads), the same names as rest-facade/routes/<feature>, src/modules/<feature> and test/<feature>.
// Each folder holds the type's reads, links, connections and writes. They register in phases, in
// this order: the types, then the fields linking them, then connections and the graph, then writes.
import './types/locations/location.ts';
import './types/people/assignee.ts';
import './types/materials/enums.ts';
import './types/stock/enums.ts';
import './types/materials/raw-material.ts';
import './types/stock/inventory.ts';
import './types/stock/stock.ts';
import './types/stock/allocation.ts';
import './types/boms/enums.ts';
import './types/boms/recipe-lines.ts';
import './types/boms/bom.ts';
import './types/boms/buildable.ts';
import './types/boms/location-rules.ts';
import './types/boms/bill-version.ts';
import './types/orders/breakdown.ts';
import './types/orders/material-requirements.ts';
import './types/work-orders/enums.ts';
import './types/work-orders/work-order.ts';
import './types/work-orders/operations.ts';
import './types/planning/enums.ts';
import './types/planning/plan.ts';
import './types/planning/what-if.ts';
import './types/events/webhook-enums.ts';
import './types/events/webhook-endpoint.ts';
// Fields that link types to each other (through the per-request loaders of schema/loaders.ts).
import './types/boms/recipe-links.ts';
import './types/stock/level-links.ts';
import './types/orders/links.ts';
import './types/boms/bill-links.ts';
import './types/locations/links.ts';
import './types/materials/links.ts';
import './types/planning/where-used.ts';
import './types/work-orders/part-links.ts';
import './types/work-orders/header-links.ts';
// Cursor connections and the parts of the navigable graph.
import './types/materials/connection.ts';
import './types/boms/connection.ts';
import './types/work-orders/connection.ts';
import './types/stock/adjustments.ts';
import './types/boms/graph.ts';
import './types/work-orders/graph.ts';
import './types/boms/work-orders.ts';
// The write surface. The catalogue: virtual materials, cost factors, assembly bills, BOMs and location rules.
import './types/boms/write-inputs.ts';
import './types/materials/writes.ts';
import './types/boms/cost-factor-writes.ts';
import './types/boms/bill-writes.ts';
import './types/boms/location-rule-writes.ts';
import './types/boms/archived.ts';
// Stock counted by hand: pre-assembled shelves.
import './types/stock/shelf-writes.ts';
// The work-order and people write surface: creating work orders, their records (QC reviews,
// rework items, documents, conversation) and assignees.
import './types/work-orders/write-results.ts';
import './types/work-orders/create.ts';
import './types/work-orders/record-writes.ts';
import './types/people/writes.ts';
// Webhook endpoints of the shop (docs/events.md).
import './types/events/webhook-writes.ts';
// Live subscriptions of the shop's events (graphql-ws on /graphql).
import './types/events/live.ts';
// Federation 2 entities last: they reference every type above.
import './federation.ts';

let built: GraphQLSchema | undefined;

/** The executable schema: an Apollo Federation 2 subgraph. Built once per process. */
export function getSchema(): GraphQLSchema {
  if (built) return built;
  // Every argument states and enforces its maximum (src/kernel/limits.ts, schema/input-limits.ts).
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
