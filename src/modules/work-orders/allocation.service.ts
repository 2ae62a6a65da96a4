import { DomainError } from '../../kernel/domain-error.ts';
import { Exact, exact, ZERO } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { sql, type SqlBool } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { materialSummaries } from '../materials/material-view.ts';
import { billsConsumingAs } from '../boms/for-work-orders.ts';
import { compareLocationIds, normaliseScope } from '../locations/location-scope.ts';
import { loadRecipeForest, type BillKey } from '../boms/engine/index.ts';
import { shelvesAtEach } from '../stock/levels.ts';
import { manualShare, remainingRecipeNeeds } from './outstanding.ts';
import { capHolders, locationNames } from '../stock/holders.ts';
import type { BillOwnerType } from '../boms/recipe-vocabulary.ts';
import { workOrdersSql } from './tables.ts';
import { type WorkOrderHolderType, type WorkOrderStatus } from './work-order-vocabulary.ts';
import { openWorkOrderSql } from './work-order-filters.ts';

export interface WorkOrderHolder {
  holderType: WorkOrderHolderType;
  holderId: string;
  name: string;
  status: WorkOrderStatus;
  picked: string;
  remaining: string;
  allocated: string;
  /** = allocated (the list is ranked by it). */
  quantity: string;
}

export interface AllocationFigures { picked: string; remaining: string; allocated: string; holders: WorkOrderHolder[]; otherHoldersCount: number; otherHoldersQuantity: string }
export interface AllocationLevel extends AllocationFigures { locationId: string; locationName: string | null }
export interface WorkOrderAllocationView {
  variantId: string;
  levels: AllocationLevel[];
  totals: { picked: string; remaining: string; allocated: string; unlocated: AllocationFigures };
}

/** Work order `w` is open (every status but the closed ones). */
const open = sql<SqlBool>`${sql.raw(openWorkOrderSql('w'))}`;

type DemandKind = 'item' | 'manual' | 'pick';

/** Units of item `alias` started by production runs not reversed (outstanding.ts's startedUnits, in SQL). */
const startedOf = (alias: string) => sql<string>`coalesce((select sum(ri.quantity) from build_run_items ri
  join build_runs r on r.shop_id = ri.shop_id and r.work_order_id = ri.work_order_id and r.build_run_id = ri.build_run_id
  where ri.shop_id = ${sql.ref(`${alias}.shop_id`)} and ri.work_order_id = ${sql.ref(`${alias}.work_order_id`)} and ri.item_id = ${sql.ref(`${alias}.item_id`)}
    and r.run_type = 'production' and r.status <> 'reversed'), 0)`;
/** Q and Q − started of manual line `m`'s work order (outstanding.ts's workOrderUnits, in SQL). */
const unitsTotal = sql<string>`coalesce((select sum(u.quantity) from work_order_items u where u.shop_id = m.shop_id and u.work_order_id = m.work_order_id), 0)`;
const unitsLeft = sql<string>`coalesce((select sum(greatest(u.quantity - ${startedOf('u')}, 0)) from work_order_items u where u.shop_id = m.shop_id and u.work_order_id = m.work_order_id), 0)`;

/**
 * The demand of open work orders on a material, one statement: item lines whose bill consumes it
 * at any depth (the recipes module's parents CTE) with `started` = their units started by
 * production runs not reversed; manual lines naming it with `started` = Q (Σ item quantities of
 * the work order) and `units_left` = Q − started; and the picks of runs not reversed, summed per
 * work order and location.
 */
