import { ceilDiv, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import { billKeyString, effectiveLines, getBill, lineNeed, type BillKey, type RecipeForest } from '../boms/engine/index.ts';
import { addDays } from './dates.ts';
import { netItem, type Demand, type Receipt } from './netting.ts';
import type { PlanInput } from './plan-input.ts';
import type { MadeItemType } from './planning-vocabulary.ts';

// The plan (decisions "Planning"), computed in memory from one snapshot of the shop with exact
// decimals. Per location, items are netted from the top of the recipe trees down: an item only
// after every item that uses it (its greatest recipe depth over every bill at that location). A
// made item's net requirement becomes a make suggestion of whole units, exploded one level through
// its recipe at that location into demands of its components, needed by its start date; a raw
// material's is its buy requirement.

/** An extra demand a what-if adds: `quantity` of a BOM's finished good at a location by a date. */
export interface ExtraDemand { bomId: string; quantity: Exact; locationId: string; needBy: string }

export interface PeggedDemand { sourceType: Demand['sourceType']; sourceId: string; quantity: Exact; needBy: string }

export interface RawRow {
  variantId: string; locationId: string; essential: boolean;
  required: Exact; onHand: Exact; allocated: Exact; net: Exact; needBy: string | null;
  /** Every demand grouped by source, largest first (uncapped). */
  demands: PeggedDemand[];
}

export interface BuyRow {
  variantId: string; locationId: string; quantity: Exact; net: Exact; needBy: string; orderBy: string; late: boolean; essential: boolean;
}

export interface MakeRow {
  itemType: MadeItemType; itemId: string; variantId: string | null; locationId: string;
  quantity: Exact; needBy: string; startBy: string; late: boolean;
  required: Exact; onHand: Exact; allocated: Exact; net: Exact;
  demands: PeggedDemand[];
}

/** A demand that did not get all it asked for: `short` of `quantity`. */
export interface ShortDemand { itemKey: string; locationId: string; sourceType: Demand['sourceType']; sourceId: string; needBy: string; short: Exact }

export interface ComputedPlan {
  asOf: string;
  /** Every (raw material, location) with demand, covered or not. */
  raws: RawRow[];
  buys: BuyRow[];
  makes: MakeRow[];
  unlocated: { itemId: string; orderId: string; quantity: Exact }[];
  /** Demands of orders, work orders, safety stock and what-ifs left (partly) uncovered, made items and raw materials alike. */
  short: ShortDemand[];
}

const RAW = 'raw:';
const rawKey = (variantId: string) => `${RAW}${variantId}`;
const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Location ids sort numerically (shorter first, then by digits), item ids as text. */
export const compareLocations = (a: string, b: string): number => a.length - b.length || text(a, b);

/** Demands grouped by (source type, source id), largest first, then source type, then source id. */
export function pegging(demands: readonly Demand[]): PeggedDemand[] {
  const groups = new Map<string, PeggedDemand>();
  for (const d of demands) {
    const key = `${d.sourceType}\u0000${d.sourceId}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { sourceType: d.sourceType, sourceId: d.sourceId, quantity: d.quantity, needBy: d.needBy });
    else {
      g.quantity = g.quantity.plus(d.quantity);
      if (d.needBy < g.needBy) g.needBy = d.needBy;
    }
  }
  return [...groups.values()].sort((a, b) => b.quantity.cmp(a.quantity) || text(a.sourceType, b.sourceType) || text(a.sourceId, b.sourceId));
}

/** The buy quantity: the smallest multiple of orderMultiple reaching max(net, minimum); without one, that maximum rounded up to 6 places. */
export function buyQuantity(net: Exact, minimum: Exact, multiple: Exact | null): Exact {
  const target = net.lt(minimum) ? minimum : net;
  if (multiple !== null) return ceilDiv(target, multiple).times(multiple);
  return target.times(1_000_000).ceil().divPow10(6);
}

/**
 * The netting order's depth of each bill at a location: its greatest depth below the bills demanded
 * there (`seeds`), over their recipes at that location. Only those bills and what they reach can
 * ever be demanded there, so ordering them alone keeps every item after each item that uses it,
 * and the work follows the demand, not the shop.
 */
function depthsAt(forest: RecipeForest, locationId: string, seeds: readonly string[]): Map<string, number> {
  const order: string[] = [];
  // Each bill's sub-assemblies at the location, built once (the walk and the depth pass both ask).
  const seen = new Map<string, string[]>();
  const children = (id: string): string[] => {
    const known = seen.get(id);
    if (known) return known;
    const bill = forest.bills.get(id);
    return bill ? effectiveLines(forest, bill.key, locationId).filter((l) => l.lineType === 'sub').map((l) => `sub_assembly:${l.nodeId}`) : [];
  };
  const visit = (id: string) => {
    if (seen.has(id)) return;
    const below = children(id);
    seen.set(id, below);
    for (const child of below) visit(child);
    order.push(id);
  };
  for (const id of seeds) visit(id);
  const depth = new Map<string, number>();
  // Reverse post-order: parents before children.
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!;
    const d = depth.get(id) ?? 0;
    depth.set(id, d);
    for (const child of children(id)) if ((depth.get(child) ?? -1) < d + 1) depth.set(child, d + 1);
  }
  return depth;
}

type Grid<T> = Map<string, Map<string, T[]>>;
function push<T>(grid: Grid<T>, location: string, item: string, value: T): void {
  let at = grid.get(location);
  if (!at) grid.set(location, (at = new Map()));
  const list = at.get(item);
  if (list) list.push(value);
  else at.set(item, [value]);
}

/** The plan of the shop `input` on day `asOf`, with `extra` demand (a what-if) when given. */
export function computePlan(input: PlanInput, asOf: string, extra: readonly ExtraDemand[] = []): ComputedPlan {
  const { forest } = input;
  const bomByVariant = new Map<string, string>();
  for (const bill of forest.bills.values()) {
    if (bill.key.ownerType === 'bom' && bill.variantId !== null && !bomByVariant.has(bill.variantId)) bomByVariant.set(bill.variantId, bill.key.ownerId);
  }
  // A stock item (an order's or a hold's) is an assembly bill, a BOM's finished good, or a raw material.
  const itemOf = (stockItemId: string): string => {
    if (forest.bills.has(`sub_assembly:${stockItemId}`)) return `sub_assembly:${stockItemId}`;
    const bom = bomByVariant.get(stockItemId);
    return bom !== undefined ? `bom:${bom}` : rawKey(stockItemId);
  };
  const demands: Grid<Demand> = new Map();
  const receipts: Grid<Receipt> = new Map();
  const addDemand = (location: string, item: string, d: Demand) => {
    if (d.quantity.gt(0)) push(demands, location, item, d);
  };
  // One level of a bill's recipe at a location, `units` of it, as demands of its components; returns the assemblies it named.
  const explode = (bill: BillKey, units: Exact, location: string, source: Omit<Demand, 'quantity'>): string[] => {
    const assemblies: string[] = [];
    for (const line of effectiveLines(forest, bill, location)) {
      if (line.lineType === 'sub') {
        const item = `sub_assembly:${line.nodeId}`;
        addDemand(location, item, { ...source, quantity: units.times(line.quantity) });
        assemblies.push(item);
      } else if (line.lineType === 'raw') addDemand(location, rawKey(line.nodeId), { ...source, quantity: units.times(lineNeed(line.quantity, line.wastePercentage)) });
    }
    return assemblies;
  };

  // Orders that an open work order stands for are left out entirely.
  const coveredOrders = new Set(input.workOrders.flatMap((w) => w.sourceOrderIds));
  const unlocated = new Map<string, { itemId: string; orderId: string; quantity: Exact }>();
  for (const o of input.orders) {
    if (coveredOrders.has(o.orderId) || !o.open.gt(0)) continue;
    if (o.locationId === null) {
      const key = `${o.itemId}\u0000${o.orderId}`;
      const u = unlocated.get(key);
      if (u) u.quantity = u.quantity.plus(o.open);
      else unlocated.set(key, { itemId: o.itemId, orderId: o.orderId, quantity: o.open });
      continue;
    }
    addDemand(o.locationId, itemOf(o.itemId), { sourceType: 'order', sourceId: o.orderId, quantity: o.open, needBy: asOf, createdAt: '' });
  }
  for (const w of input.workOrders) {
    const needBy = w.dueDate ?? asOf;
    const source = { sourceType: 'work_order' as const, sourceId: w.workOrderId, needBy, createdAt: w.createdAt };
    for (const item of w.items) {
      if (w.consumptionLocationId !== null && item.notStarted.gt(0)) explode(item.bill, item.notStarted, w.consumptionLocationId, source);
      if (w.productionLocationId === null || !item.toComplete.gt(0)) continue;
      const bill = getBill(forest, item.bill);
      if (!bill || (bill.key.ownerType === 'bom' && bill.variantId === null)) continue;
      push(receipts, w.productionLocationId, billKeyString(bill.key), { quantity: item.toComplete, due: needBy, createdAt: w.createdAt, id: `${w.workOrderId}\u0000${item.itemId}` });
    }
    for (const m of w.manual) if (m.locationId !== null) addDemand(m.locationId, rawKey(m.variantId), { ...source, quantity: m.quantity });
  }
  for (const s of input.safetyStock) {
    addDemand(s.locationId, itemOf(s.itemId), { sourceType: 'safety_stock', sourceId: s.ownerId, quantity: s.quantity, needBy: asOf, createdAt: '' });
  }
  for (const x of extra) addDemand(x.locationId, `bom:${x.bomId}`, { sourceType: 'what_if', sourceId: x.bomId, quantity: x.quantity, needBy: x.needBy, createdAt: '' });

  const plan: ComputedPlan = { asOf, raws: [], buys: [], makes: [], unlocated: [...unlocated.values()].sort((a, b) => text(a.itemId, b.itemId) || text(a.orderId, b.orderId)), short: [] };
  const noteShort = (location: string, item: string, uncovered: ReturnType<typeof netItem>['uncovered']) => {
    for (const { demand, short } of uncovered) {
      if (short.gt(0) && demand.sourceType !== 'make') {
        plan.short.push({ itemKey: item, locationId: location, sourceType: demand.sourceType, sourceId: demand.sourceId, needBy: demand.needBy, short });
      }
    }
  };
  for (const location of [...demands.keys()].sort(compareLocations)) {
    const atLocation = demands.get(location)!;
    const shelves = input.shelves.get(location);
    const depth = depthsAt(forest, location, [...atLocation.keys()].filter((k) => !k.startsWith(RAW)));
    const buckets: Set<string>[] = [];
    const enqueue = (item: string) => {
      if (item.startsWith(RAW)) return;
      const d = depth.get(item) ?? 0;
      (buckets[d] ??= new Set()).add(item);
    };
    for (const item of atLocation.keys()) enqueue(item);
    // Made items, shallowest first: a make suggestion only adds demand to deeper items.
    for (let d = 0; d < buckets.length; d++) {
      for (const item of [...(buckets[d] ?? [])].sort(text)) {
        const bill = forest.bills.get(item);
        if (!bill) continue;
        const own = atLocation.get(item) ?? [];
        const shelfId = bill.key.ownerType === 'bom' ? bill.variantId : bill.key.ownerId;
        const onHand = shelfId === null ? ZERO : (shelves?.get(shelfId) ?? ZERO);
        const netted = netItem(own, onHand, receipts.get(location)?.get(item) ?? []);
        noteShort(location, item, netted.uncovered);
        if (!netted.net.gt(0)) continue;
        const quantity = netted.net.ceil();
        const needBy = netted.needBy!;
        const startBy = addDays(needBy, -(bill.leadTimeDays ?? 0));
        plan.makes.push({
          itemType: bill.key.ownerType === 'bom' ? 'bom' : 'assembly_bill', itemId: bill.key.ownerId, variantId: bill.key.ownerType === 'bom' ? bill.variantId : null,
          locationId: location, quantity, needBy, startBy, late: startBy < asOf,
          required: netted.required, onHand: onHand.isNegative() ? ZERO : onHand, allocated: netted.allocated, net: netted.net, demands: pegging(own),
        });
        const make = { sourceType: 'make' as const, sourceId: bill.key.ownerId, needBy: startBy, createdAt: '' };
        for (const component of explode(bill.key, quantity, location, make)) enqueue(component);
      }
    }
    const levels = input.levels.get(location);
    for (const item of [...atLocation.keys()].filter((k) => k.startsWith(RAW)).sort(text)) {
      const variantId = item.slice(RAW.length);
      const material = input.materials.get(variantId);
      const level = levels?.get(variantId) ?? ZERO;
      const onHand = level.isNegative() ? ZERO : level;
      const own = atLocation.get(item)!;
      const netted = netItem(own, onHand, []);
      noteShort(location, item, netted.uncovered);
      const essential = material?.essential ?? true;
      plan.raws.push({
        variantId, locationId: location, essential, required: netted.required, onHand, allocated: netted.allocated, net: netted.net,
        needBy: netted.needBy, demands: pegging(own),
      });
      if (!netted.net.gt(0)) continue;
      const needBy = netted.needBy!;
      const orderBy = addDays(needBy, -(material?.leadTimeDays ?? 0));
      plan.buys.push({
        variantId, locationId: location, quantity: buyQuantity(netted.net, material?.minimumOrderQuantity ?? ZERO, material?.orderMultiple ?? null),
        net: netted.net, needBy, orderBy, late: orderBy < asOf, essential,
      });
    }
  }
  return plan;
}
