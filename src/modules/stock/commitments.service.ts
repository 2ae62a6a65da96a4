import { sql } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { compareLocationIds, normaliseScope } from '../locations/location-scope.ts';
import { billNameSql } from '../boms/for-stock.ts';
import { assertStockItem, HOLDER_CAP, locationNames, type MaterialExistsSql } from './holders.ts';
import { stockSql } from './tables.ts';
import { UNLOCATED, type CommitmentHolderType } from './stock-vocabulary.ts';

/** Who holds committed units: an order (open quantity) or a bill (active safety-stock hold). */
export interface CommitmentHolder { holderType: CommitmentHolderType; holderId: string; name: string; quantity: string }

export interface CommitmentLevel {
  locationId: string;
  locationName: string | null;
  orders: string;
  safetyStock: string;
  holders: CommitmentHolder[];
  otherHoldersCount: number;
  otherHoldersQuantity: string;
}

export interface CommitmentsView { variantId: string; levels: CommitmentLevel[]; totals: { orders: string; safetyStock: string; unlocated: string } }

/**
 * Commitments on a stock item per location: `orders` = Σ open quantity (quantity − fulfilled, never
 * below 0) of order reservations, `safetyStock` = Σ active safety-stock holds. Holders are grouped
 * per order / bill, ranked and capped at 20 per location in SQL, with the per-location sums taken
 * over every holder (window functions), so the payload and the round trips (4) stay constant.
 * Order reservations without a location (UNLOCATED) form no level: their sum is `totals.unlocated`.
 */
export async function commitmentsOf(
  ctx: ShopContext, variantId: string, locationIds: readonly string[] | null, materialExists: MaterialExistsSql,
): Promise<CommitmentsView> {
  const scope = normaliseScope(locationIds);
  const open = sql<string>`greatest(quantity - fulfilled_quantity, 0)`;
  const query = stockSql
    .with('h', (db) => db.selectFrom('reservations')
      .select((eb) => ['location_id', sql<CommitmentHolderType>`'order'`.as('holder_type'), eb.ref('order_id').$notNull().as('holder_id'), eb.fn.sum<string>(open).as('quantity')])
      .where('shop_id', '=', ctx.shopId).where('item_id', '=', variantId).where('kind', '=', sql.lit('order'))
      .$if(scope !== null, (q) => q.where('location_id', 'in', scope!))
      .groupBy(['location_id', 'order_id']).having((eb) => eb(eb.fn.sum(open), '>', sql.lit(0)))
      .unionAll(db.selectFrom('reservations')
        .select((eb) => [
          'location_id', sql<CommitmentHolderType>`coalesce(owner_type, 'bom')`.as('holder_type'), sql<string>`coalesce(owner_id, '')`.as('holder_id'),
          eb.fn.sum<string>('quantity').as('quantity'),
        ])
        .where('shop_id', '=', ctx.shopId).where('item_id', '=', variantId).where('kind', '=', sql.lit('safetyStock')).where((eb) => eb.ref('active'))
        .$if(scope !== null, (q) => q.where('location_id', 'in', scope!))
        .groupBy(['location_id', 'owner_type', 'owner_id']).having((eb) => eb(eb.fn.sum('quantity'), '>', sql.lit(0)))))
    .with('ranked', (db) => db.selectFrom('h').selectAll('h').select([
      sql<string>`row_number() over (partition by location_id order by quantity desc, holder_type, holder_id)`.as('rn'),
      sql<string>`count(*) over (partition by location_id)`.as('holder_count'),
      sql<string>`sum(case when holder_type = 'order' then quantity else 0 end) over (partition by location_id)`.as('orders'),
      sql<string>`sum(case when holder_type <> 'order' then quantity else 0 end) over (partition by location_id)`.as('safety_stock'),
    ]))
    .selectFrom('ranked as r').selectAll('r')
    .select((eb) => billNameSql(ctx.shopId, eb.ref('r.holder_type'), eb.ref('r.holder_id')).as('bill_name'))
    .where('r.rn', '<=', sql.lit(String(HOLDER_CAP)))
    .orderBy('r.location_id').orderBy('r.rn');
  const [, rows, names] = await Promise.all([
    assertStockItem(ctx, variantId, materialExists),
    runSql(ctx.em, query),
    locationNames(ctx),
  ]);
  const orderIds = [...new Set(rows.filter((r) => r.holder_type === 'order').map((r) => r.holder_id))];
  const orderNames = new Map((orderIds.length ? await ctx.platform.getOrders(orderIds) : []).map((o) => [o.orderId, o.name]));
  const levels = new Map<string, CommitmentLevel & { shown: Exact; count: number }>();
  for (const r of rows) {
    let level = levels.get(r.location_id);
    if (!level) {
      level = {
        locationId: r.location_id, locationName: names.get(r.location_id) ?? null,
        orders: exact(r.orders).toFixed(), safetyStock: exact(r.safety_stock).toFixed(),
        holders: [], otherHoldersCount: 0, otherHoldersQuantity: '0', shown: ZERO, count: Number(r.holder_count),
      };
      levels.set(r.location_id, level);
    }
    const name = r.holder_type === 'order' ? (orderNames.get(r.holder_id) ?? r.holder_id) : (r.bill_name ?? r.holder_id);
    level.holders.push({ holderType: r.holder_type, holderId: r.holder_id, name, quantity: exact(r.quantity).toFixed() });
    level.shown = level.shown.plus(r.quantity);
  }
  const unlocated = levels.get(UNLOCATED)?.orders ?? '0';
  levels.delete(UNLOCATED);
  const result = [...levels.values()].sort((a, b) => compareLocationIds(a.locationId, b.locationId)).map(({ shown, count, ...level }) => ({
    ...level,
    otherHoldersCount: count - level.holders.length,
    otherHoldersQuantity: exact(level.orders).plus(level.safetyStock).minus(shown).toFixed(),
  }));
  const sum = (f: 'orders' | 'safetyStock') => result.reduce((s, l) => s.plus(l[f]), ZERO).toFixed();
  return { variantId, levels: result, totals: { orders: sum('orders'), safetyStock: sum('safetyStock'), unlocated } };
}
