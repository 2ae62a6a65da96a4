import { exact, type Exact } from '../../numbers/index.ts';
import type { ShopContext } from '../../shop-context.ts';
import { isPlatformVariantId } from './stock-vocabulary.ts';

/**
 * Live levels of materials at one location: the service's own for virtual materials, the
 * platform's (pending outbox pushes included) for platform-linked ones. Two reads at most.
 */
export async function levelsAt(ctx: ShopContext, variantIds: readonly string[], locationId: string): Promise<Map<string, Exact>> {
  const virtual = variantIds.filter((v) => !isPlatformVariantId(v));
  const platform = variantIds.filter((v) => isPlatformVariantId(v));
  const [own, live] = await Promise.all([
    virtual.length === 0 ? [] : ctx.em.execute<{ variant_id: string; available: string }[]>(
      'select variant_id, available from material_levels where shop_id = ? and location_id = ? and variant_id in (?)', [ctx.shopId, locationId, virtual]),
    platform.length === 0 ? [] : ctx.platform.getLevels(platform, [locationId]).then((rows) => rows.map((r) => ({ variant_id: r.variantId, available: r.available }))),
  ]);
  return new Map([...own, ...live].map((r) => [r.variant_id, exact(r.available)]));
}

/**
 * Pre-assembled units of the given items at one location. `forUpdate` locks the rows (inside the
 * caller's transaction) so two runs never count the same shelf units.
 */
export async function shelvesAt(ctx: ShopContext, itemIds: readonly string[], locationId: string, options: { forUpdate?: boolean } = {}): Promise<Map<string, Exact>> {
  if (itemIds.length === 0) return new Map();
  const rows = await ctx.em.execute<{ item_id: string; quantity: string }[]>(
    `select item_id, quantity from preassembled_stock where shop_id = ? and location_id = ? and item_id in (?)
      order by item_id${options.forUpdate ? ' for update' : ''}`,
    [ctx.shopId, locationId, [...itemIds]],
  );
  return new Map(rows.map((r) => [r.item_id, exact(r.quantity)]));
}
