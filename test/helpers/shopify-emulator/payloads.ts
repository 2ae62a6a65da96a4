// Webhook bodies as Shopify sends them: the REST Admin resource's JSON, snake_case, numeric ids,
// with `admin_graphql_api_id` beside each id.
import { gid } from './gid.ts';
import { fulfillmentStatus } from './resolvers/objects.ts';
import type { FulfillmentOrderRecord, InventoryItemRecord, LevelRecord, LocationRecord, OrderRecord, ProductRecord } from './records.ts';
import type { ShopStore } from './store.ts';

/** GraphQL topic enum value → the topic header Shopify sends. */
export const TOPICS: Record<string, string> = {
  INVENTORY_LEVELS_UPDATE: 'inventory_levels/update',
  INVENTORY_LEVELS_CONNECT: 'inventory_levels/connect',
  INVENTORY_LEVELS_DISCONNECT: 'inventory_levels/disconnect',
  INVENTORY_ITEMS_UPDATE: 'inventory_items/update',
  PRODUCTS_CREATE: 'products/create',
  PRODUCTS_UPDATE: 'products/update',
  PRODUCTS_DELETE: 'products/delete',
  LOCATIONS_CREATE: 'locations/create',
  LOCATIONS_UPDATE: 'locations/update',
  LOCATIONS_DELETE: 'locations/delete',
  LOCATIONS_ACTIVATE: 'locations/activate',
  LOCATIONS_DEACTIVATE: 'locations/deactivate',
  ORDERS_CREATE: 'orders/create',
  ORDERS_UPDATED: 'orders/updated',
  ORDERS_CANCELLED: 'orders/cancelled',
  ORDERS_FULFILLED: 'orders/fulfilled',
  ORDERS_PARTIALLY_FULFILLED: 'orders/partially_fulfilled',
  ORDERS_DELETE: 'orders/delete',
  FULFILLMENTS_CREATE: 'fulfillments/create',
  FULFILLMENT_ORDERS_MOVED: 'fulfillment_orders/moved',
  FULFILLMENT_ORDERS_SPLIT: 'fulfillment_orders/split',
  APP_UNINSTALLED: 'app/uninstalled',
  APP_SCOPES_UPDATE: 'app/scopes_update',
};

export type Topic = keyof typeof TOPICS;

const num = (id: string) => Number(id);

export function levelPayload(level: LevelRecord) {
  return { inventory_item_id: num(level.itemId), location_id: num(level.locationId), available: level.available, updated_at: level.updatedAt, admin_graphql_api_id: `gid://shopify/InventoryLevel/${level.locationId}?inventory_item_id=${level.itemId}` };
}

/**
 * inventory_items/update: the REST InventoryItem resource (https://shopify.dev/docs/api/admin-rest/2026-10/resources/inventoryitem;
 * topic list: https://shopify.dev/docs/api/webhooks?reference=toml#list-of-topics-inventory_items/update). Its `cost` is
 * money as text (null: none), `tracked` whether Shopify counts the item's stock, `updated_at` the item's own clock.
 */
export function inventoryItemPayload(store: ShopStore, item: InventoryItemRecord) {
  return {
    id: num(item.id), sku: store.variants.get(item.variantId)?.sku ?? null, created_at: item.createdAt, updated_at: item.updatedAt, requires_shipping: true,
    cost: item.unitCost, country_code_of_origin: null, province_code_of_origin: null, harmonized_system_code: null, tracked: item.tracked,
    country_harmonized_system_codes: [], admin_graphql_api_id: gid('InventoryItem', item.id),
  };
}

export function locationPayload(location: LocationRecord) {
  return { id: num(location.id), name: location.name, active: location.isActive, created_at: location.createdAt, updated_at: location.updatedAt, admin_graphql_api_id: gid('Location', location.id) };
}

export function productPayload(store: ShopStore, product: ProductRecord) {
  const image = product.imageUrl ? { id: num(product.id), product_id: num(product.id), src: product.imageUrl, position: 1 } : null;
  return {
    id: num(product.id), title: product.title, vendor: product.vendor, product_type: product.productType, status: 'active',
    created_at: product.createdAt, updated_at: product.updatedAt, admin_graphql_api_id: gid('Product', product.id),
    variants: product.variantIds.map((id) => {
      const v = store.variants.get(id)!;
      const available = store.levelsOf(v.inventoryItemId).reduce((sum, l) => sum + l.available, 0);
      return {
        id: num(v.id), product_id: num(product.id), title: v.title, sku: v.sku, price: v.price, position: v.position, inventory_item_id: num(v.inventoryItemId),
        inventory_quantity: available, created_at: v.createdAt, updated_at: v.updatedAt, admin_graphql_api_id: gid('ProductVariant', v.id),
      };
    }),
    image, images: image ? [image] : [],
  };
}

export function orderPayload(order: OrderRecord) {
  const status = fulfillmentStatus(order);
  return {
    id: num(order.id), admin_graphql_api_id: gid('Order', order.id), name: order.name, created_at: order.createdAt, updated_at: order.updatedAt,
    cancelled_at: order.cancelledAt, closed_at: order.closedAt, note: order.note,
    fulfillment_status: status === 'FULFILLED' ? 'fulfilled' : status === 'PARTIALLY_FULFILLED' ? 'partial' : null,
    // The retail location of a point-of-sale order; an online order's payload has none
    // (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order#field-Order.fields.retailLocation).
    location_id: order.pos && order.locationId ? num(order.locationId) : null,
    line_items: order.lineItems.map((l) => ({
      id: num(l.id), admin_graphql_api_id: gid('LineItem', l.id), variant_id: l.variantId ? num(l.variantId) : null, product_id: l.productId ? num(l.productId) : null,
      sku: l.sku, title: l.title, quantity: l.quantity, current_quantity: l.currentQuantity,
      fulfillable_quantity: order.cancelledAt ? 0 : Math.max(0, l.currentQuantity - l.fulfilledQuantity),
      fulfillment_status: l.fulfilledQuantity >= l.currentQuantity && l.currentQuantity > 0 ? 'fulfilled' : l.fulfilledQuantity > 0 ? 'partial' : null,
    })),
    fulfillments: order.fulfillments.map((f) => fulfillmentPayload(order, f.id)),
  };
}

export function fulfillmentPayload(order: OrderRecord, fulfillmentId: string) {
  const f = order.fulfillments.find((x) => x.id === fulfillmentId)!;
  return {
    id: num(f.id), admin_graphql_api_id: gid('Fulfillment', f.id), order_id: num(order.id), location_id: num(f.locationId), status: 'success', created_at: f.createdAt,
    line_items: f.lines.map((fl) => {
      const line = order.lineItems.find((l) => l.id === fl.lineItemId)!;
      return { id: num(line.id), admin_graphql_api_id: gid('LineItem', line.id), variant_id: line.variantId ? num(line.variantId) : null, sku: line.sku, title: line.title, quantity: fl.quantity };
    }),
  };
}

/**
 * A fulfilment order as the fulfillment_orders/* payloads name it: GraphQL ids, the status in lower
 * case, and (in fulfillment_orders/moved) the assigned location's id
 * (https://shopify.dev/changelog/added-source_location-field-to-fulfillmentordersmove-webhook-payload).
 */
export function fulfillmentOrderRef(fo: FulfillmentOrderRecord, withLocation: boolean) {
  return { id: gid('FulfillmentOrder', fo.id), status: fo.status.toLowerCase(), ...(withLocation ? { assigned_location_id: gid('Location', fo.locationId) } : {}) };
}
