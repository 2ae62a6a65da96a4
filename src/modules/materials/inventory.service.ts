import { exact, ZERO } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { compareLocationIds, normaliseScope } from '../locations/location-scope.ts';
import { virtualLevelsIn } from '../stock/for-materials.ts';
import { findMaterialRow } from './material-view.ts';
import type { MaterialOrigin } from './material-vocabulary.ts';

export interface InventoryLevelView { locationId: string; locationName: string | null; available: string }

export interface InventoryView {
  variantId: string;
  origin: MaterialOrigin;
  totalAvailable: string;
  cachedQuantity: string;
  /** Platform-linked levels carry `locationName`; virtual ones do not (null here, omitted in REST). */
  levels: InventoryLevelView[];
}

/**
 * Per-location stock of one material within a scope (null = every location). Platform-linked
 * levels are a live read through the platform gateway; virtual levels are the service's own.
 * A scope that matches nothing gives no levels and 0, never a shop-wide figure.
 */
export async function materialInventory(ctx: ShopContext, variantId: string, locationIds: readonly string[] | null): Promise<InventoryView> {
  const scope = normaliseScope(locationIds);
  const material = await findMaterialRow(ctx, variantId);
  let levels: InventoryLevelView[];
  if (material.origin === 'platform') {
    const [live, locations] = await Promise.all([ctx.platform.getLevels([variantId], scope), ctx.platform.listLocations()]);
    const names = new Map(locations.map((l) => [l.locationId, l.name]));
    levels = live.map((l) => ({ locationId: l.locationId, locationName: names.get(l.locationId) ?? null, available: exact(l.available).toFixed() }));
  } else {
    const rows = await virtualLevelsIn(ctx, [variantId], scope);
    levels = rows.map((r) => ({ locationId: r.location_id, locationName: null, available: exact(r.available).toFixed() }));
  }
  levels.sort((a, b) => compareLocationIds(a.locationId, b.locationId));
  const total = levels.reduce((sum, l) => sum.plus(l.available), ZERO);
  return {
    variantId, origin: material.origin, totalAvailable: total.toFixed(),
    cachedQuantity: exact(material.inventoryQuantity).toFixed(), levels,
  };
}
