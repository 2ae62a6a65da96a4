import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter, timestamp } from '../../db/columns.ts';
import type { ShelfAdjustmentReason } from './stock-vocabulary.ts';

// The stock ledger's tables (src/modules/stock/ledger.ts writes them, the only writer): the levels of
// virtual materials and the audit of every applied change.

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
    /** The platform order and fulfilment whose consumption this was (source `order_fulfilment`). */
    orderId: p.text().nullable(),
    fulfilmentId: p.text().nullable(),
    /** Why a shelf was adjusted by hand (a SHELF_ADJUSTMENT_REASONS value) and the note given; null for other changes. */
    reason: p.text().$type<ShelfAdjustmentReason>().nullable(),
    note: p.text().nullable(),
    requestId: p.text().nullable(),
    apiKeyId: p.text().nullable(),
    createdAt: timestamp(),
  },
  indexes: [{ properties: ['shopId', 'variantId', 'createdAt'] }],
});
