import { exact, ZERO } from '../../kernel/numbers/index.ts';
import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { InventoryLevelView, InventoryView } from './inventory.service.ts';
import { compareLocationIds, normaliseScope } from '../locations/location-scope.ts';
import { virtualLevelsIn } from '../stock/for-materials.ts';
import { materialColumns, toMaterialView, type MaterialView } from './material-view.ts';
import { materialsSql } from './tables.ts';

// Batched reads of materials by id (GraphQL loaders, federation entities): one statement for any
// number of ids, always filtered on the caller's shop.

/** The shop's materials among `variantIds`, by id (unknown ids and other shops' ids are absent). */
export async function materialsByIds(ctx: ShopContext, variantIds: readonly string[]): Promise<Map<string, MaterialView>> {
  const ids = [...new Set(variantIds)];
  if (ids.length === 0) return new Map();
  const rows = await runSql(ctx.em, materialsSql.selectFrom('materials as m').select(materialColumns)
    .where('m.shop_id', '=', ctx.shopId).where('m.variant_id', 'in', ids));
  return new Map(rows.map((r) => [r.variantId, toMaterialView(r)]));
}

/**
 * Per-location stock of many materials within one scope (null = every location): the figures of
 * `materialInventory` (live platform levels for platform-linked materials, the service's own
 * levels for virtual ones, sorted by location id, totals over the scope) for a whole batch in at
 * most three reads: platform levels, platform location names (`locationNames`, for callers that
 * already hold them), virtual levels.
 */
export async function materialInventories(
  ctx: ShopContext, materials: readonly MaterialView[], locationIds: readonly string[] | null,
  locationNames: () => Promise<ReadonlyMap<string, string>> = () => platformLocationNames(ctx),
): Promise<Map<string, InventoryView>> {
  const scope = normaliseScope(locationIds);
  const platformIds = materials.filter((m) => m.origin === 'platform').map((m) => m.variantId);
  const virtualIds = materials.filter((m) => m.origin === 'virtual').map((m) => m.variantId);
  const [live, names, own] = await Promise.all([
    platformIds.length ? ctx.platform.getLevels(platformIds, scope) : [],
    platformIds.length ? locationNames() : new Map<string, string>(),
    virtualLevelsIn(ctx, virtualIds, scope),
  ]);
  const levelsOf = new Map<string, InventoryLevelView[]>(materials.map((m) => [m.variantId, []]));
  for (const l of live) levelsOf.get(l.variantId)?.push({ locationId: l.locationId, locationName: names.get(l.locationId) ?? null, available: exact(l.available).toFixed() });
  for (const l of own) levelsOf.get(l.variant_id)?.push({ locationId: l.location_id, locationName: null, available: exact(l.available).toFixed() });
  return new Map(materials.map((m) => {
    const levels = levelsOf.get(m.variantId)!.sort((a, b) => compareLocationIds(a.locationId, b.locationId));
    const total = levels.reduce((sum, l) => sum.plus(l.available), ZERO);
    return [m.variantId, { variantId: m.variantId, origin: m.origin, totalAvailable: total.toFixed(), cachedQuantity: m.cachedQuantity, levels }];
  }));
}

async function platformLocationNames(ctx: ShopContext): Promise<ReadonlyMap<string, string>> {
  return new Map((await ctx.platform.listLocations()).map((l) => [l.locationId, l.name]));
}
