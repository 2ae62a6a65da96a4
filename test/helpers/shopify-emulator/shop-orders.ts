import type { FulfillmentOrderRecord, LevelRecord, LineItemRecord, LocationRecord, OrderRecord } from './records.ts';
import { gid, wholeNumber } from './gid.ts';
import { fulfillmentOrderRef, fulfillmentPayload, orderPayload } from './payloads.ts';
import type { EmulatedShop, OrderInput } from './shop.ts';

export interface FulfilOptions {
  /** Lines by line item id or variant id; default every unfulfilled unit. */
  lines?: { lineItemId?: string; variantId?: string; quantity: number }[];
  /** Where it ships from; default the location of the fulfilment order holding the first line. */
  locationId?: string;
}

// Orders move stock as Shopify's do: creation commits units (available → committed) at the
// location their fulfilment order is assigned to, a fulfilment ships committed units (on_hand
// falls, available does not), a cancellation releases the unfulfilled ones back to available
// (restock) or drops them; moving a fulfilment order moves its committed units with it.
//
// Where an order is, as Shopify has it:
// - An order placed at a point of sale has a `retailLocation`; an online order has none
//   (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order#field-Order.fields.retailLocation:
//   "The physical location where a retail order is created or completed"), and its webhook payload's
//   `location_id` is null.
// - Every order's line items are grouped in fulfilment orders, each assigned to the location that
//   fulfils it (https://shopify.dev/docs/api/admin-graphql/latest/objects/FulfillmentOrder#field-FulfillmentOrder.fields.assignedLocation).
//   Shopify routes an order to one location here (its `locationId`, else the first active one).
// - A fulfilment order moves to another location whole (same id) when none of its units shipped;
//   otherwise the moved units go to a new fulfilment order at the destination and the original
//   keeps the rest (https://shopify.dev/docs/api/admin-graphql/latest/mutations/fulfillmentOrderMove).
//   The move sends fulfillment_orders/moved with `original_fulfillment_order`,
//   `moved_fulfillment_order`, `destination_location_id`, `fulfillment_order_line_items_requested`
//   and `source_location` (https://shopify.dev/changelog/added-source_location-field-to-fulfillmentordersmove-webhook-payload).
// - A split moves some units into a new fulfilment order at the same location
//   (https://shopify.dev/docs/api/admin-graphql/latest/mutations/fulfillmentOrderSplit, result
//   https://shopify.dev/docs/api/admin-graphql/latest/objects/FulfillmentOrderSplitResult) and
//   sends fulfillment_orders/split.
// - A fulfilment order whose units all shipped, or whose order was cancelled, is CLOSED; one with
//   some shipped is IN_PROGRESS (https://shopify.dev/docs/api/admin-graphql/latest/enums/FulfillmentOrderStatus).

const HOLDING = new Set(['OPEN', 'IN_PROGRESS']);

/** A customer's order: committed at its location (available → committed) unless `commit: false`. */
export function createOrder(shop: EmulatedShop, input: OrderInput): OrderRecord {
  const store = shop.store;
  const at = store.stamp();
  const commit = (input.commit ?? true) && input.routed !== false;
  const routed = input.routed === false ? null : input.locationId ?? store.sorted<LocationRecord>('locations').find((l) => l.isActive)?.id ?? null;
  const locationId = commit ? routed : null;
  const id = input.orderId ?? store.newId();
  const order: OrderRecord = {
    __typename: 'Order', id, name: input.name ?? `#${1000 + store.orders.size + 1}`, locationId, pos: input.pos ?? false, fulfillmentOrders: [],
    fulfillments: [], cancelledAt: null, closed: false, closedAt: null, note: input.note ?? null, createdAt: input.createdAt ?? at, updatedAt: at,
    lineItems: input.lineItems.map((l) => {
      const variant = store.variantOrThrow(l.variantId);
      const quantity = wholeNumber(l.quantity, 'line quantity');
      return { __typename: 'LineItem' as const, id: String(++store.nextLineItem), variantId: variant.id, productId: variant.productId, sku: l.sku === undefined ? variant.sku : l.sku,
        title: l.title ?? store.products.get(variant.productId)!.title, quantity, currentQuantity: quantity, fulfilledQuantity: 0 };
    }),
  };
  if (routed) {
    order.fulfillmentOrders.push({
      __typename: 'FulfillmentOrder', id: store.newId(), orderId: id, locationId: routed, status: 'OPEN', createdAt: at, updatedAt: at,
      lines: order.lineItems.map((l) => ({ id: store.newId(), lineItemId: l.id, totalQuantity: l.quantity, remainingQuantity: l.quantity })),
    });
  }
  store.orders.set(id, order);
  store.changed('orders');
  shop.emit('ORDERS_CREATE', orderPayload(order));
  if (locationId) moveCommitted(shop, order.lineItems.map((l) => ({ line: l, quantity: l.quantity, locationId })), 'commit');
  return order;
}

