import { sql } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { exact, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { isPlatformVariantId, UNLOCATED } from './stock-vocabulary.ts';
import { stockSql } from './tables.ts';

// What the planning module (a higher tier) reads of stock, whole-shop and set-based: the live
// level of every material at every location (virtual: the service's own; platform-linked: the
// platform's, pending pushes included, as every read shows them), every pre-assembled shelf, the
// open order reservations and the active safety-stock holds. Four reads, whatever the shop's size.

export interface PlanningStock {
  /** location → material variantId → live level (as read: may be negative). */
  levels: Map<string, Map<string, Exact>>;
  /** location → item (a finished good's variantId or an assemblyId) → pre-assembled units. */
  shelves: Map<string, Map<string, Exact>>;
  /** Order reservations with an open quantity (quantity − fulfilledQuantity > 0); `locationId` null = unlocated. */
  orders: { itemId: string; locationId: string | null; orderId: string; open: Exact }[];
  /** Active safety-stock holds, by the bill that holds them. */
  safetyStock: { itemId: string; locationId: string; ownerId: string; quantity: Exact }[];
}

const put = (map: Map<string, Map<string, Exact>>, location: string, item: string, value: Exact) => {
  let at = map.get(location);
  if (!at) map.set(location, (at = new Map()));
  // The first row of a key is kept as it is (no zero and no sum built per row: a shop's levels are
  // tens of thousands of rows, each held until the plan is written).
  const known = at.get(item);
  at.set(item, known === undefined ? value : known.plus(value));
};

/** The shop's stock as planning reads it; `materialIds` are every material of the shop (platform-linked ones are read from the platform). */
export async function planningStock(ctx: ShopContext, materialIds: readonly string[]): Promise<PlanningStock> {
  const platformIds = materialIds.filter(isPlatformVariantId);
  const [virtual, platform, shelves, reservations] = await Promise.all([
    runSql(ctx.em, stockSql.selectFrom('material_levels').select(['variant_id', 'location_id', 'available']).where('shop_id', '=', ctx.shopId)),
    platformIds.length === 0 ? [] : ctx.platform.getLevels(platformIds, null),
    runSql(ctx.em, stockSql.selectFrom('preassembled_stock').select(['item_id', 'location_id', 'quantity']).where('shop_id', '=', ctx.shopId)),
    runSql(ctx.em, stockSql.selectFrom('reservations')
      .select(['kind', 'item_id', 'location_id', 'order_id', 'owner_id', sql<string>`(quantity - fulfilled_quantity)::text`.as('open'), 'quantity'])
      .where('shop_id', '=', ctx.shopId)
      .where((eb) => eb.or([
        eb.and([eb('kind', '=', sql.lit('order')), eb(sql`quantity - fulfilled_quantity`, '>', sql.lit(0))]),
        eb.and([eb('kind', '=', sql.lit('safetyStock')), eb.ref('active')]),
      ]))),
  ]);
  const stock: PlanningStock = { levels: new Map(), shelves: new Map(), orders: [], safetyStock: [] };
  const own = new Set(materialIds);
  for (const r of virtual) if (!isPlatformVariantId(r.variant_id)) put(stock.levels, r.location_id, r.variant_id, exact(r.available));
  for (const r of platform) if (own.has(r.variantId)) put(stock.levels, r.locationId, r.variantId, exact(r.available));
  for (const r of shelves) put(stock.shelves, r.location_id, r.item_id, exact(r.quantity));
  for (const r of reservations) {
    if (r.kind === 'order') {
      stock.orders.push({ itemId: r.item_id, locationId: r.location_id === UNLOCATED ? null : r.location_id, orderId: r.order_id ?? '', open: exact(r.open) });
    } else stock.safetyStock.push({ itemId: r.item_id, locationId: r.location_id, ownerId: r.owner_id ?? '', quantity: exact(r.quantity) });
  }
  return stock;
}
