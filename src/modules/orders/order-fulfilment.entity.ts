import { defineEntity, p } from '@mikro-orm/core';
import { tenantFilter, timestamp } from '../../db/columns.ts';

/**
 * The platform fulfilments whose stock bomcore has consumed, one row each: a fulfilment is applied
 * once, keyed by the platform's fulfilment id, so replayed webhooks and reconciliation passes find
 * it here and consume nothing again. Written in the consumption's transaction.
 */
export const OrderFulfilment = defineEntity({
  name: 'OrderFulfilment',
  tableName: 'order_fulfilments',
  filters: tenantFilter,
  properties: {
    shopId: p.text().primary(),
    fulfilmentId: p.text().primary(),
    orderId: p.text(),
    /** Where the fulfilment shipped from and stock was consumed. */
    locationId: p.text(),
    appliedAt: timestamp(),
  },
  indexes: [{ properties: ['shopId', 'orderId'] }],
});
