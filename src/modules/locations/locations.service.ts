import type { ShopContext } from '../../kernel/shop-context.ts';

export interface LocationView { locationId: string; locationGid: string; name: string }

/** A bare numeric location id and its global-id form. */
export function locationGid(platformName: string, locationId: string): string {
  return `gid://${platformName}/Location/${locationId}`;
}

export async function listLocations(ctx: ShopContext): Promise<LocationView[]> {
  const locations = await ctx.platform.listLocations();
  return locations.map((l) => ({ locationId: l.locationId, locationGid: locationGid(ctx.config.platformName, l.locationId), name: l.name }));
}
