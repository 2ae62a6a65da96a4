import { DomainError } from '../../domain-error.ts';
import { exact, ZERO, type Exact } from '../../numbers/index.ts';
import type { ShopContext } from '../../shop-context.ts';
import { compareLocationIds, normaliseScope } from '../platform/location-scope.ts';
import { assertStockItem, locationNames, scopeArgs, scopeSql } from './holders.ts';
import type { ResidualKind, ShelfItemType } from './stock-vocabulary.ts';

export interface ResidualLevel { locationId: string; locationName: string | null; buildRun: string; safetyStock: string }
export interface ResidualView { variantId: string; levels: ResidualLevel[]; totals: { buildRun: string; safetyStock: string } }

/**
 * Fractional remainders of a stock item per location, both kinds side by side. Bookkeeping only:
 * never part of an availability number. Three round trips (item check, residuals, location names).
 */
export async function residualsOf(ctx: ShopContext, variantId: string, locationIds: readonly string[] | null): Promise<ResidualView> {
  const scope = normaliseScope(locationIds);
  const [, rows, names] = await Promise.all([
    assertStockItem(ctx, variantId),
    ctx.em.execute<{ location_id: string; kind: ResidualKind; quantity: string }[]>(
      `select location_id, kind, quantity from residuals where shop_id = ? and item_id = ?${scopeSql(scope)}`,
      [ctx.shopId, variantId, ...scopeArgs(scope)],
    ),
    locationNames(ctx),
  ]);
  const byLocation = new Map<string, { buildRun: Exact; safetyStock: Exact }>();
  for (const r of rows) {
    const level = byLocation.get(r.location_id) ?? { buildRun: ZERO, safetyStock: ZERO };
    level[r.kind] = level[r.kind].plus(r.quantity);
    byLocation.set(r.location_id, level);
  }
  const levels = [...byLocation].sort(([a], [b]) => compareLocationIds(a, b)).map(([locationId, l]) => ({
    locationId, locationName: names.get(locationId) ?? null, buildRun: l.buildRun.toFixed(), safetyStock: l.safetyStock.toFixed(),
  }));
  const sum = (kind: ResidualKind) => levels.reduce((s, l) => s.plus(l[kind]), ZERO).toFixed();
  return { variantId, levels, totals: { buildRun: sum('buildRun'), safetyStock: sum('safetyStock') } };
}

export interface PreassembledLevel { locationId: string; locationName: string | null; quantity: string }
export interface PreassembledView { itemId: string; itemType: ShelfItemType; levels: PreassembledLevel[]; totals: { quantity: string } }

/**
 * Countable pre-assembled shelf stock per location. Finished goods are stocked under their variant
 * id, assembly bills under their assembly id (docs/contract.md: identifiers).
 */
export async function preassembledOf(
  ctx: ShopContext, itemType: ShelfItemType, itemId: string, locationIds: readonly string[] | null,
): Promise<PreassembledView> {
  const scope = normaliseScope(locationIds);
  const exists = itemType === 'variant'
    ? assertStockItem(ctx, itemId)
    : ctx.em.execute<{ n: number }[]>('select 1 as n from assembly_bills where shop_id = ? and assembly_id = ?', [ctx.shopId, itemId]).then((r) => {
      if (r.length === 0) throw DomainError.notFound('assembly bill', itemId);
    });
  const [, rows, names] = await Promise.all([
    exists,
    ctx.em.execute<{ location_id: string; quantity: string }[]>(
      `select location_id, quantity from preassembled_stock where shop_id = ? and item_id = ?${scopeSql(scope)}`,
      [ctx.shopId, itemId, ...scopeArgs(scope)],
    ),
    locationNames(ctx),
  ]);
  const levels = rows.sort((a, b) => compareLocationIds(a.location_id, b.location_id)).map((r) => ({
    locationId: r.location_id, locationName: names.get(r.location_id) ?? null, quantity: exact(r.quantity).toFixed(),
  }));
  return { itemId, itemType, levels, totals: { quantity: levels.reduce((s, l) => s.plus(l.quantity), ZERO).toFixed() } };
}
