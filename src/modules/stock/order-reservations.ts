import { sql } from 'kysely';
import { textArrayLiteral as arrayLiteral } from '../../db/sql-arrays.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { Exact, exact, ZERO } from '../../kernel/numbers/index.ts';
import { stockSql } from './tables.ts';
import { enqueueStorefrontRecomputes } from '../boms/for-stock.ts';

// Order reservations of platform orders (kind `order`): one per BOM-backed order line, keyed by the
// order and the line, holding quantity − fulfilledQuantity of the finished good at the line's
// fulfilment location (UNLOCATED when none); a line whose units the platform placed at several
// locations has one more per other location (`<line>@<location>`, holding the units there). The orders module's execution service calls these in
// its transaction; the commitments read and the shelf allocation read them.

/** One BOM-backed line as the platform last reported it. `locationId` is UNLOCATED when none is assigned. */
export interface OrderLineReservation { lineId: string; itemId: string; locationId: string; quantity: string }

/** The reservation id of an order line: deterministic, so a replayed event finds its row. */
export const orderReservationId = (orderId: string, lineId: string): string => `order:${orderId}:${lineId}`;

/**
 * Creates or updates the reservations of an open order's BOM-backed lines (quantity and location as
 * reported; fulfilledQuantity kept). A line that left the order keeps what was fulfilled and holds
 * nothing more. One statement each, whatever the number of lines.
 */
export async function syncOrderReservations(ctx: ShopContext, orderId: string, lines: readonly OrderLineReservation[]): Promise<void> {
  const ids = lines.map((l) => orderReservationId(orderId, l.lineId));
  if (lines.length > 0) {
    await runSqlWrite(ctx.em, stockSql.insertInto('reservations').values(lines.map((l, i) => ({
      shop_id: ctx.shopId, reservation_id: ids[i]!, kind: 'order' as const, item_id: l.itemId, location_id: l.locationId, order_id: orderId,
      owner_type: null, owner_id: null, quantity: l.quantity, fulfilled_quantity: '0', active: true,
    }))).onConflict((oc) => oc.columns(['shop_id', 'reservation_id']).doUpdateSet((eb) => ({
      item_id: eb.ref('excluded.item_id'), location_id: eb.ref('excluded.location_id'), quantity: eb.ref('excluded.quantity'), active: sql.lit(true),
    }))));
  }
  let gone = stockSql.updateTable('reservations').set((eb) => ({ quantity: eb.ref('fulfilled_quantity') }))
    .where('shop_id', '=', ctx.shopId).where('kind', '=', sql.lit('order')).where('order_id', '=', orderId)
    .where(sql<boolean>`reservation_id like ${`order:${orderId}:%`}`);
  if (ids.length > 0) gone = gone.where(sql<boolean>`reservation_id <> all(${arrayLiteral(ids)}::text[])`);
  const released = await runSql(ctx.em, gone.returning('item_id'));
  // A finished good's storefront level counts its open reservations.
  await enqueueStorefrontRecomputes(ctx.em, ctx.shopId, { items: [...lines.map((l) => l.itemId), ...released.map((r) => r.item_id)] });
}

/**
 * Raises the fulfilledQuantity of order lines by what a fulfilment shipped (lines without a
 * reservation, say of an order placed before its BOM existed, get one holding nothing open).
 */
export async function addFulfilledQuantities(ctx: ShopContext, orderId: string, lines: readonly (OrderLineReservation & { fulfilled: string })[]): Promise<void> {
  if (lines.length === 0) return;
  await runSqlWrite(ctx.em, stockSql.insertInto('reservations').values(lines.map((l) => ({
    shop_id: ctx.shopId, reservation_id: orderReservationId(orderId, l.lineId), kind: 'order' as const, item_id: l.itemId, location_id: l.locationId,
    order_id: orderId, owner_type: null, owner_id: null, quantity: l.quantity, fulfilled_quantity: l.fulfilled, active: true,
  }))).onConflict((oc) => oc.columns(['shop_id', 'reservation_id']).doUpdateSet((eb) => ({
    fulfilled_quantity: sql<string>`${eb.ref('reservations.fulfilled_quantity')} + ${eb.ref('excluded.fulfilled_quantity')}`,
  }))));
  await enqueueStorefrontRecomputes(ctx.em, ctx.shopId, { items: lines.map((l) => l.itemId) });
}

/**
 * Reserves the lines of orders order execution has not seen yet (a full sync's open orders): a
 * line with a reservation already keeps it (its events were applied). `quantity` is what is still
 * to ship; the first event of the order later sets the line's quantity and counts its fulfilments.
 * One statement for the batch.
 */
export async function reserveUnseenOrderLines(ctx: ShopContext, lines: readonly (OrderLineReservation & { orderId: string })[]): Promise<number> {
  if (lines.length === 0) return 0;
  await enqueueStorefrontRecomputes(ctx.em, ctx.shopId, { items: lines.map((l) => l.itemId) });
  return runSqlWrite(ctx.em, stockSql.insertInto('reservations').values(lines.map((l) => ({
    shop_id: ctx.shopId, reservation_id: orderReservationId(l.orderId, l.lineId), kind: 'order' as const, item_id: l.itemId, location_id: l.locationId,
    order_id: l.orderId, owner_type: null, owner_id: null, quantity: l.quantity, fulfilled_quantity: '0', active: true,
  }))).onConflict((oc) => oc.columns(['shop_id', 'reservation_id']).doNothing()));
}

/**
 * The reservations of an open order, grouped back into its lines: per line (`<line>` and its
 * `<line>@<location>` parts) the item and the quantity the line's reservations count from (their
 * quantities summed). Empty for an order that holds nothing or was released. One statement.
 */
export async function openOrderLines(ctx: ShopContext, orderId: string): Promise<{ lineId: string; itemId: string; quantity: string }[]> {
  const rows = await runSql(ctx.em, stockSql.selectFrom('reservations').select(['reservation_id', 'item_id', 'quantity'])
    .where('shop_id', '=', ctx.shopId).where('kind', '=', sql.lit('order')).where('order_id', '=', orderId).where('active', '=', sql.lit(true))
    .orderBy('reservation_id'));
  const prefix = `order:${orderId}:`;
  const lines = new Map<string, { lineId: string; itemId: string; quantity: Exact }>();
  for (const r of rows) {
    if (!r.reservation_id.startsWith(prefix)) continue;
    const lineId = r.reservation_id.slice(prefix.length).split('@')[0]!;
    const line = lines.get(lineId) ?? { lineId, itemId: r.item_id, quantity: ZERO };
    line.quantity = line.quantity.plus(exact(r.quantity));
    lines.set(lineId, line);
  }
  return [...lines.values()].map((l) => ({ lineId: l.lineId, itemId: l.itemId, quantity: l.quantity.toFixed() }));
}

/** Releases an order's open reservations (cancelled, closed or deleted): what was fulfilled stays, nothing more is held. */
export async function releaseOrderReservations(ctx: ShopContext, orderId: string): Promise<void> {
  const released = await runSql(ctx.em, stockSql.updateTable('reservations').set((eb) => ({ quantity: eb.ref('fulfilled_quantity'), active: sql.lit(false) }))
    .where('shop_id', '=', ctx.shopId).where('kind', '=', sql.lit('order')).where('order_id', '=', orderId).returning('item_id'));
  await enqueueStorefrontRecomputes(ctx.em, ctx.shopId, { items: released.map((r) => r.item_id) });
}
