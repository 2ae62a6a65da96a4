import { exact, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { runSql } from '../../db/typed-sql.ts';
import { isPlatformVariantId } from './stock-vocabulary.ts';
import { stockSql } from './tables.ts';

/**
 * Live levels of materials at each of the locations: the service's own for virtual materials, the
 * platform's (pending outbox pushes included) for platform-linked ones. Two reads at most, whatever
 * the number of locations.
 */
export async function levelsAtEach(ctx: ShopContext, variantIds: readonly string[], locationIds: readonly string[]): Promise<Map<string, Map<string, Exact>>> {
  const byLocation = new Map<string, Map<string, Exact>>(locationIds.map((l) => [l, new Map()]));
  if (locationIds.length === 0) return byLocation;
  const virtual = variantIds.filter((v) => !isPlatformVariantId(v));
  const platform = variantIds.filter((v) => isPlatformVariantId(v));
  const [own, live] = await Promise.all([
    virtual.length === 0 ? [] : runSql(ctx.em, stockSql.selectFrom('material_levels')
      .select(['variant_id', 'location_id', 'available'])
      .where('shop_id', '=', ctx.shopId).where('location_id', 'in', locationIds).where('variant_id', 'in', virtual)),
    platform.length === 0 ? [] : ctx.platform.getLevels(platform, [...locationIds])
      .then((rows) => rows.map((r) => ({ variant_id: r.variantId, location_id: r.locationId, available: r.available }))),
  ]);
  for (const r of [...own, ...live]) byLocation.get(r.location_id)?.set(r.variant_id, exact(r.available));
  return byLocation;
}

/** Live levels of materials at one location (levelsAtEach for one). */
export async function levelsAt(ctx: ShopContext, variantIds: readonly string[], locationId: string): Promise<Map<string, Exact>> {
  return (await levelsAtEach(ctx, variantIds, [locationId])).get(locationId)!;
}

/** Pre-assembled units of the given items at each of the locations, in one read. */
export async function shelvesAtEach(ctx: ShopContext, itemIds: readonly string[], locationIds: readonly string[]): Promise<Map<string, Map<string, Exact>>> {
  const byLocation = new Map<string, Map<string, Exact>>(locationIds.map((l) => [l, new Map()]));
  if (itemIds.length === 0 || locationIds.length === 0) return byLocation;
  const rows = await runSql(ctx.em, stockSql.selectFrom('preassembled_stock')
    .select(['item_id', 'location_id', 'quantity'])
    .where('shop_id', '=', ctx.shopId).where('location_id', 'in', locationIds).where('item_id', 'in', itemIds));
  for (const r of rows) byLocation.get(r.location_id)?.set(r.item_id, exact(r.quantity));
  return byLocation;
}

/**
 * Pre-assembled units of the given items at one location. `forUpdate` locks the rows (inside the
 * caller's transaction) so two runs never count the same shelf units.
 */
export async function shelvesAt(ctx: ShopContext, itemIds: readonly string[], locationId: string, options: { forUpdate?: boolean } = {}): Promise<Map<string, Exact>> {
  if (itemIds.length === 0) return new Map();
  const query = stockSql.selectFrom('preassembled_stock')
    .select(['item_id', 'quantity'])
    .where('shop_id', '=', ctx.shopId).where('location_id', '=', locationId).where('item_id', 'in', itemIds)
    .orderBy('item_id');
  const rows = await runSql(ctx.em, options.forUpdate ? query.forUpdate() : query);
  return new Map(rows.map((r) => [r.item_id, exact(r.quantity)]));
}
