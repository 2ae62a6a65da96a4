import { toDecimalString } from '../../kernel/decimals.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { computePlan, compareLocations, type ComputedPlan } from './engine.ts';
import { inPlanSnapshot, planDate } from './planning.service.ts';
import type { DemandSourceType, PlannedItemType } from './planning-vocabulary.ts';

// What-if (decisions "Planning"): "N units of BOM B at location L by date D". The shop is planned
// twice from the same snapshot, without and with that extra demand (it queues behind existing
// demands of the same date), and the difference is what it takes: the extra make and buy
// suggestions, and the existing demands (orders, work orders, safety stock) it would leave short.

export interface WhatIfInput { bomId: string; quantity: string; locationId: string; needBy: string; asOf?: string | null }

export interface WhatIfAnswer {
  asOf: string;
  extraMakes: { itemType: 'bom' | 'assembly_bill'; itemId: string; variantId: string | null; locationId: string; quantity: string; needBy: string; startBy: string; late: boolean }[];
  extraBuys: { variantId: string; locationId: string; quantity: string; net: string; needBy: string; orderBy: string; late: boolean; essential: boolean }[];
  leftShort: { itemType: PlannedItemType; itemId: string; locationId: string; sourceType: DemandSourceType; sourceId: string; needBy: string; short: string }[];
}

const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function shortfalls(plan: ComputedPlan): Map<string, { row: ComputedPlan['short'][number]; short: Exact }> {
  const out = new Map<string, { row: ComputedPlan['short'][number]; short: Exact }>();
  for (const s of plan.short) {
    if (s.sourceType === 'what_if') continue;
    const key = [s.locationId, s.itemKey, s.sourceType, s.sourceId].join('\u0000');
    const known = out.get(key);
    if (known) known.short = known.short.plus(s.short);
    else out.set(key, { row: s, short: s.short });
  }
  return out;
}

export async function planningWhatIf(ctx: ShopContext, input: WhatIfInput): Promise<WhatIfAnswer> {
  const asOf = planDate(input.asOf);
  const needBy = planDate(input.needBy);
  const quantity = exact(input.quantity);
  if (!quantity.gt(0)) throw DomainError.invalid('quantity', `must be greater than 0, got ${input.quantity}`);
  const [before, after] = await inPlanSnapshot(ctx, (shop) => {
    if (!shop.forest.bills.has(`bom:${input.bomId}`)) throw DomainError.notFound('bom', input.bomId);
    return [computePlan(shop, asOf), computePlan(shop, asOf, [{ bomId: input.bomId, quantity, locationId: input.locationId, needBy }])] as const;
  });
  const madeBefore = new Map(before.makes.map((m) => [`${m.locationId}\u0000${m.itemType}\u0000${m.itemId}`, m.quantity]));
  const boughtBefore = new Map(before.buys.map((b) => [`${b.locationId}\u0000${b.variantId}`, b]));
  const extraMakes = after.makes.map((m) => ({ m, more: m.quantity.minus(madeBefore.get(`${m.locationId}\u0000${m.itemType}\u0000${m.itemId}`) ?? ZERO) }))
    .filter(({ more }) => more.gt(0))
    .sort((a, b) => compareLocations(a.m.locationId, b.m.locationId) || text(a.m.itemId, b.m.itemId))
    .map(({ m, more }) => ({ itemType: m.itemType, itemId: m.itemId, variantId: m.variantId, locationId: m.locationId, quantity: toDecimalString(more),
      needBy: m.needBy, startBy: m.startBy, late: m.late }));
  const extraBuys = after.buys.map((b) => {
    const was = boughtBefore.get(`${b.locationId}\u0000${b.variantId}`);
    return { b, more: b.quantity.minus(was?.quantity ?? ZERO), net: b.net.minus(was?.net ?? ZERO) };
  }).filter(({ more, net }) => more.gt(0) || net.gt(0))
    .sort((x, y) => compareLocations(x.b.locationId, y.b.locationId) || text(x.b.variantId, y.b.variantId))
    .map(({ b, more, net }) => ({ variantId: b.variantId, locationId: b.locationId, quantity: toDecimalString(more.isNegative() ? ZERO : more),
      net: toDecimalString(net), needBy: b.needBy, orderBy: b.orderBy, late: b.late, essential: b.essential }));
  const was = shortfalls(before);
  const leftShort = [...shortfalls(after).entries()]
    .map(([key, now]) => ({ now, more: now.short.minus(was.get(key)?.short ?? ZERO) }))
    .filter(({ now, more }) => more.gt(0) && now.row.sourceType !== 'make')
    .map(({ now, more }) => {
      const [kind, ...rest] = now.row.itemKey.split(':');
      const itemType = kind === 'raw' ? 'raw_material' as const : kind === 'bom' ? 'bom' as const : 'assembly_bill' as const;
      return { itemType, itemId: rest.join(':'), locationId: now.row.locationId, sourceType: now.row.sourceType, sourceId: now.row.sourceId, needBy: now.row.needBy, short: toDecimalString(more) };
    })
    .sort((a, b) => compareLocations(a.locationId, b.locationId) || text(a.itemId, b.itemId) || text(a.sourceType, b.sourceType) || text(a.sourceId, b.sourceId));
  return { asOf, extraMakes, extraBuys, leftShort };
}
