import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';

// What the e-commerce platform holds. Only the local platform adapter reads and writes these
// tables; the rest of the service goes through the PlatformGateway port.

export const PlatformLocation = defineEntity({
  name: 'PlatformLocation',
  tableName: 'platform_locations',
  filters: tenantFilter,
  properties: { shopId: p.string().primary(), locationId: p.string().primary(), name: p.string() },
  indexes: [{ properties: ['shopId', 'name'] }],
});

export const PlatformVariant = defineEntity({
  name: 'PlatformVariant',
  tableName: 'platform_variants',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    variantId: p.string().primary(),
    productId: p.string(),
    inventoryItemId: p.string(),
    productName: p.string(),
    variantName: p.string().nullable(),
    sku: p.string().nullable(),
    vendor: p.string().nullable(),
    price: decimal().nullable(),
    cost: decimal().nullable(),
    imageUrl: p.text().nullable(),
    productType: p.string().nullable(),
    productCategory: p.string().nullable(),
    weightValue: decimal().nullable(),
    weightUnitId: p.string().nullable(),
  },
  indexes: [{ properties: ['shopId', 'productId'] }, { properties: ['shopId', 'inventoryItemId'] }],
});

/** Available quantity of a platform variant at a location (whole units on the platform). */
export const PlatformLevel = defineEntity({
  name: 'PlatformLevel',
  tableName: 'platform_levels',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    variantId: p.string().primary(),
    locationId: p.string().primary(),
    available: decimal(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

export const PlatformOrder = defineEntity({
  name: 'PlatformOrder',
  tableName: 'platform_orders',
  filters: tenantFilter,
  properties: { shopId: p.string().primary(), orderId: p.string().primary(), name: p.string() },
});

export const PlatformOrderLine = defineEntity({
  name: 'PlatformOrderLine',
  tableName: 'platform_order_lines',
  filters: tenantFilter,
  properties: {
    shopId: p.string().primary(),
    orderId: p.string().primary(),
    position: p.integer().primary(),
    variantId: p.string().nullable(),
    productId: p.string().nullable(),
    sku: p.string().nullable(),
    title: p.string(),
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
    shopId: p.string().primary(),
    orderId: p.string().primary(),
    namespace: p.string().primary(),
    key: p.string().primary(),
    value: p.json<unknown>(),
    updatedAt: timestamp(),
  },
});
