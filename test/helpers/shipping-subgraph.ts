import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse, type GraphQLSchema } from 'graphql';

/**
 * A second subgraph for the federation test only: a shipping service of the same shop. It extends
 * this service's `Order` and `Location` entities with fields of its own (tracking numbers, dock
 * doors), declares the platform-owned `name` of both as shareable, and has its own root field, so
 * a query can start in either subgraph and fetch the other's fields through `_entities`.
 */
export const shippingTypeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])

  type Query {
    "Shipments waiting at the docks."
    shipments: [Shipment!]!
  }

  "A parcel leaving a location for an order."
  type Shipment {
    shipmentId: ID!
    carrier: String!
    order: Order!
    from: Location!
  }

  type Order @key(fields: "orderId") {
    orderId: String!
    name: String! @shareable
    trackingNumbers: [String!]!
  }

  type Location @key(fields: "locationId") {
    locationId: String!
    name: String! @shareable
    dockDoors: Int!
  }
`);

const ORDER_NAMES: Record<string, string> = { 5001: '#1001', 5002: '#1002', 5003: '#1003' };
const LOCATION_NAMES: Record<string, string> = { 101: 'Main', 102: 'Store' };

export function shippingSchema(): GraphQLSchema {
  return buildSubgraphSchema({
    typeDefs: shippingTypeDefs,
    resolvers: {
      Query: {
        shipments: () => [
          { shipmentId: 'S-1', carrier: 'UPS', order: { orderId: '5001' }, from: { locationId: '101' } },
          { shipmentId: 'S-2', carrier: 'DHL', order: { orderId: '5003' }, from: { locationId: '102' } },
        ],
      },
      Order: {
        __resolveReference: (ref: { orderId: string }) => ({ orderId: ref.orderId, name: ORDER_NAMES[ref.orderId] ?? '?', trackingNumbers: [`1Z-${ref.orderId}`] }),
        name: (order: { orderId: string }) => ORDER_NAMES[order.orderId] ?? '?',
        trackingNumbers: (order: { orderId: string }) => [`1Z-${order.orderId}`],
      },
      Location: {
        __resolveReference: (ref: { locationId: string }) => ({ locationId: ref.locationId }),
        name: (location: { locationId: string }) => LOCATION_NAMES[location.locationId] ?? '?',
        dockDoors: (location: { locationId: string }) => Number(location.locationId) % 10 + 1,
      },
    } as never,
  });
}
