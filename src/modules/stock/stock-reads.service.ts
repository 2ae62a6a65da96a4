import { sql, type SqlBool } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { compareLocationIds, normaliseScope } from '../locations/location-scope.ts';
import { assemblyBillExistsSql } from '../boms/for-stock.ts';
import { assertStockItem, locationNames, type MaterialExistsSql } from './holders.ts';
import { stockSql } from './tables.ts';
import type { ResidualKind, ShelfItemType } from './stock-vocabulary.ts';

export interface ResidualLevel { locationId: string; locationName: string | null; buildRun: string; safetyStock: string }
export interface ResidualView { variantId: string; levels: ResidualLevel[]; totals: { buildRun: string; safetyStock: string } }

/**
 * Fractional remainders of a stock item per location, both kinds side by side. Bookkeeping only:
 * never part of an availability number. Three round trips (item check, residuals, location names).
 */
export async function residualsOf(
  ctx: ShopContext, variantId: string, locationIds: readonly string[] | null, materialExists: MaterialExistsSql,
): Promise<ResidualView> {
  const scope = normaliseScope(locationIds);
  const [, rows, names] = await Promise.all([
    assertStockItem(ctx, variantId, materialExists),
    runSql(ctx.em, stockSql.selectFrom('residuals').select(['location_id', 'kind', 'quantity'])
      .where('shop_id', '=', ctx.shopId).where('item_id', '=', variantId).$if(scope !== null, (q) => q.where('location_id', 'in', scope!))),
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
  ctx: ShopContext, itemType: ShelfItemType, itemId: string, locationIds: readonly string[] | null, materialExists: MaterialExistsSql,
): Promise<PreassembledView> {
  const scope = normaliseScope(locationIds);
  const exists = itemType === 'variant'
    ? assertStockItem(ctx, itemId, materialExists)
    : runSql(ctx.em, stockSql.selectNoFrom(() => [sql<SqlBool>`${assemblyBillExistsSql(ctx.shopId, itemId)}`.as('found')])).then(([r]) => {
      if (r?.found !== true) throw DomainError.notFound('assembly bill', itemId);
    });
  const [, rows, names] = await Promise.all([
    exists,
    runSql(ctx.em, stockSql.selectFrom('preassembled_stock').select(['location_id', 'quantity'])
      .where('shop_id', '=', ctx.shopId).where('item_id', '=', itemId).$if(scope !== null, (q) => q.where('location_id', 'in', scope!))),
    locationNames(ctx),
  ]);
  const levels = rows.sort((a, b) => compareLocationIds(a.location_id, b.location_id)).map((r) => ({
    locationId: r.location_id, locationName: names.get(r.location_id) ?? null, quantity: exact(r.quantity).toFixed(),
  }));
  return { itemId, itemType, levels, totals: { quantity: levels.reduce((s, l) => s.plus(l.quantity), ZERO).toFixed() } };
}