function demandQuery(shopId: string, variantId: string) {
  return workOrdersSql.selectFrom('work_order_items as i')
    .innerJoin(billsConsumingAs(shopId, variantId, 'p'), (j) => j.onRef('p.owner_type', '=', 'i.owner_type').onRef('p.owner_id', '=', 'i.owner_id'))
    .innerJoin('work_orders as w', (j) => j.onRef('w.shop_id', '=', 'i.shop_id').onRef('w.work_order_id', '=', 'i.work_order_id').on(open))
    .select([sql<DemandKind>`'item'`.as('kind'), 'w.work_order_id', 'w.name', 'w.status',
      sql<string | null>`coalesce(w.default_consumption_location_id, w.production_location_id)`.as('location_id'),
      sql<BillOwnerType | null>`i.owner_type`.as('owner_type'), sql<string | null>`i.owner_id`.as('owner_id'), sql<string>`i.quantity`.as('quantity'),
      sql<string | null>`i.item_id`.as('item_id'), sql<string>`${startedOf('i')}`.as('started'), sql<string>`0`.as('units_left')])
    .where('i.shop_id', '=', shopId)
    .unionAll(workOrdersSql.selectFrom('work_order_manual_materials as m')
      .innerJoin('work_orders as w', (j) => j.onRef('w.shop_id', '=', 'm.shop_id').onRef('w.work_order_id', '=', 'm.work_order_id').on(open))
      .select([sql<DemandKind>`'manual'`.as('kind'), 'w.work_order_id', 'w.name', 'w.status',
        sql<string | null>`coalesce(m.location_id, w.default_consumption_location_id, w.production_location_id)`.as('location_id'),
        sql<BillOwnerType | null>`null`.as('owner_type'), sql<string | null>`null`.as('owner_id'), sql<string>`m.quantity`.as('quantity'),
        sql<string | null>`null`.as('item_id'), sql<string>`${unitsTotal}`.as('started'), sql<string>`${unitsLeft}`.as('units_left')])
      .where('m.shop_id', '=', shopId).where('m.variant_id', '=', variantId))
    .unionAll(workOrdersSql.selectFrom('build_run_picks as k')
      .innerJoin('build_runs as r', (j) => j.onRef('r.shop_id', '=', 'k.shop_id').onRef('r.work_order_id', '=', 'k.work_order_id')
        .onRef('r.build_run_id', '=', 'k.build_run_id').on('r.status', '<>', sql.lit('reversed')))
      .innerJoin('work_orders as w', (j) => j.onRef('w.shop_id', '=', 'k.shop_id').onRef('w.work_order_id', '=', 'k.work_order_id').on(open))
      .select([sql<DemandKind>`'pick'`.as('kind'), 'w.work_order_id', 'w.name', 'w.status', sql<string | null>`k.location_id`.as('location_id'),
        sql<BillOwnerType | null>`null`.as('owner_type'), sql<string | null>`null`.as('owner_id'), sql<string>`sum(k.quantity)`.as('quantity'),
        sql<string | null>`null`.as('item_id'), sql<string>`0`.as('started'), sql<string>`0`.as('units_left')])
      .where('k.shop_id', '=', shopId).where('k.variant_id', '=', variantId)
      .groupBy(['w.work_order_id', 'w.name', 'w.status', 'k.location_id']));
}

/**
 * What open work orders (every status but completed and cancelled) hold of a material, per
 * location and work order, by the one definition of outstanding.ts: `picked` = Σ picks of build
 * runs not reversed; `remaining` = what the units not yet started still need (each work order's
 * items pushed down once at its consumption location, that location's rules, its shelves first,
 * waste included) + manual lines × (Q − started) / Q; `allocated` = picked + remaining. A line's location is its own, else the work order's default consumption
 * location, else its production location; demand with none is reported under `totals.unlocated`
 * (only when the scope is every location: it belongs to no location).
 * Round trips: the material's existence (materialSummaries), one demand query (parents CTE + items
 * with their started units, manual lines with Q and Q − started, picks), the recipe forest of the
 * bills involved, the shelves of its assemblies at the item locations, the location names — whatever the number of work orders or locations.
 */
