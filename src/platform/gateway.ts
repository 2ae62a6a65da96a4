/**
 * The port to the e-commerce platform. bomcore never reads the platform's tables directly: every
 * read of locations, variants, live levels and orders, and every metafield write, goes through
 * this interface. `LocalPlatformGateway` serves it from the local platform store (datasets);
 * an adapter for a real platform API implements the same methods.
 */
export interface PlatformLocationInfo { locationId: string; name: string }

export interface PlatformLevelInfo { variantId: string; locationId: string; available: string }

export interface PlatformGateway {
  /** All locations of the shop, ordered by name then id. */
  listLocations(): Promise<PlatformLocationInfo[]>;
  /** Live levels of the given variants; `locationIds` null means every location. One round trip. */
  getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]>;
}

export type PlatformGatewayFactory = (shop: { shopId: string; em: import('../db/orm.ts').Em }) => PlatformGateway;