/** Fulfils lines (default: everything left) in one fulfilment; partial fulfilments are two calls. */
export function fulfil(shop: EmulatedShop, orderId: string, options: FulfilOptions): string {
  const order = shop.store.orderOrThrow(orderId);
  if (order.cancelledAt) throw new Error(`emulator: order ${orderId} is cancelled`);
  const wanted = options.lines
    ? options.lines.map((w) => {
      const line = order.lineItems.find((l) => (w.lineItemId ? l.id === w.lineItemId : l.variantId === w.variantId));
      if (!line) throw new Error(`emulator: order ${orderId} has no such line`);
      return { line, quantity: w.quantity };
    })
    : order.lineItems.map((line) => ({ line, quantity: line.currentQuantity - line.fulfilledQuantity })).filter((w) => w.quantity > 0);
  for (const w of wanted) {
    if (w.quantity <= 0 || w.line.fulfilledQuantity + w.quantity > w.line.currentQuantity) throw new Error(`emulator: cannot fulfil ${w.quantity} of line ${w.line.id}`);
    w.line.fulfilledQuantity += w.quantity;
  }
  const at = shop.store.stamp();
  const firstHolder = wanted.length > 0 ? holders(order, wanted[0]!.line, options.locationId)[0] : undefined;
  const location = options.locationId ?? firstHolder?.locationId ?? order.locationId ?? shop.store.sorted<LocationRecord>('locations')[0]!.id;
  // The units leave the fulfilment orders holding them (those at the shipping location first).
  const shipped: { line: LineItemRecord; quantity: number; locationId: string }[] = [];
  for (const w of wanted) {
    let left = w.quantity;
    for (const fo of holders(order, w.line, location)) {
      const foLine = fo.lines.find((l) => l.lineItemId === w.line.id)!;
      const take = Math.min(left, foLine.remainingQuantity);
      foLine.remainingQuantity -= take;
      left -= take;
      fo.status = fo.lines.every((l) => l.remainingQuantity === 0) ? 'CLOSED' : 'IN_PROGRESS';
      fo.updatedAt = at;
      shipped.push({ line: w.line, quantity: take, locationId: fo.locationId });
      if (left === 0) break;
    }
  }
  const fulfillment = { id: shop.store.newId(), locationId: location, createdAt: at, lines: wanted.map((w) => ({ lineItemId: w.line.id, quantity: w.quantity })) };
  order.fulfillments.push(fulfillment);
  order.updatedAt = at;
  if (order.locationId) moveCommitted(shop, shipped, 'ship');
  shop.emit('FULFILLMENTS_CREATE', fulfillmentPayload(order, fulfillment.id));
  shop.emit('ORDERS_UPDATED', orderPayload(order));
  const done = order.lineItems.every((l) => l.fulfilledQuantity >= l.currentQuantity);
  shop.emit(done ? 'ORDERS_FULFILLED' : 'ORDERS_PARTIALLY_FULFILLED', orderPayload(order));
  return fulfillment.id;
}

/** The fulfilment orders still holding units of a line, those at `preferred` first. */
function holders(order: OrderRecord, line: LineItemRecord, preferred: string | undefined): FulfillmentOrderRecord[] {
  const holding = order.fulfillmentOrders.filter((fo) => HOLDING.has(fo.status) && fo.lines.some((l) => l.lineItemId === line.id && l.remainingQuantity > 0));
  return [...holding.filter((fo) => fo.locationId === preferred), ...holding.filter((fo) => fo.locationId !== preferred)];
}

