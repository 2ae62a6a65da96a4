import { runSql } from '../../db/typed-sql.ts';
import { Exact, exact, ZERO } from '../../kernel/numbers/index.ts';
import type { PlatformFulfilmentInfo, PlatformLinePlacement, PlatformOpenOrder, PlatformOrderChange, PlatformOrderLocation } from '../../kernel/platform-port/gateway.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { bomsOfVariants } from '../boms/for-orders.ts';
import { loadRecipeForest, planConsumption, type BillKey } from '../boms/engine/index.ts';
import { shopAllowsNegative } from '../shops/shop-settings.ts';
import { consumeStock, type ConsumedPick, type ConsumeRequest } from '../stock/ledger.ts';
import { shelvesAt } from '../stock/levels.ts';
import { addFulfilledQuantities, openOrderLines, releaseOrderReservations, reserveUnseenOrderLines, syncOrderReservations, type OrderLineReservation } from '../stock/order-reservations.ts';
import { UNLOCATED } from '../stock/stock-vocabulary.ts';
import { ordersSql } from './tables.ts';

// Order execution: what a platform order does to stock. An open order's BOM-backed lines (their
// variant is a BOM's finished good) hold order reservations where their units are assigned (the
// order's fulfilment location, or per line where the platform split it across locations); a
// fulfilment consumes at its location, once per fulfilment id; a cancelled, closed or deleted order
// releases what it still holds.

/** What applying one fulfilment consumed, for the caller and the tests. */
export interface AppliedFulfilment { fulfilmentId: string; locationId: string; picks: ConsumedPick[] }

export interface OrderExecutionResult {
  orderId: string; reservedLines: number; applied: AppliedFulfilment[];
  /** Fulfilments shipped before `consumeFrom`: recorded and counted as fulfilled, consuming nothing. */
  adopted: string[];
  released: boolean;
}

export interface OrderExecutionOptions {
  /**
   * Fulfilments shipped before this instant (the store's connection) consume nothing: their stock
   * left before bomcore kept it. They are recorded, so they are never consumed later, and their
   * units count as fulfilled, so they hold no reservation.
   */
  consumeFrom?: Date | null;
}

interface BomLine { bomId: string; variantId: string }

/**
 * Applies a platform order change in one transaction: the BOM-backed lines' reservations follow
 * the order (quantity and location), every fulfilment not applied yet consumes its stock, and an
 * order no longer open releases its reservations. Safe to repeat: a replayed change moves nothing.
 */
export async function executeOrderChange(ctx: ShopContext, change: PlatformOrderChange, options: OrderExecutionOptions = {}): Promise<OrderExecutionResult> {
  return inShopTransaction(ctx, async (tx) => {
    const variants = [...new Set([...change.lines, ...change.fulfilments.flatMap((f) => f.lines)].map((l) => l.variantId).filter((v): v is string => v !== null))];
    const boms = await bomsOfVariants(tx, variants);
    const bomOf = new Map<string, BomLine>(boms.map((b) => [b.variant_id, { bomId: b.bom_id, variantId: b.variant_id }]));
    const location = change.locationId ?? UNLOCATED;
    const backed: OrderLineReservation[] = change.lines.flatMap((l) => (l.variantId && bomOf.has(l.variantId)
      ? lineReservations(l.lineId, l.variantId, l.quantity, l.placements, location) : []));
    if (change.status !== 'deleted') await syncOrderReservations(tx, change.orderId, backed);
    const applied: AppliedFulfilment[] = [];
    const adopted: string[] = [];
    for (const fulfilment of await newFulfilments(tx, change, location)) {
      if (options.consumeFrom && fulfilment.createdAt && fulfilment.createdAt < options.consumeFrom) {
        await addFulfilledQuantities(tx, change.orderId, shippedLines(fulfilment, bomOf, backed).fulfilled);
        adopted.push(fulfilment.fulfilmentId);
      } else {
        applied.push(await consumeFulfilment(tx, change, fulfilment, bomOf, backed));
      }
    }
    const released = change.status !== 'open';
    if (released) await releaseOrderReservations(tx, change.orderId);
    return { orderId: change.orderId, reservedLines: released ? 0 : backed.length, applied, adopted, released };
  });
}

/**
 * The platform placed an open order's units elsewhere (a fulfilment order moved or split): each
 * BOM-backed line's reservations move with them, the quantities unchanged. An order that holds
 * nothing (not seen yet, or released) is left alone: its next event reserves where it is then.
 * Safe to repeat. Two statements.
 */
