import { sql, type NotNull, type SqlBool } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { Exact, exact, ZERO } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { leafExpander, loadRecipeForest, type BillKey } from '../boms/engine/index.ts';
import { shelfParentsSql } from '../boms/for-stock.ts';
import type { BillOwnerType } from '../boms/recipe-vocabulary.ts';
import { compareLocationIds, normaliseScope } from '../locations/location-scope.ts';
import { capHolders, locationNames, type MaterialExistsSql } from './holders.ts';
import { stockSql } from './tables.ts';

export interface ShelfHolder {
  holderType: BillOwnerType;
  holderId: string;
  name: string;
  /** Available shelf units of the parent: pre-assembled − committed (open orders + active safety stock), never below 0. */
  shelfUnits: string;
  /** Units of the material in one unit of the parent at this location (every depth, waste included). */
  quantityPerUnit: string;
  /** shelfUnits × quantityPerUnit. */
  quantity: string;
}

export interface ShelfLevel { locationId: string; locationName: string | null; quantity: string; holders: ShelfHolder[]; otherHoldersCount: number; otherHoldersQuantity: string }
export interface ShelfAllocationView { variantId: string; levels: ShelfLevel[]; totals: { quantity: string } }

/**
 * Units of a material embedded in available pre-assembled shelf stock, per location, for every
 * parent (BOM finished good or assembly bill) that consumes it at any depth, waste included, with
 * that location's rules. Committed shelf units are excluded (they show under commitments).
 * Round trips: material check, parents-with-shelves CTE, recipe forest, location names.
 */
export async function shelfAllocationOf(
  ctx: ShopContext, variantId: string, locationIds: readonly string[] | null, materialExists: MaterialExistsSql,
): Promise<ShelfAllocationView> {
  const scope = normaliseScope(locationIds);
  const [found, shelves, names] = await Promise.all([
    runSql(ctx.em, stockSql.selectNoFrom(() => [sql<SqlBool>`${materialExists(ctx.shopId, variantId)}`.as('found')])),
    runSql(ctx.em, stockSql.with('shelf_parents', () => shelfParentsSql(ctx.shopId, variantId))
      .selectFrom('shelf_parents as p')
      .innerJoin('preassembled_stock as s', (join) => {
        const on = join.on('s.shop_id', '=', ctx.shopId).onRef('s.item_id', '=', 'p.item_id');
        return scope ? on.on('s.location_id', 'in', scope) : on;
      })
      .select((eb) => [
        'p.owner_type', 'p.owner_id', 'p.name', 's.location_id', 's.quantity',
        eb.selectFrom('reservations as r')
          .select(sql<string>`coalesce(sum(case when r.kind = 'order' then greatest(r.quantity - r.fulfilled_quantity, 0)
                                           when r.active then r.quantity else 0 end), 0)`.as('committed'))
          .whereRef('r.shop_id', '=', 's.shop_id').whereRef('r.item_id', '=', 's.item_id').whereRef('r.location_id', '=', 's.location_id')
          .as('committed'),
      ])
      .$narrowType<{ committed: NotNull }>()),
    locationNames(ctx),
  ]);
  if (found[0]?.found !== true) throw DomainError.notFound('raw material', variantId);

  const available = shelves
    .map((s) => ({ ...s, units: Exact.max(exact(s.quantity).minus(s.committed), 0) }))
    .filter((s) => s.units.gt(0));
  const roots = new Map<string, BillKey>(available.map((s) => [`${s.owner_type}:${s.owner_id}`, { ownerType: s.owner_type, ownerId: s.owner_id }]));
  const forest = await loadRecipeForest(ctx, [...roots.values()]);
  const byLocation = new Map<string, (Omit<ShelfHolder, 'shelfUnits' | 'quantityPerUnit' | 'quantity'> & { shelfUnits: Exact; perUnit: Exact; quantity: Exact })[]>();
  // One expander per location: parents sharing assemblies expand them once there.
  const expanders = new Map<string, (bill: BillKey) => ReadonlyMap<string, Exact>>();
  for (const s of available) {
    const leavesOf = expanders.get(s.location_id) ?? leafExpander(forest, s.location_id);
    expanders.set(s.location_id, leavesOf);
    const perUnit = leavesOf({ ownerType: s.owner_type, ownerId: s.owner_id }).get(variantId);
    if (!perUnit || perUnit.isZero()) continue;
    const list = byLocation.get(s.location_id) ?? [];
    list.push({ holderType: s.owner_type, holderId: s.owner_id, name: s.name, shelfUnits: s.units, perUnit, quantity: s.units.times(perUnit) });
    byLocation.set(s.location_id, list);
  }
  const levels = [...byLocation].sort(([a], [b]) => compareLocationIds(a, b)).map(([locationId, all]): ShelfLevel => {
    const capped = capHolders(all);
    return {
      locationId, locationName: names.get(locationId) ?? null,
      quantity: all.reduce((sum, h) => sum.plus(h.quantity), ZERO).toFixed(),
      holders: capped.holders.map((h) => ({
        holderType: h.holderType, holderId: h.holderId, name: h.name, shelfUnits: h.shelfUnits.toFixed(),
        quantityPerUnit: h.perUnit.toFixed(), quantity: h.quantity.toFixed(),
      })),
      otherHoldersCount: capped.otherHoldersCount, otherHoldersQuantity: capped.otherHoldersQuantity.toFixed(),
    };
  });
  return { variantId, levels, totals: { quantity: levels.reduce((sum, l) => sum.plus(l.quantity), ZERO).toFixed() } };
}
