/**
 * The port to the e-commerce platform. bomcore never reads the platform's tables directly: every
 * read of locations, variants, live levels and orders, and every metafield write, goes through
 * this interface. `LocalPlatformGateway` serves it from the local platform store (datasets);
 * an adapter for a real platform API implements the same methods.
 */
export interface PlatformLocationInfo { locationId: string; name: string }

export interface PlatformLevelInfo { variantId: string; locationId: string; available: string }

export interface PlatformVariantInfo {
  variantId: string; productId: string; inventoryItemId: string; productName: string; variantName: string | null;
  sku: string | null; vendor: string | null; price: string | null; cost: string | null; imageUrl: string | null;
}

export interface PlatformOrderLineInfo { variantId: string | null; productId: string | null; sku: string | null; title: string; quantity: string }
export interface PlatformOrderInfo { orderId: string; name: string; lineItems: PlatformOrderLineInfo[] }

export interface OrderMetafieldInfo { orderId: string; namespace: string; key: string; value: unknown; updatedAt: Date }

export interface PlatformGateway {
  /** All locations of the shop, ordered by name then id. */
  listLocations(): Promise<PlatformLocationInfo[]>;
  /** Live levels of the given variants; `locationIds` null means every location. One round trip. */
  getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]>;
  /** Catalogue data of the given variants (unknown ids are absent). One round trip. */
  getVariants(variantIds: readonly string[]): Promise<PlatformVariantInfo[]>;
  /** Orders with their line items, in id order; `null` = every order of the shop. Unknown ids are absent. */
  getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]>;
  /** Creates or replaces order metafields (one write for the batch). */
  writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void>;
  readOrderMetafields(orderIds: readonly string[], namespace: string, key: string): Promise<OrderMetafieldInfo[]>;
}

export type PlatformGatewayFactory = (shop: { shopId: string; em: import('../db/orm.ts').Em }) => PlatformGateway;
