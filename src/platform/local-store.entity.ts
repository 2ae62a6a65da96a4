import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../db/columns.ts';

// The local platform store: what the e-commerce platform holds, filled by dataset loads. Only the
// local platform adapter (local-gateway.ts) serves these tables; the rest of the service goes
// through the PlatformGateway port. Beside its adapter, so src/platform imports no module.

export const PlatformLocation = defineEntity({
  name: 'PlatformLocation',
  tableName: 'platform_locations',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(), locationId: p.text().primary(), name: p.text(),
    /** Shopify's `updated_at` of what the row holds (null: a dataset's row, any event is newer). */
    updatedAt: timestamp().nullable(),
  },
  indexes: [{ properties: ['shopId', 'name'] }],
});

export const PlatformVariant = defineEntity({
  name: 'PlatformVariant',
  tableName: 'platform_variants',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    variantId: p.text().primary(),
    productId: p.text(),
    inventoryItemId: p.text(),
    productName: p.text(),
    variantName: p.text().nullable(),
    sku: p.text().nullable(),
    vendor: p.text().nullable(),
    price: decimal().nullable(),
    cost: decimal().nullable(),
    imageUrl: p.text().nullable(),
    productType: p.text().nullable(),
    productCategory: p.text().nullable(),
    weightValue: decimal().nullable(),
    weightUnitId: p.text().nullable(),
    /** Whether the platform counts its stock (Shopify's InventoryItem.tracked): an untracked item is not stock. */
    tracked: p.boolean().default(true),
    /** Shopify's `updated_at` of the product the row came from (null: a dataset's row). */
    updatedAt: timestamp().nullable(),
    /** Shopify's `updated_at` of the inventory item (cost, tracked), whose webhooks carry their own (null: not seen yet). */
    itemUpdatedAt: timestamp().nullable(),
  },
  indexes: [{ properties: ['shopId', 'productId'] }, { properties: ['shopId', 'inventoryItemId'] }],
});

/** Available quantity of a platform variant at a location (whole units on the platform). */
export const PlatformLevel = defineEntity({
  name: 'PlatformLevel',
  tableName: 'platform_levels',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    variantId: p.text().primary(),
    locationId: p.text().primary(),
    available: decimal(),
    /** Shopify's `updated_at` of the level (null: a dataset's row). */
    updatedAt: timestamp().nullable(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

export const PlatformOrder = defineEntity({
  name: 'PlatformOrder',
  tableName: 'platform_orders',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(), orderId: p.text().primary(), name: p.text(),
    /** Shopify's `updated_at` of the order (null: a dataset's row). */
    updatedAt: timestamp().nullable(),
    /**
     * One of the shop's open orders (the sync, webhooks and reconciliation keep those); false: a
     * closed, cancelled or older order a read named, read from the platform on demand and kept as
     * history. A history order reserves nothing and is left out when every order is read.
     */
    open: p.boolean().default(true),
    /** The order's note (Shopify's `Order.note`); null: none. */
    note: p.text().nullable(),
  },
});

export const PlatformOrderLine = defineEntity({
  name: 'PlatformOrderLine',
  tableName: 'platform_order_lines',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    orderId: p.text().primary(),
    position: p.integer().primary(),
    variantId: p.text().nullable(),
    productId: p.text().nullable(),
    sku: p.text().nullable(),
    title: p.text(),
    quantity: decimal(),
  },
  indexes: [{ properties: ['shopId', 'variantId'] }],
});

/** Order metafields written back through the gateway (e.g. `bomcore.material_requirements_json`). */
export const PlatformOrderMetafield = defineEntity({
  name: 'PlatformOrderMetafield',
  tableName: 'platform_order_metafields',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    orderId: p.text().primary(),
    namespace: p.text().primary(),
    key: p.text().primary(),
    value: p.json<unknown>(),
    updatedAt: timestamp(),
  },
});

/**
 * The platform side's idempotency record: every bomcore outbox push (`pushId`) the local platform
 * store has applied to its levels. A push already recorded here is skipped, so a retried push is
 * applied exactly once.
 */
export const PlatformAppliedPush = defineEntity({
  name: 'PlatformAppliedPush',
  tableName: 'platform_applied_pushes',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    pushId: p.text().primary(),
    appliedAt: timestamp(),
  },
});
