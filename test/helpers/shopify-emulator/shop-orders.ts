import type { LevelRecord, LocationRecord, OrderRecord } from './records.ts';
import { wholeNumber } from './gid.ts';
import { fulfillmentPayload, orderPayload } from './payloads.ts';
import type { EmulatedShop, OrderInput } from './shop.ts';

export interface FulfilOptions {
  /** Lines by line item id or variant id; default every unfulfilled unit. */
  lines?: { lineItemId?: string; variantId?: string; quantity: number }[];
  locationId?: string;
}

// Orders move stock as Shopify's do: creation commits units (available → committed) at the order's
// location, a fulfilment ships committed units (on_hand falls, available does not), a cancellation
// releases the unfulfilled ones back to available (restock) or drops them.

/** A customer's order: committed at its location (available → committed) unless `commit: false`. */
export function createOrder(shop: EmulatedShop, input: OrderInput): OrderRecord {
  const store = shop.store;
  const at = store.stamp();
  const commit = input.commit ?? true;
  const locationId = commit ? input.locationId ?? store.sorted<LocationRecord>('locations').find((l) => l.isActive)?.id ?? null : null;
  const id = input.orderId ?? store.newId();
  const order: OrderRecord = {
    __typename: 'Order', id, name: input.name ?? `#${1000 + store.orders.size + 1}`, locationId, fulfillments: [], cancelledAt: null, closed: false, closedAt: null, createdAt: at, updatedAt: at,
    lineItems: input.lineItems.map((l) => {
      const variant = store.variantOrThrow(l.variantId);
      const quantity = wholeNumber(l.quantity, 'line quantity');
      return { __typename: 'LineItem' as const, id: String(++store.nextLineItem), variantId: variant.id, productId: variant.productId, sku: l.sku === undefined ? variant.sku : l.sku,
        title: l.title ?? store.products.get(variant.productId)!.title, quantity, currentQuantity: quantity, fulfilledQuantity: 0 };
    }),
  };
  store.orders.set(id, order);
  store.changed('orders');
  shop.emit('ORDERS_CREATE', orderPayload(order));
  if (locationId) moveCommitted(shop, order, order.lineItems.map((l) => ({ line: l, quantity: l.quantity })), 'commit');
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
  const fulfillment = { id: shop.store.newId(), locationId: options.locationId ?? order.locationId ?? shop.store.sorted<LocationRecord>('locations')[0]!.id, createdAt: at,
    lines: wanted.map((w) => ({ lineItemId: w.line.id, quantity: w.quantity })) };
  order.fulfillments.push(fulfillment);
  order.updatedAt = at;
  if (order.locationId) moveCommitted(shop, order, wanted, 'ship');
  shop.emit('FULFILLMENTS_CREATE', fulfillmentPayload(order, fulfillment.id));
  shop.emit('ORDERS_UPDATED', orderPayload(order));
  const done = order.lineItems.every((l) => l.fulfilledQuantity >= l.currentQuantity);
  shop.emit(done ? 'ORDERS_FULFILLED' : 'ORDERS_PARTIALLY_FULFILLED', orderPayload(order));
  return fulfillment.id;
}

/** Cancels an order; unfulfilled units leave it and, with restock (default), return to available. */
export function cancel(shop: EmulatedShop, orderId: string, options: { restock?: boolean }): void {
  const order = shop.store.orderOrThrow(orderId);
  const at = shop.store.stamp();
  const open = order.lineItems.map((line) => ({ line, quantity: line.currentQuantity - line.fulfilledQuantity })).filter((w) => w.quantity > 0);
  order.cancelledAt = at;
  order.closed = true;
  order.closedAt = at;
  order.updatedAt = at;
  for (const w of open) w.line.currentQuantity -= w.quantity;
  if (order.locationId) moveCommitted(shop, order, open, options.restock === false ? 'ship' : 'release');
  shop.emit('ORDERS_CANCELLED', orderPayload(order));
  shop.emit('ORDERS_UPDATED', orderPayload(order));
}

function moveCommitted(shop: EmulatedShop, order: OrderRecord, lines: { line: { variantId: string | null }; quantity: number }[], how: 'commit' | 'ship' | 'release'): void {
  const touched = new Set<LevelRecord>();
  for (const { line, quantity } of lines) {
    const variant = line.variantId ? shop.store.variants.get(line.variantId) : undefined;
    if (!variant || !order.locationId) continue;
    const level = shop.store.level(variant.inventoryItemId, order.locationId, true)!;
    if (how === 'commit') shop.store.moveLevel(level, 'available', -quantity);
    if (how === 'release') shop.store.moveLevel(level, 'available', quantity);
    shop.store.moveLevel(level, 'committed', how === 'commit' ? quantity : -quantity);
    if (how !== 'ship') touched.add(level);
  }
  for (const level of touched) shop.emitLevel(level);
}