export async function workOrderAllocationOf(ctx: ShopContext, variantId: string, locationIds: readonly string[] | null): Promise<WorkOrderAllocationView> {
  const scope = normaliseScope(locationIds);
  const s = ctx.shopId;
  const [found, rows, names] = await Promise.all([
    materialSummaries(ctx, [variantId]),
    runSql(ctx.em, demandQuery(s, variantId)),
    locationNames(ctx),
  ]);
  if (found.size === 0) throw DomainError.notFound('raw material', variantId);

  const inScope = (location: string | null) => (location === null ? scope === null : scope === null || scope.includes(location));
  const relevant = rows.filter((r) => inScope(r.location_id));
  const bills = new Map<string, BillKey>();
  for (const r of relevant) if (r.kind === 'item') bills.set(`${r.owner_type}:${r.owner_id}`, { ownerType: r.owner_type!, ownerId: r.owner_id! });
  const forest = await loadRecipeForest(ctx, [...bills.values()]);
  // The shelves a run would take first: every assembly of the forest, at every location an item line is consumed.
  const itemLocations = [...new Set(relevant.filter((r) => r.kind === 'item' && r.location_id !== null).map((r) => r.location_id!))];
  const assemblies = [...forest.bills.values()].filter((b) => b.key.ownerType === 'sub_assembly').map((b) => b.key.ownerId);
  const shelves = itemLocations.length === 0 || assemblies.length === 0 ? new Map<string, Map<string, Exact>>() : await shelvesAtEach(ctx, assemblies, itemLocations);

  // (location or '' for unlocated) → work order → figures
  const grid = new Map<string, Map<string, { name: string; status: WorkOrderStatus; remaining: Exact; picked: Exact; roots: { bill: BillKey; quantity: Exact }[] }>>();
  for (const r of relevant) {
    const key = r.location_id ?? '';
    const orders = grid.get(key) ?? new Map();
    grid.set(key, orders);
    const wo = orders.get(r.work_order_id) ?? { name: r.name, status: r.status, remaining: ZERO, picked: ZERO, roots: [] };
    orders.set(r.work_order_id, wo);
    if (r.kind === 'pick') wo.picked = wo.picked.plus(r.quantity);
    else if (r.kind === 'manual') wo.remaining = wo.remaining.plus(manualShare(r.quantity, { total: r.started, left: r.units_left }));
    else {
      const left = exact(r.quantity).minus(r.started);
      if (left.gt(0)) wo.roots.push({ bill: { ownerType: r.owner_type!, ownerId: r.owner_id! }, quantity: left });
    }
  }
  // What each work order's units not yet started still need there: one push-down of its items, shelves first.
  for (const [location, orders] of grid) {
    const at = location === '' ? null : location;
    const onShelf = (at ? shelves.get(at) : undefined) ?? new Map<string, Exact>();
    for (const wo of orders.values()) {
      wo.remaining = wo.remaining.plus(remainingRecipeNeeds(forest, wo.roots, at, (id) => onShelf.get(id) ?? ZERO).get(variantId) ?? ZERO);
    }
  }

  const figures = (orders: Map<string, { name: string; status: WorkOrderStatus; remaining: Exact; picked: Exact }> | undefined): AllocationFigures & { sums: Exact[] } => {
    const holders = [...(orders ?? new Map()).entries()].map(([id, wo]) => {
      const remaining = wo.remaining;
      return { holderType: 'work_order' as const satisfies WorkOrderHolderType, holderId: id, name: wo.name, status: wo.status, picked: wo.picked, remaining, quantity: wo.picked.plus(remaining) };
    }).filter((h) => !h.quantity.isZero());
    const sum = (f: 'picked' | 'remaining' | 'quantity') => holders.reduce((acc, h) => acc.plus(h[f]), ZERO);
    const capped = capHolders(holders);
    return {
      picked: sum('picked').toFixed(), remaining: sum('remaining').toFixed(), allocated: sum('quantity').toFixed(),
      holders: capped.holders.map((h) => ({
        holderType: h.holderType, holderId: h.holderId, name: h.name, status: h.status,
        picked: h.picked.toFixed(), remaining: h.remaining.toFixed(), allocated: h.quantity.toFixed(), quantity: h.quantity.toFixed(),
      })),
      otherHoldersCount: capped.otherHoldersCount, otherHoldersQuantity: capped.otherHoldersQuantity.toFixed(),
      sums: [sum('picked'), sum('remaining'), sum('quantity')],
    };
  };

  const levels = [...grid.keys()].filter((k) => k !== '').sort(compareLocationIds)
    .map((locationId) => ({ locationId, locationName: names.get(locationId) ?? null, ...figures(grid.get(locationId)) }))
    .filter((l) => l.holders.length > 0);
  const { sums: _unlocatedSums, ...unlocated } = figures(grid.get(''));
  const total = (i: number) => levels.reduce((acc, l) => acc.plus(l.sums[i]!), ZERO).toFixed();
  return {
    variantId,
    levels: levels.map(({ sums: _sums, ...level }) => level),
    totals: { picked: total(0), remaining: total(1), allocated: total(2), unlocated },
  };
}
