import { exact, ZERO, type Exact } from '../../numbers/index.ts';
import type { ShopContext } from '../../shop-context.ts';
import { compareLocationIds, normaliseScope } from '../platform/location-scope.ts';
import { assertStockItem, HOLDER_CAP, locationNames, scopeArgs, scopeSql } from './holders.ts';
import type { CommitmentHolderType } from './stock-vocabulary.ts';

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

export interface CommitmentsView { variantId: string; levels: CommitmentLevel[]; totals: { orders: string; safetyStock: string } }

/**
 * Commitments on a stock item per location: `orders` = Σ open quantity (quantity − fulfilled, never
 * below 0) of order reservations, `safetyStock` = Σ active safety-stock holds. Holders are grouped
 * per order / bill, ranked and capped at 20 per location in SQL, with the per-location sums taken
 * over every holder (window functions), so the payload and the round trips (4) stay constant.
 */
export async function commitmentsOf(ctx: ShopContext, variantId: string, locationIds: readonly string[] | null): Promise<CommitmentsView> {
  const scope = normaliseScope(locationIds);
  const [, rows, names] = await Promise.all([
    assertStockItem(ctx, variantId),
    ctx.em.execute<Record<string, any>[]>(
      `with h as (
         select location_id, 'order' as holder_type, order_id as holder_id, sum(greatest(quantity - fulfilled_quantity, 0)) as quantity
           from reservations where shop_id = ? and item_id = ? and kind = 'order'${scopeSql(scope)}
          group by location_id, order_id having sum(greatest(quantity - fulfilled_quantity, 0)) > 0
         union all
         select location_id, coalesce(owner_type, 'bom'), coalesce(owner_id, ''), sum(quantity)
           from reservations where shop_id = ? and item_id = ? and kind = 'safetyStock' and active${scopeSql(scope)}
          group by location_id, owner_type, owner_id having sum(quantity) > 0
       ), ranked as (
         select h.*,
                row_number() over (partition by location_id order by quantity desc, holder_type, holder_id) as rn,
                count(*) over (partition by location_id) as holder_count,
                sum(case when holder_type = 'order' then quantity else 0 end) over (partition by location_id) as orders,
                sum(case when holder_type <> 'order' then quantity else 0 end) over (partition by location_id) as safety_stock
           from h
       )
       select r.*, coalesce(b.name, a.name) as bill_name
         from ranked r
         left join boms b on b.shop_id = ? and r.holder_type = 'bom' and b.bom_id = r.holder_id
         left join assembly_bills a on a.shop_id = ? and r.holder_type = 'sub_assembly' and a.assembly_id = r.holder_id
        where r.rn <= ${HOLDER_CAP}
        order by r.location_id, r.rn`,
      [ctx.shopId, variantId, ...scopeArgs(scope), ctx.shopId, variantId, ...scopeArgs(scope), ctx.shopId, ctx.shopId],
    ),
    locationNames(ctx),
  ]);
  const orderIds = [...new Set(rows.filter((r) => r.holder_type === 'order').map((r) => r.holder_id as string))];
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
  const result = [...levels.values()].sort((a, b) => compareLocationIds(a.locationId, b.locationId)).map(({ shown, count, ...level }) => ({
    ...level,
    otherHoldersCount: count - level.holders.length,
    otherHoldersQuantity: exact(level.orders).plus(level.safetyStock).minus(shown).toFixed(),
  }));
  const sum = (f: 'orders' | 'safetyStock') => result.reduce((s, l) => s.plus(l[f]), ZERO).toFixed();
  return { variantId, levels: result, totals: { orders: sum('orders'), safetyStock: sum('safetyStock') } };
}