/** Cancels an order; unfulfilled units leave it and, with restock (default), return to available. */
export function cancel(shop: EmulatedShop, orderId: string, options: { restock?: boolean }): void {
  const order = shop.store.orderOrThrow(orderId);
  const at = shop.store.stamp();
  const open = order.lineItems.map((line) => ({ line, quantity: line.currentQuantity - line.fulfilledQuantity })).filter((w) => w.quantity > 0);
  const held = order.fulfillmentOrders.filter((fo) => HOLDING.has(fo.status)).flatMap((fo) => fo.lines.filter((l) => l.remainingQuantity > 0)
    .map((l) => ({ line: order.lineItems.find((x) => x.id === l.lineItemId)!, quantity: l.remainingQuantity, locationId: fo.locationId })));
  for (const fo of order.fulfillmentOrders) {
    if (!HOLDING.has(fo.status)) continue;
    fo.status = 'CLOSED';
    fo.updatedAt = at;
    for (const l of fo.lines) l.remainingQuantity = 0;
  }
  order.cancelledAt = at;
  order.closed = true;
  order.closedAt = at;
  order.updatedAt = at;
  for (const w of open) w.line.currentQuantity -= w.quantity;
  if (order.locationId) moveCommitted(shop, held, options.restock === false ? 'ship' : 'release');
  shop.emit('ORDERS_CANCELLED', orderPayload(order));
  shop.emit('ORDERS_UPDATED', orderPayload(order));
}

/** Units of fulfilment order lines, by FulfillmentOrderLineItem id (default: every unit still to ship). */
export type FulfillmentOrderLinesInput = { fulfillmentOrderLineItemId: string; quantity: number }[];

function takeLines(fo: FulfillmentOrderRecord, lines: FulfillmentOrderLinesInput | undefined): { id: string; lineItemId: string; quantity: number }[] {
  const wanted = lines ?? fo.lines.filter((l) => l.remainingQuantity > 0).map((l) => ({ fulfillmentOrderLineItemId: l.id, quantity: l.remainingQuantity }));
  return wanted.map((w) => {
    const line = fo.lines.find((l) => l.id === w.fulfillmentOrderLineItemId);
    if (!line || !Number.isInteger(w.quantity) || w.quantity <= 0 || w.quantity > line.remainingQuantity) throw new Error(`emulator: fulfilment order ${fo.id} cannot give ${w.quantity} of ${w.fulfillmentOrderLineItemId}`);
    return { id: line.id, lineItemId: line.lineItemId, quantity: w.quantity };
  });
}

/** Takes units out of a fulfilment order into a new one (at `locationId`); the original closes when nothing is left in it. */
function carveOut(shop: EmulatedShop, order: OrderRecord, fo: FulfillmentOrderRecord, taken: { id: string; lineItemId: string; quantity: number }[], locationId: string, at: string): FulfillmentOrderRecord {
  for (const t of taken) {
    const line = fo.lines.find((l) => l.id === t.id)!;
    line.remainingQuantity -= t.quantity;
    line.totalQuantity -= t.quantity;
  }
  fo.lines = fo.lines.filter((l) => l.totalQuantity > 0);
  if (fo.lines.every((l) => l.remainingQuantity === 0)) fo.status = 'CLOSED';
  fo.updatedAt = at;
  const carved: FulfillmentOrderRecord = {
    __typename: 'FulfillmentOrder', id: shop.store.newId(), orderId: order.id, locationId, status: 'OPEN', createdAt: at, updatedAt: at,
    lines: taken.map((t) => ({ id: shop.store.newId(), lineItemId: t.lineItemId, totalQuantity: t.quantity, remainingQuantity: t.quantity })),
  };
  order.fulfillmentOrders.push(carved);
  return carved;
}

function orderOfFulfillmentOrder(shop: EmulatedShop, fulfillmentOrderId: string): { order: OrderRecord; fo: FulfillmentOrderRecord } {
  for (const order of shop.store.orders.values()) {
    const fo = order.fulfillmentOrders.find((f) => f.id === fulfillmentOrderId);
    if (fo) return { order, fo };
  }
  throw new Error(`emulator: no fulfilment order ${fulfillmentOrderId}`);
}

