import type { PlatformOrderInfo, PlatformOrderLineInfo } from '../../../src/kernel/platform-port/gateway.ts';
import { DomainError } from '../../../src/kernel/domain-error.ts';
import { builder } from '../../builder.ts';
import { loadersOf } from '../../loaders.ts';
import { OrderBreakdownRef } from './breakdown.ts';

// The platform's order as this service knows it. The platform owns the id, name and line items
// (other subgraphs may resolve them too: @shareable); the BOM breakdown is this service's own.

export const OrderLineItemRef = builder.objectRef<PlatformOrderLineInfo>('OrderLineItem').implement({
  description: 'A line of a platform order.',
  shareable: true,
  fields: (t) => ({
    variantId: t.exposeString('variantId', { nullable: true, description: 'The ordered platform variant (null for a custom line).' }),
    productId: t.exposeString('productId', { nullable: true, description: 'The ordered platform product.' }),
    sku: t.exposeString('sku', { nullable: true, description: 'The variant\'s SKU when the order was placed.' }),
    title: t.exposeString('title', { description: 'The line\'s title as the platform shows it.' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Ordered quantity.' }),
  }),
});

export const OrderRef = builder.objectRef<PlatformOrderInfo>('Order').implement({
  description: 'A platform order: its id, name and line items (owned by the platform), and the BOM breakdown this service computes from them.',
  fields: (t) => ({
    orderId: t.exposeString('orderId', { shareable: true, description: 'Bare numeric platform order id, e.g. "5001".' }),
    name: t.exposeString('name', { shareable: true, description: 'The order\'s display name, e.g. "#1001".' }),
    lineItems: t.field({
      type: [OrderLineItemRef],
      shareable: true,
      description: 'The order\'s lines, in platform order.',
      resolve: (order) => order.lineItems,
    }),
    breakdown: t.field({
      type: OrderBreakdownRef,
      description: 'What the warehouse must pack: every BOM line expanded to leaf raw materials, computed from the current line items (the figures of `orderBomBreakdown`). Batched over a list of orders.',
      args: {
        locationId: t.arg.id({ required: false, description: 'Apply the location rules of this bare numeric location id; absent: base recipes. NOT_FOUND for a location the shop does not have.' }),
      },
      resolve: async (order, args, ctx) => {
        const locationId = args.locationId === null || args.locationId === undefined ? null : String(args.locationId);
        if (locationId !== null && !(await loadersOf(ctx).location.load(locationId))) throw DomainError.notFound('location', locationId);
        return loadersOf(ctx).breakdown(locationId).load(order);
      },
    }),
  }),
});

builder.queryField('order', (t) =>
  t.field({
    type: OrderRef,
    description: 'One platform order by bare id or gid://<platform>/Order/<digits>; NOT_FOUND when it does not resolve in the shop.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true, description: 'Bare numeric order id or its global id.' }) },
    resolve: async (_root, args, ctx) => {
      const order = await loadersOf(ctx).order.load(String(args.id));
      if (!order) throw DomainError.notFound('order', String(args.id));
      return order;
    },
  }),
);
