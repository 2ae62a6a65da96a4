import { ZERO, type Exact } from '../../kernel/numbers/index.ts';
import { DEMAND_SOURCE_TYPES, type DemandSourceType } from './planning-vocabulary.ts';

// Netting one item at one location (decisions "Planning"): its demands in need-by order (ties:
// orders, work orders, safety stock, make suggestions; then creation time; then id) take its free
// on-hand first, then its scheduled receipts in due order. What is left is the net requirement,
// needed by the need-by of the first demand not fully covered.

export interface Demand {
  sourceType: DemandSourceType;
  sourceId: string;
  quantity: Exact;
  needBy: string;
  /** ISO timestamp where the source has one (work orders), else ''. */
  createdAt: string;
}

export interface Receipt { quantity: Exact; due: string; createdAt: string; id: string }

export interface Netted {
  required: Exact;
  allocated: Exact;
  net: Exact;
  /** The need-by of the first demand not fully covered (null: all covered). */
  needBy: string | null;
  /** Each demand with what it did not get, in netting order. */
  uncovered: { demand: Demand; short: Exact }[];
}

const RANK: Record<string, number> = Object.fromEntries(DEMAND_SOURCE_TYPES.map((t, i) => [t, i]));
const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function demandOrder(a: Demand, b: Demand): number {
  return text(a.needBy, b.needBy) || RANK[a.sourceType]! - RANK[b.sourceType]! || text(a.createdAt, b.createdAt) || text(a.sourceId, b.sourceId);
}

const receiptOrder = (a: Receipt, b: Receipt): number => text(a.due, b.due) || text(a.createdAt, b.createdAt) || text(a.id, b.id);
const min = (a: Exact, b: Exact): Exact => (a.lt(b) ? a : b);

export function netItem(demands: readonly Demand[], onHand: Exact, receipts: readonly Receipt[]): Netted {
  const ordered = [...demands].sort(demandOrder);
  const due = [...receipts].sort(receiptOrder);
  let free = onHand.isNegative() ? ZERO : onHand;
  let next = 0;
  let inReceipt = due[0]?.quantity ?? ZERO;
  let required = ZERO;
  let allocated = ZERO;
  let needBy: string | null = null;
  const uncovered: Netted['uncovered'] = [];
  for (const demand of ordered) {
    required = required.plus(demand.quantity);
    let need = demand.quantity;
    const fromShelf = min(free, need);
    free = free.minus(fromShelf);
    need = need.minus(fromShelf);
    while (need.gt(0) && next < due.length) {
      const taken = min(inReceipt, need);
      need = need.minus(taken);
      inReceipt = inReceipt.minus(taken);
      if (!inReceipt.gt(0)) inReceipt = due[++next]?.quantity ?? ZERO;
    }
    allocated = allocated.plus(demand.quantity.minus(need));
    if (need.gt(0) && needBy === null) needBy = demand.needBy;
    uncovered.push({ demand, short: need });
  }
  return { required, allocated, net: required.minus(allocated), needBy, uncovered };
}