export async function relocateOrder(ctx: ShopContext, location: PlatformOrderLocation): Promise<number> {
  return inShopTransaction(ctx, async (tx) => {
    const lines = await openOrderLines(tx, location.orderId);
    if (lines.length === 0) return 0;
    const fallback = location.locationId ?? UNLOCATED;
    const placed = lines.flatMap((l) => lineReservations(l.lineId, l.itemId, l.quantity, location.placements ? location.placements[l.lineId] ?? [] : undefined, fallback));
    await syncOrderReservations(tx, location.orderId, placed);
    return lines.length;
  });
}

/**
 * After a full sync: the BOM-backed lines of open orders order execution has not seen reserve the
 * units still to ship at the order's location (see reserveUnseenOrderLines). Two statements per
 * 1,000 orders.
 */
export async function reserveSyncedOrders(ctx: ShopContext, orders: readonly PlatformOpenOrder[]): Promise<number> {
  let reserved = 0;
  for (let i = 0; i < orders.length; i += 1000) {
    const batch = orders.slice(i, i + 1000);
    const variants = [...new Set(batch.flatMap((o) => o.lines.map((l) => l.variantId)).filter((v): v is string => v !== null))];
    const backedVariants = new Set((await bomsOfVariants(ctx, variants)).map((b) => b.variant_id));
    const lines = batch.flatMap((o) => o.lines.filter((l) => l.variantId !== null && backedVariants.has(l.variantId))
      .flatMap((l) => lineReservations(l.lineId, l.variantId!, l.unfulfilled, l.placements, o.locationId ?? UNLOCATED).map((r) => ({ ...r, orderId: o.orderId }))));
    reserved += await reserveUnseenOrderLines(ctx, lines);
  }
  return reserved;
}

/**
 * The reservations of one BOM-backed line. `quantity` is what the line's own reservation counts
 * from (the line's quantity; after a full sync, its units still to ship), `fallback` the order's
 * location. Without placements the line is held whole at `fallback`. With placements (where the
 * platform assigned the units still to ship), each location holds its units: the line's own
 * reservation (which also counts what shipped) sits at the location holding most of them (ties: the
 * lowest location id) and holds `quantity` less what the others hold; every other location holds its
 * units in a reservation of its own (`<line>@<location>`). A line with placements but nothing left to
 * ship is held at `fallback`, holding what was not fulfilled (nothing, when the platform agrees).
 */
export function lineReservations(lineId: string, itemId: string, quantity: string, placements: readonly PlatformLinePlacement[] | undefined, fallback: string): OrderLineReservation[] {
  const at = new Map<string, Exact>();
  for (const p of placements ?? []) {
    const q = exact(p.quantity);
    if (q.gt(0)) at.set(p.locationId, (at.get(p.locationId) ?? ZERO).plus(q));
  }
  if (at.size === 0) return [{ lineId, itemId, locationId: fallback, quantity }];
  const ranked = [...at.entries()].sort(([a, qa], [b, qb]) => (qb.cmp(qa) !== 0 ? qb.cmp(qa) : a < b ? -1 : a > b ? 1 : 0));
  const [[primary], ...others] = ranked as [[string, Exact], ...[string, Exact][]];
  const elsewhere = others.reduce((sum, [, q]) => sum.plus(q), ZERO);
  return [
    { lineId, itemId, locationId: primary, quantity: Exact.max(exact(quantity).minus(elsewhere), ZERO).toFixed() },
    ...others.map(([locationId, q]) => ({ lineId: `${lineId}@${locationId}`, itemId, locationId, quantity: q.toFixed() })),
  ];
}

/** Records the change's fulfilments as applied; returns only those recorded now (the rest were applied before). */
async function newFulfilments(tx: ShopContext, change: PlatformOrderChange, orderLocation: string): Promise<(PlatformFulfilmentInfo & { locationId: string })[]> {
  const located = change.fulfilments
    .map((f) => ({ ...f, locationId: f.locationId ?? (orderLocation === UNLOCATED ? null : orderLocation) }))
    .filter((f): f is PlatformFulfilmentInfo & { locationId: string } => f.locationId !== null);
  if (located.length === 0) return [];
  const recorded = await runSql(tx.em, ordersSql.insertInto('order_fulfilments')
    .values(located.map((f) => ({ shop_id: tx.shopId, fulfilment_id: f.fulfilmentId, order_id: change.orderId, location_id: f.locationId, applied_at: new Date() })))
    .onConflict((oc) => oc.columns(['shop_id', 'fulfilment_id']).doNothing())
    .returning('fulfilment_id'));
  const fresh = new Set(recorded.map((r) => r.fulfilment_id));
  return located.filter((f) => fresh.has(f.fulfilmentId));
}

