import DataLoader from 'dataloader';
import { buildBreakdowns, type OrderBreakdown } from '../../../src/modules/orders/breakdown.service.ts';
import { parseOrderId } from '../../../src/modules/orders/order-ids.ts';
import type { PlatformOrderInfo } from '../../../src/kernel/platform-port/gateway.ts';
import { perArguments, type LoaderFactory } from '../common/loader-part.ts';

export interface OrderLoaders {
  /** Platform orders (id, name, line items) by bare numeric orderId or gid://<platform>/Order/<digits>. */
  order: DataLoader<string, PlatformOrderInfo | null>;
  /** BOM breakdowns of orders, the rules of one location applied (null = base recipes). */
  breakdown(locationId: string | null): DataLoader<PlatformOrderInfo, OrderBreakdown, string>;
}

export const orderLoaders: LoaderFactory<OrderLoaders> = (ctx) => {
  const order = new DataLoader<string, PlatformOrderInfo | null>(async (rawIds) => {
    const parsed = rawIds.map((raw) => parseOrderId(raw, ctx.config.platformName));
    const wanted = [...new Set(parsed.filter((id): id is string => id !== null))];
    const orders = new Map((wanted.length ? await ctx.platform.getOrders(wanted) : []).map((o) => [o.orderId, o]));
    return parsed.map((id) => (id === null ? null : orders.get(id) ?? null));
  });
  const breakdowns = perArguments(
    (locationId: string | null) => new DataLoader<PlatformOrderInfo, OrderBreakdown, string>((orders) => buildBreakdowns(ctx, orders, locationId), { cacheKeyFn: (o) => o.orderId }),
    (locationId) => locationId ?? '*',
  );
  return {
    loaders: { order, breakdown: breakdowns.get },
    clear: () => {
      order.clearAll();
      breakdowns.clear();
    },
  };
};
