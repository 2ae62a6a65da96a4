import { toDecimalString } from '../../kernel/decimals.ts';
import type { ComputedPlan, PeggedDemand } from './engine.ts';
import { compareLocations } from './engine.ts';
import type { MadeItemType } from './planning-vocabulary.ts';
import { PEGGING_CAP } from './planning-vocabulary.ts';

// A plan as it leaves the service: decimals rounded half-up to 6 places (only here), rows sorted by
// location (numerically) then item (as text), shortages only where net > 0, pegging capped at the
// 20 largest demands with a count of the rest. A location filter keeps the rows of its locations;
// `unlocated` is listed only without one (it belongs to no location).

export interface WrittenDemand { sourceType: PeggedDemand['sourceType']; sourceId: string; quantity: string; needBy: string }
export interface WrittenBuy { variantId: string; locationId: string; quantity: string; net: string; needBy: string; orderBy: string; late: boolean; essential: boolean }
export interface WrittenMake {
  itemType: MadeItemType; itemId: string; variantId: string | null; locationId: string; quantity: string; needBy: string; startBy: string; late: boolean;
  demands: WrittenDemand[]; otherDemandCount: number;
}
export interface WrittenShortage {
  variantId: string; locationId: string; required: string; onHand: string; allocated: string; net: string; needBy: string; essential: boolean;
  demands: WrittenDemand[]; otherDemandCount: number;
}
export interface WrittenPlan {
  shopId: string; asOf: string;
  buySuggestions: WrittenBuy[]; makeSuggestions: WrittenMake[]; shortages: WrittenShortage[];
  unlocated: { itemId: string; orderId: string; quantity: string }[];
}

const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byLocationThen = <T extends { locationId: string }>(item: (row: T) => string) => (a: T, b: T) => compareLocations(a.locationId, b.locationId) || text(item(a), item(b));
const capped = (demands: readonly PeggedDemand[]) => ({
  demands: demands.slice(0, PEGGING_CAP).map((d) => ({ sourceType: d.sourceType, sourceId: d.sourceId, quantity: toDecimalString(d.quantity), needBy: d.needBy })),
  otherDemandCount: Math.max(0, demands.length - PEGGING_CAP),
});

export function writePlan(shopId: string, plan: ComputedPlan, locationIds: readonly string[] | null): WrittenPlan {
  const scope = locationIds === null ? null : new Set(locationIds);
  const kept = (row: { locationId: string }) => scope === null || scope.has(row.locationId);
  return {
    shopId,
    asOf: plan.asOf,
    buySuggestions: plan.buys.filter(kept).sort(byLocationThen((r) => r.variantId)).map((b) => ({
      variantId: b.variantId, locationId: b.locationId, quantity: toDecimalString(b.quantity), net: toDecimalString(b.net), needBy: b.needBy,
      orderBy: b.orderBy, late: b.late, essential: b.essential,
    })),
    makeSuggestions: plan.makes.filter(kept).sort(byLocationThen((r) => r.itemId)).map((m) => ({
      itemType: m.itemType, itemId: m.itemId, variantId: m.variantId, locationId: m.locationId, quantity: toDecimalString(m.quantity),
      needBy: m.needBy, startBy: m.startBy, late: m.late, ...capped(m.demands),
    })),
    shortages: plan.raws.filter((r) => kept(r) && r.net.gt(0)).sort(byLocationThen((r) => r.variantId)).map((r) => ({
      variantId: r.variantId, locationId: r.locationId, required: toDecimalString(r.required), onHand: toDecimalString(r.onHand),
      allocated: toDecimalString(r.allocated), net: toDecimalString(r.net), needBy: r.needBy!, essential: r.essential, ...capped(r.demands),
    })),
    unlocated: scope === null ? plan.unlocated.map((u) => ({ itemId: u.itemId, orderId: u.orderId, quantity: toDecimalString(u.quantity) })) : [],
  };
}
