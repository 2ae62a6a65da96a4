import type { Em } from '../db/orm.ts';
import { PlatformLevel, PlatformLocation } from '../modules/platform/platform.entity.ts';
import type { PlatformGateway, PlatformLevelInfo, PlatformLocationInfo } from './gateway.ts';

/** Serves the platform port from the local platform store (the `platform` part of a dataset). */
export class LocalPlatformGateway implements PlatformGateway {
  readonly #em: Em;

  constructor(shop: { shopId: string; em: Em }) {
    this.#em = shop.em;
  }

  async listLocations(): Promise<PlatformLocationInfo[]> {
    const rows = await this.#em.find(PlatformLocation, {}, { orderBy: { name: 'asc', locationId: 'asc' } });
    return rows.map((r) => ({ locationId: r.locationId, name: r.name }));
  }

  async getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]> {
    if (variantIds.length === 0 || (locationIds && locationIds.length === 0)) return [];
    const where = locationIds
      ? { variantId: { $in: [...variantIds] }, locationId: { $in: [...locationIds] } }
      : { variantId: { $in: [...variantIds] } };
    const rows = await this.#em.find(PlatformLevel, where, { orderBy: { variantId: 'asc', locationId: 'asc' } });
    return rows.map((r) => ({ variantId: r.variantId, locationId: r.locationId, available: r.available }));
  }
}
