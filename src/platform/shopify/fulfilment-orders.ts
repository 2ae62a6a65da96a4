import type { PlatformLinePlacement } from '../../kernel/platform-port/gateway.ts';
import type { ShopifyAdminApi } from './admin-api.ts';
import { fromGid, toGid } from './ids.ts';
import { requestOperation } from './operations.ts';

// Where Shopify has an order's units: an order placed at a point of sale has its `retailLocation`;
// every other order (online store, draft, app) has none, and its units are assigned to locations by
// its fulfilment orders (`FulfillmentOrder.assignedLocation`), which Shopify may move, split or
// reroute while the order is open. bomcore locates an order this way in the full sync, the
// reconciliation and the webhooks alike (docs/shopify.md, "Where an order is").

/** A fulfilment order as the reads select it (fragments/located-fulfillment-order.graphql). */
export interface FulfillmentOrderNode {
  id: string;
  status: string;
  assignedLocation: { location: { id: string } | null };
  lineItems: { nodes: { lineItem: { id: string }; remainingQuantity: number }[] };
}

/**
 * The statuses of a fulfilment order whose units are still to ship from its location: open, being
 * fulfilled, scheduled for later, or on hold. Closed, cancelled and incomplete ones hold nothing.
 */
const HOLDING = new Set(['OPEN', 'IN_PROGRESS', 'SCHEDULED', 'ON_HOLD']);

/** The location a fulfilment order holds units at (null: it holds none, or has no location). */
export function holdingLocation(fo: Pick<FulfillmentOrderNode, 'status' | 'assignedLocation'>): string | null {
  return HOLDING.has(fo.status) && fo.assignedLocation.location ? fromGid('Location', fo.assignedLocation.location.id) : null;
}

/** Where an order is: its own location, and where each line's units still to ship are (by line id). */
export interface OrderLocation { locationId: string | null; placements: Map<string, PlatformLinePlacement[]> | null }

/**
 * The location rule. A point-of-sale order is at its retail location, whole. Any other order is at
 * its holding fulfilment orders' assigned locations: when they share one location, that is the
 * order's location; either way each line's units still to ship are placed where their fulfilment
 * orders are (a line split across locations reserves at each). An order with no holding fulfilment
 * order (all shipped, or not routed yet) has no location.
 */
export function locateOrder(retailLocation: { id: string } | null, fulfillmentOrders: readonly FulfillmentOrderNode[] | null): OrderLocation {
  if (retailLocation) return { locationId: fromGid('Location', retailLocation.id), placements: null };
  if (fulfillmentOrders === null) return { locationId: null, placements: null };
  const placements = new Map<string, PlatformLinePlacement[]>();
  const locations = new Set<string>();
  for (const fo of fulfillmentOrders) {
    const locationId = holdingLocation(fo);
    if (locationId === null) continue;
    for (const item of fo.lineItems.nodes) {
      if (!Number.isInteger(item.remainingQuantity) || item.remainingQuantity <= 0) continue;
      locations.add(locationId);
      const lineId = fromGid('LineItem', item.lineItem.id);
      placements.set(lineId, [...(placements.get(lineId) ?? []), { locationId, quantity: String(item.remainingQuantity) }]);
    }
  }
  return { locationId: locations.size === 1 ? [...locations][0]! : null, placements };
}

/** An order as order-fulfillment-orders.graphql reads it: where it is, and its fulfilment orders. */
export interface LocatedOrderNode { id: string; retailLocation: { id: string } | null; fulfillmentOrders: { nodes: FulfillmentOrderNode[] } }

interface NodesAnswer { nodes: ({ __typename: string; id?: string; order?: LocatedOrderNode } & Partial<LocatedOrderNode> | null)[] }

/** Orders read at once: the request's cost stays well under Shopify's 1,000 points per query. */
const ORDERS_PER_REQUEST = 10;

/**
 * Reads orders' locations from Shopify: the orders named (by id) and the orders of the fulfilment
 * orders named, `ORDERS_PER_REQUEST` a request (one request for a webhook pass's usual batch).
 * Returns the located orders by order id and, for each fulfilment order named, its order's id.
 */
export async function readOrderLocations(api: ShopifyAdminApi, orderIds: readonly string[], fulfillmentOrderIds: readonly string[]): Promise<{ orders: Map<string, OrderLocation>; orderOf: Map<string, string> }> {
  const orders = new Map<string, OrderLocation>();
  const orderOf = new Map<string, string>();
  const ids = [...new Set(orderIds)].map((id) => toGid('Order', id)).concat([...new Set(fulfillmentOrderIds)].map((id) => toGid('FulfillmentOrder', id)));
  for (let i = 0; i < ids.length; i += ORDERS_PER_REQUEST) {
    const answer = await api.request<NodesAnswer>(requestOperation('order-fulfillment-orders'), { ids: ids.slice(i, i + ORDERS_PER_REQUEST) });
    for (const node of answer.nodes) {
      if (!node) continue;
      const order = node.__typename === 'FulfillmentOrder' ? node.order : node.__typename === 'Order' ? node as LocatedOrderNode : undefined;
      if (!order) continue;
      const orderId = fromGid('Order', order.id);
      if (node.__typename === 'FulfillmentOrder' && node.id) orderOf.set(fromGid('FulfillmentOrder', node.id), orderId);
      orders.set(orderId, locateOrder(order.retailLocation, order.fulfillmentOrders.nodes));
    }
  }
  return { orders, orderOf };
}
