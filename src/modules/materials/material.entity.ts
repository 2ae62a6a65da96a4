import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';
import { MATERIAL_ORIGINS } from '../stock/stock-vocabulary.ts';

/**
 * A raw material. Platform-linked materials (numeric variantId) keep a mirror of the platform
 * variant's catalogue fields (refreshed by the gateway sync, read-only in API v1) so that lists
 * can search, filter and sort both origins in one indexed query.
 */
export const Material = defineEntity({
  name: 'Material',
  tableName: 'materials',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    variantId: p.text().primary(),
    origin: p.enum(MATERIAL_ORIGINS),
    productId: p.text(),
    inventoryItemId: p.text(),
    productName: p.text(),
    variantName: p.text().nullable(),
    sku: p.text().nullable(),
    vendor: p.text().nullable(),
    unit: p.text().nullable(),
    unitCost: decimal().nullable(),
    unitPrice: decimal().nullable(),
    specifications: p.text().nullable(),
    imageUrl: p.text().nullable(),
    isNonEssentialMaterial: p.boolean().default(false),
    weightValue: decimal().nullable(),
    weightUnitId: p.text().nullable(),
    productType: p.text().nullable(),
    productCategory: p.text().nullable(),
    /** Platform-linked: the last known platform total. Virtual: unused (levels are the truth). */
    cachedQuantity: decimal().nullable(),
    updatedAt: timestamp().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [
    { properties: ['shopId', 'productName', 'variantId'] },
    { properties: ['shopId', 'variantName', 'variantId'] },
    { properties: ['shopId', 'origin'] },
    { properties: ['shopId', 'vendor'] },
  ],
});

/** Stock levels of virtual materials, owned by this service (may be fractional). */
export const MaterialLevel = defineEntity({
  name: 'MaterialLevel',
  tableName: 'material_levels',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    variantId: p.text().primary(),
    locationId: p.text().primary(),
    available: decimal(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

/** Every applied inventory change, for audit. Kept when a dataset is re-loaded. */
export const InventoryAdjustment = defineEntity({
  name: 'InventoryAdjustment',
  tableName: 'inventory_adjustments',
  filters: tenantFilter,
  properties: {
    id: p.text().primary(),
    shopId: p.text(),
    variantId: p.text(),
    locationId: p.text(),
    before: decimal(),
    after: decimal(),
    delta: decimal(),
    requestedDelta: decimal(),
    source: p.text(),
    /** `material` level or `preassembled` shelf (variantId then holds the item id of the shelf). */
    stock: p.text().default('material'),
    workOrderId: p.text().nullable(),
    buildRunId: p.text().nullable(),
    requestId: p.text().nullable(),
    apiKeyId: p.text().nullable(),
    createdAt: timestamp(),
  },
  indexes: [{ properties: ['shopId', 'variantId', 'createdAt'] }],
});
