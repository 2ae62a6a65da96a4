import type { Em } from '../db/orm.ts';
import { PlatformLocation, PlatformOrderMetafield, PlatformVariant } from '../modules/platform/platform.entity.ts';
import type {
  OrderMetafieldInfo, PlatformGateway, PlatformLevelInfo, PlatformLocationInfo, PlatformOrderInfo, PlatformVariantInfo,
} from './gateway.ts';

/** Serves the platform port from the local platform store (the `platform` part of a dataset). */
export class LocalPlatformGateway implements PlatformGateway {
  readonly #em: Em;
  readonly #shopId: string;

  constructor(shop: { shopId: string; em: Em }) {
    this.#em = shop.em;
    this.#shopId = shop.shopId;
  }

  async listLocations(): Promise<PlatformLocationInfo[]> {
    const rows = await this.#em.find(PlatformLocation, {}, { orderBy: { name: 'asc', locationId: 'asc' } });
    return rows.map((r) => ({ locationId: r.locationId, name: r.name }));
  }

  async getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]> {
    if (variantIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
    // Plain rows: a buildable read asks for hundreds of variants × dozens of locations, and
    // hydrating an entity per level cost more than the query itself.
    const rows = await this.#em.execute<{ variant_id: string; location_id: string; available: string }[]>(
      `select variant_id, location_id, available from platform_levels
        where shop_id = ? and variant_id in (?)${locationIds ? ' and location_id in (?)' : ''}
        order by variant_id, location_id`,
      locationIds ? [this.#shopId, [...new Set(variantIds)], [...new Set(locationIds)]] : [this.#shopId, [...new Set(variantIds)]],
    );
    return rows.map((r) => ({ variantId: r.variant_id, locationId: r.location_id, available: r.available }));
  }

  async getVariants(variantIds: readonly string[]): Promise<PlatformVariantInfo[]> {
    if (variantIds.length === 0) return [];
    const rows = await this.#em.find(PlatformVariant, { variantId: { $in: [...new Set(variantIds)] } }, { orderBy: { variantId: 'asc' } });
    return rows.map((v) => ({
      variantId: v.variantId, productId: v.productId, inventoryItemId: v.inventoryItemId, productName: v.productName,
      variantName: v.variantName ?? null, sku: v.sku ?? null, vendor: v.vendor ?? null, price: v.price ?? null, cost: v.cost ?? null,
      imageUrl: v.imageUrl ?? null,
    }));
  }

  async getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]> {
    if (orderIds !== null && orderIds.length === 0) return [];
    // One round trip: orders left-joined with their lines, in order and line position.
    const rows = await this.#em.execute<{ order_id: string; name: string; position: number | null; variant_id: string | null; product_id: string | null; sku: string | null; title: string | null; quantity: string | null }[]>(
      `select o.order_id, o.name, l.position, l.variant_id, l.product_id, l.sku, l.title, l.quantity
         from platform_orders o
         left join platform_order_lines l on l.shop_id = o.shop_id and l.order_id = o.order_id
        where o.shop_id = ?${orderIds ? ' and o.order_id in (?)' : ''}
        order by o.order_id, l.position`,
      orderIds ? [this.#shopId, [...new Set(orderIds)]] : [this.#shopId],
    );
    const orders = new Map<string, PlatformOrderInfo>();
    for (const r of rows) {
      let order = orders.get(r.order_id);
      if (!order) orders.set(r.order_id, (order = { orderId: r.order_id, name: r.name, lineItems: [] }));
      if (r.position !== null) {
        order.lineItems.push({ variantId: r.variant_id, productId: r.product_id, sku: r.sku, title: r.title ?? '', quantity: r.quantity ?? '0' });
      }
    }
    return [...orders.values()];
  }

  async writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void> {
    if (entries.length === 0) return;
    const now = new Date();
    await this.#em.upsertMany(PlatformOrderMetafield, entries.map((e) => ({
      shopId: this.#shopId, orderId: e.orderId, namespace: e.namespace, key: e.key, value: e.value, updatedAt: now,
    })));
  }

  async readOrderMetafields(orderIds: readonly string[], namespace: string, key: string): Promise<OrderMetafieldInfo[]> {
    if (orderIds.length === 0) return [];
    const rows = await this.#em.find(PlatformOrderMetafield, { orderId: { $in: [...orderIds] }, namespace, key }, { orderBy: { orderId: 'asc' } });
    return rows.map((r) => ({ orderId: r.orderId, namespace: r.namespace, key: r.key, value: r.value, updatedAt: r.updatedAt }));
  }
}
