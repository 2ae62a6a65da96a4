import type { GraphQLResolveInfo } from 'graphql';
import { requireScope, seesFulfillmentOrders, type EmulatorContext } from '../context.ts';
import { connection, matchesSearch, parseSearch, type PageArgs, type SearchFields } from '../connection.ts';
import { gidType, legacyId } from '../gid.ts';
import type { InventoryItemRecord, LocationRecord, OrderRecord, ProductRecord, VariantRecord, WebhookSubscriptionRecord } from '../records.ts';
import { fulfillmentStatus } from './objects.ts';
import type { Resolvers } from './types.ts';

// The root query fields bomcore reads, each behind the access scope Shopify documents for it
// (https://shopify.dev/docs/api/usage/access-scopes); `node(id:)` / `nodes(ids:)` by global id
// (https://shopify.dev/docs/api/usage/gids).

type Ctx = EmulatorContext;
type ListArgs = PageArgs & { query?: string | null };

const stamps = { updated_at: (r: { updatedAt: string }) => r.updatedAt, created_at: (r: { createdAt: string }) => r.createdAt, id: (r: { id: string }) => r.id };

const variantSearch: SearchFields<VariantRecord> = { ...stamps, sku: (v) => v.sku, product_id: (v) => v.productId, title: (v) => v.title };
const productSearch: SearchFields<ProductRecord> = { ...stamps, title: (p) => p.title, vendor: (p) => p.vendor, product_type: (p) => p.productType };
const itemSearch: SearchFields<InventoryItemRecord> = { ...stamps };
const locationSearch: SearchFields<LocationRecord> = { ...stamps, name: (l) => l.name, active: (l) => String(l.isActive) };
const orderSearch: SearchFields<OrderRecord> = {
  ...stamps, name: (o) => o.name,
  status: (o) => (o.cancelledAt ? ['cancelled', 'any'] : o.closed ? ['closed', 'any'] : ['open', 'any']),
  fulfillment_status: (o) => {
    const s = fulfillmentStatus(o);
    return s === 'FULFILLED' ? ['shipped', 'fulfilled'] : s === 'PARTIALLY_FULFILLED' ? ['partial', 'unshipped', 'unfulfilled'] : ['unshipped', 'unfulfilled'];
  },
};

/**
 * Whether the app may see an order: "Only the last 60 days' worth of orders from a store are
 * accessible from the Order object by default. If you want to access older records, then you need
 * to request access to all orders" — the read_all_orders scope
 * (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order). An older order is absent, as
 * one that does not exist: null by id, left out of `orders`.
 */
const SIXTY_DAYS_MS = 60 * 24 * 3600 * 1000;
function seesOrder(ctx: Ctx, order: OrderRecord | undefined): order is OrderRecord {
  if (!order) return false;
  return ctx.shop.scopes.has('read_all_orders') || Date.parse(order.createdAt) >= ctx.shop.store.now().getTime() - SIXTY_DAYS_MS;
}

function filtered<T>(list: T[], query: string | null | undefined, fields: SearchFields<T>): T[] {
  const terms = parseSearch(query);
  return terms.length ? list.filter((r) => matchesSearch(r, terms, fields)) : list;
}

/** The store record a GID names, with the scope its type needs; null when there is none. */
export function nodeOf(ctx: Ctx, id: string): unknown {
  const store = ctx.shop.store;
  const type = gidType(id);
  const key = legacyId(id) ?? '';
  switch (type) {
    case 'Location': requireScope(ctx, 'read_locations', 'node'); return store.locations.get(key) ?? null;
    case 'Product': requireScope(ctx, 'read_products', 'node'); return store.products.get(key) ?? null;
    case 'ProductVariant': requireScope(ctx, 'read_products', 'node'); return store.variants.get(key) ?? null;
    case 'InventoryItem': requireScope(ctx, 'read_inventory', 'node'); return store.items.get(key) ?? null;
    case 'InventoryLevel': {
      requireScope(ctx, 'read_inventory', 'node');
      const item = /inventory_item_id=(\d+)/.exec(id)?.[1];
      return item ? store.level(item, key) : null;
    }
    case 'Order': {
      requireScope(ctx, 'read_orders', 'node');
      const order = store.orders.get(key);
      return seesOrder(ctx, order) ? order : null;
    }
    case 'LineItem': {
      requireScope(ctx, 'read_orders', 'node');
      for (const order of store.orders.values()) for (const line of order.lineItems) if (line.id === key) return line;
      return null;
    }
    case 'FulfillmentOrder': {
      requireScope(ctx, 'read_orders', 'node');
      if (!seesFulfillmentOrders(ctx)) return null;
      for (const order of store.orders.values()) for (const fo of order.fulfillmentOrders) if (fo.id === key) return fo;
      return null;
    }
    case 'InventoryAdjustmentGroup': return store.adjustmentGroups.find((g) => g.id === key) ?? null;
    case 'Metafield': return [...store.metafields.values()].find((m) => m.id === key) ?? null;
    case 'WebhookSubscription': return store.webhookSubscriptions.get(key) ?? null;
    case 'BulkOperation': return store.bulkOperations.get(key) ?? null;
    case 'Shop': return key === ctx.shop.shopId ? ctx.shop : null;
    default: return null;
  }
}