/** What a fulfilment shipped of BOM-backed lines: units by BOM, and the lines' fulfilled quantities. */
function shippedLines(fulfilment: PlatformFulfilmentInfo & { locationId: string }, bomOf: ReadonlyMap<string, BomLine>, backed: readonly OrderLineReservation[]) {
  const shipped = new Map<string, Exact>(); // BOM id → units
  const fulfilled: (OrderLineReservation & { fulfilled: string })[] = [];
  for (const line of fulfilment.lines) {
    const bom = line.variantId ? bomOf.get(line.variantId) : undefined;
    if (!bom) continue;
    const q = exact(line.quantity);
    shipped.set(bom.bomId, (shipped.get(bom.bomId) ?? ZERO).plus(q));
    const known = backed.find((b) => b.lineId === line.lineId);
    fulfilled.push({ lineId: line.lineId, itemId: bom.variantId, locationId: known?.locationId ?? fulfilment.locationId, quantity: known?.quantity ?? line.quantity, fulfilled: q.toFixed() });
  }
  return { shipped, fulfilled };
}

/**
 * Consumes one fulfilment at its location L, as the decisions say: per BOM-backed line, the
 * finished good's pre-assembled units at L first; the rest is built from components by recipe
 * exactly like a build run (L's rules, pushed down the tree, assembly shelves first, the residual
 * carry, clamping unless negatives are allowed); the line's fulfilledQuantity rises by what
 * shipped. Platform-linked component deductions go to the outbox; the finished good's own platform
 * level is the platform's (its fulfilment moved it), so it is never touched.
 */
async function consumeFulfilment(
  tx: ShopContext, change: PlatformOrderChange, fulfilment: PlatformFulfilmentInfo & { locationId: string },
  bomOf: ReadonlyMap<string, BomLine>, backed: readonly OrderLineReservation[],
): Promise<AppliedFulfilment> {
  const L = fulfilment.locationId;
  const { shipped, fulfilled } = shippedLines(fulfilment, bomOf, backed);
  if (shipped.size === 0) return { fulfilmentId: fulfilment.fulfilmentId, locationId: L, picks: [] };
  const goodOf = new Map([...bomOf.values()].map((b) => [b.bomId, b.variantId]));
  const roots: BillKey[] = [...shipped.keys()].map((bomId) => ({ ownerType: 'bom', ownerId: bomId }));
  const forest = await loadRecipeForest(tx, roots);
  const assemblies = [...forest.bills.values()].filter((b) => b.key.ownerType === 'sub_assembly').map((b) => b.key.ownerId);
  const goods = [...shipped.keys()].map((bomId) => goodOf.get(bomId)!);
  const [shelves, allowNegative] = await Promise.all([shelvesAt(tx, [...goods, ...assemblies], L, { forUpdate: true }), shopAllowsNegative(tx.em, tx.shopId)]);
  const requests: ConsumeRequest[] = [];
  const rest: { bill: BillKey; quantity: Exact }[] = [];
  for (const [bomId, q] of shipped) {
    const good = goodOf.get(bomId)!;
    const onShelf = Exact.max(shelves.get(good) ?? ZERO, ZERO).floor();
    const fromShelf = Exact.min(onShelf, q);
    if (fromShelf.gt(0)) requests.push({ stock: 'preassembled', itemId: good, locationId: L, quantity: fromShelf });
    if (q.minus(fromShelf).gt(0)) rest.push({ bill: { ownerType: 'bom', ownerId: bomId }, quantity: q.minus(fromShelf) });
  }
  if (rest.length > 0) {
    const plan = planConsumption(forest, rest, L, (id) => shelves.get(id) ?? ZERO);
    requests.push(
      ...[...plan.shelves.entries()].map(([itemId, quantity]) => ({ stock: 'preassembled' as const, itemId, locationId: L, quantity })),
      ...[...plan.materials.entries()].map(([itemId, quantity]) => ({ stock: 'material' as const, itemId, locationId: L, quantity })),
    );
  }
  const by = { source: 'order_fulfilment' as const, workOrderId: null, buildRunId: null, orderId: change.orderId, fulfilmentId: fulfilment.fulfilmentId };
  const picks = await consumeStock(tx, requests, by, allowNegative);
  await addFulfilledQuantities(tx, change.orderId, fulfilled);
  return { fulfilmentId: fulfilment.fulfilmentId, locationId: L, picks };
}