/**
 * Moves a fulfilment order (or some of its units) to another location, as fulfillmentOrderMove
 * does; the committed units move with it. Returns the fulfilment order now at the destination.
 */
export function moveFulfillmentOrder(shop: EmulatedShop, fulfillmentOrderId: string, newLocationId: string, lines?: FulfillmentOrderLinesInput): FulfillmentOrderRecord {
  const { order, fo } = orderOfFulfillmentOrder(shop, fulfillmentOrderId);
  if (!HOLDING.has(fo.status)) throw new Error(`emulator: fulfilment order ${fo.id} is ${fo.status}: it cannot be moved`);
  if (!shop.store.locations.get(newLocationId)?.isActive) throw new Error(`emulator: no active location ${newLocationId}`);
  const at = shop.store.stamp();
  const source = fo.locationId;
  const taken = takeLines(fo, lines);
  const whole = lines === undefined && fo.lines.every((l) => l.remainingQuantity === l.totalQuantity);
  let moved: FulfillmentOrderRecord;
  if (whole) {
    fo.locationId = newLocationId;
    fo.updatedAt = at;
    moved = fo;
  } else {
    moved = carveOut(shop, order, fo, taken, newLocationId, at);
  }
  if (order.locationId) {
    const units = taken.map((t) => ({ line: order.lineItems.find((l) => l.id === t.lineItemId)!, quantity: t.quantity }));
    moveCommitted(shop, units.map((u) => ({ ...u, locationId: source })), 'release');
    moveCommitted(shop, units.map((u) => ({ ...u, locationId: newLocationId })), 'commit');
  }
  shop.emit('FULFILLMENT_ORDERS_MOVED', {
    original_fulfillment_order: fulfillmentOrderRef(fo, true),
    moved_fulfillment_order: fulfillmentOrderRef(moved, true),
    destination_location_id: gid('Location', newLocationId),
    fulfillment_order_line_items_requested: lines ? lines.map((l) => ({ id: gid('FulfillmentOrderLineItem', l.fulfillmentOrderLineItemId), quantity: l.quantity })) : null,
    source_location: { id: gid('Location', source) },
  });
  return moved;
}

/** Splits units of a fulfilment order into a new one at the same location, as fulfillmentOrderSplit does. Returns the new one. */
export function splitFulfillmentOrder(shop: EmulatedShop, fulfillmentOrderId: string, lines: FulfillmentOrderLinesInput): FulfillmentOrderRecord {
  const { order, fo } = orderOfFulfillmentOrder(shop, fulfillmentOrderId);
  if (!HOLDING.has(fo.status)) throw new Error(`emulator: fulfilment order ${fo.id} is ${fo.status}: it cannot be split`);
  const at = shop.store.stamp();
  const remaining = carveOut(shop, order, fo, takeLines(fo, lines), fo.locationId, at);
  shop.emit('FULFILLMENT_ORDERS_SPLIT', {
    split_line_items: lines.map((l) => ({ id: gid('FulfillmentOrderLineItem', l.fulfillmentOrderLineItemId), quantity: l.quantity })),
    fulfillment_order: fulfillmentOrderRef(fo, false),
    remaining_fulfillment_order: fulfillmentOrderRef(remaining, false),
    replacement_fulfillment_order: null,
  });
  return remaining;
}

function moveCommitted(shop: EmulatedShop, lines: { line: { variantId: string | null }; quantity: number; locationId: string }[], how: 'commit' | 'ship' | 'release'): void {
  const touched = new Set<LevelRecord>();
  for (const { line, quantity, locationId } of lines) {
    const variant = line.variantId ? shop.store.variants.get(line.variantId) : undefined;
    if (!variant || quantity === 0) continue;
    const level = shop.store.level(variant.inventoryItemId, locationId, true)!;
    if (how === 'commit') shop.store.moveLevel(level, 'available', -quantity);
    if (how === 'release') shop.store.moveLevel(level, 'available', quantity);
    shop.store.moveLevel(level, 'committed', how === 'commit' ? quantity : -quantity);
    if (how !== 'ship') touched.add(level);
  }
  for (const level of touched) shop.emitLevel(level);
}