export const queryResolvers: Resolvers = {
  QueryRoot: {
    shop: (_: unknown, __: unknown, ctx: Ctx) => ctx.shop,
    currentAppInstallation: () => ({ __typename: 'AppInstallation' }),
    locations: (_: unknown, a: ListArgs & { includeInactive?: boolean }, ctx: Ctx, info: GraphQLResolveInfo) => {
      requireScope(ctx, 'read_locations', 'locations');
      const all = ctx.shop.store.sorted<LocationRecord>('locations').filter((l) => a.includeInactive || l.isActive);
      return connection(filtered(all, a.query, locationSearch), a, ctx, info);
    },
    location: (_: unknown, a: { id?: string | null }, ctx: Ctx) => {
      requireScope(ctx, 'read_locations', 'location');
      const id = a.id ? legacyId(a.id, 'Location') : ctx.shop.store.sorted<LocationRecord>('locations').find((l) => l.isActive)?.id;
      return (id && ctx.shop.store.locations.get(id)) ?? null;
    },
    productVariants: (_: unknown, a: ListArgs, ctx: Ctx, info: GraphQLResolveInfo) => {
      requireScope(ctx, 'read_products', 'productVariants');
      return connection(filtered(ctx.shop.store.sorted<VariantRecord>('variants'), a.query, variantSearch), a, ctx, info);
    },
    productVariant: (_: unknown, a: { id: string }, ctx: Ctx) => {
      requireScope(ctx, 'read_products', 'productVariant');
      return ctx.shop.store.variants.get(legacyId(a.id, 'ProductVariant') ?? '') ?? null;
    },
    products: (_: unknown, a: ListArgs, ctx: Ctx, info: GraphQLResolveInfo) => {
      requireScope(ctx, 'read_products', 'products');
      return connection(filtered(ctx.shop.store.sorted<ProductRecord>('products'), a.query, productSearch), a, ctx, info);
    },
    product: (_: unknown, a: { id: string }, ctx: Ctx) => {
      requireScope(ctx, 'read_products', 'product');
      return ctx.shop.store.products.get(legacyId(a.id, 'Product') ?? '') ?? null;
    },
    inventoryItems: (_: unknown, a: ListArgs, ctx: Ctx, info: GraphQLResolveInfo) => {
      requireScope(ctx, 'read_inventory', 'inventoryItems');
      return connection(filtered(ctx.shop.store.sorted<InventoryItemRecord>('items'), a.query, itemSearch), a, ctx, info);
    },
    inventoryItem: (_: unknown, a: { id: string }, ctx: Ctx) => {
      requireScope(ctx, 'read_inventory', 'inventoryItem');
      return ctx.shop.store.items.get(legacyId(a.id, 'InventoryItem') ?? '') ?? null;
    },
    orders: (_: unknown, a: ListArgs, ctx: Ctx, info: GraphQLResolveInfo) => {
      requireScope(ctx, 'read_orders', 'orders');
      return connection(filtered(ctx.shop.store.sorted<OrderRecord>('orders').filter((o) => seesOrder(ctx, o)), a.query, orderSearch), a, ctx, info);
    },
    order: (_: unknown, a: { id: string }, ctx: Ctx) => {
      requireScope(ctx, 'read_orders', 'order');
      const order = ctx.shop.store.orders.get(legacyId(a.id, 'Order') ?? '');
      return seesOrder(ctx, order) ? order : null;
    },
    fulfillment: (_: unknown, a: { id: string }, ctx: Ctx) => {
      requireScope(ctx, 'read_orders', 'fulfillment');
      const id = legacyId(a.id, 'Fulfillment');
      for (const order of ctx.shop.store.orders.values()) {
        const f = order.fulfillments.find((x) => x.id === id);
        if (f) return { ...f, order };
      }
      return null;
    },
    node: (_: unknown, a: { id: string }, ctx: Ctx) => nodeOf(ctx, a.id),
    nodes: (_: unknown, a: { ids: string[] }, ctx: Ctx) => {
      if (a.ids.length > 250) throw new Error('The ids argument accepts at most 250 ids.');
      return a.ids.map((id) => nodeOf(ctx, id));
    },
    bulkOperation: (_: unknown, a: { id: string }, ctx: Ctx) => ctx.shop.store.bulkOperations.get(legacyId(a.id, 'BulkOperation') ?? '') ?? null,
    webhookSubscriptions: (_: unknown, a: ListArgs & { topics?: string[] | null; uri?: string | null }, ctx: Ctx, info: GraphQLResolveInfo) => {
      const all = ctx.shop.store.sorted<WebhookSubscriptionRecord>('webhookSubscriptions')
        .filter((w) => (!a.topics || a.topics.includes(w.topic)) && (!a.uri || a.uri === w.uri));
      return connection(all, a, ctx, info);
    },
    webhookSubscription: (_: unknown, a: { id: string }, ctx: Ctx) => ctx.shop.store.webhookSubscriptions.get(legacyId(a.id, 'WebhookSubscription') ?? '') ?? null,
  },
};

