import { defineEntity, p } from '@mikro-orm/core';
import { decimal, tenantFilter } from '../../db/columns.ts';
import { BILL_OWNER_TYPES } from '../boms/recipe-vocabulary.ts';
import { RESERVATION_KINDS, RESIDUAL_KINDS } from './stock-vocabulary.ts';

/** Countable pre-assembled shelf stock: finished goods by variantId, assembly bills by assemblyId. */
export const PreassembledStock = defineEntity({
  name: 'PreassembledStock',
  tableName: 'preassembled_stock',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    itemId: p.text().primary(),
    locationId: p.text().primary(),
    quantity: decimal(),
  },
  indexes: [{ properties: ['shopId', 'locationId'] }],
});

/** Fractional remainders carried from recipe consumption (0 <= quantity < 1). Never availability. */
export const Residual = defineEntity({
  name: 'Residual',
  tableName: 'residuals',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    itemId: p.text().primary(),
    locationId: p.text().primary(),
    kind: p.enum(RESIDUAL_KINDS).primary(),
    quantity: decimal(),
  },
});

/** A commitment on a stock item: an order's open quantity or a bill's safety-stock hold. */
export const Reservation = defineEntity({
  name: 'Reservation',
  tableName: 'reservations',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    reservationId: p.text().primary(),
    kind: p.enum(RESERVATION_KINDS),
    itemId: p.text(),
    locationId: p.text(),
    orderId: p.text().nullable(),
    ownerType: p.enum(BILL_OWNER_TYPES).nullable(),
    ownerId: p.text().nullable(),
    quantity: decimal(),
    fulfilledQuantity: decimal().default('0'),
    active: p.boolean().default(true),
  },
  indexes: [{ properties: ['shopId', 'itemId', 'locationId'] }, { properties: ['shopId', 'orderId'] }],
});
