import type { Em } from '../../../db/orm.ts';
import { runSql } from '../../../db/typed-sql.ts';
import type { PlatformLevelChange, PlatformOrderChange, PlatformOrderLocation } from '../../../kernel/platform-port/gateway.ts';
import type { OrderLocation } from '../fulfilment-orders.ts';
import { platformStoreSql } from '../../tables.ts';
import {
  movedLevels, removeLevel, removeLocation, removeOrder, removeProduct, writeInventoryItem, writeLevels, writeLocation, writeOpenOrder, writeProduct,
} from '../mirror-guard.ts';
import { decimalOrNull, variantNameOf } from '../values.ts';
import type { WebhookEventEffect } from './inbox.entity.ts';
import { fulfillmentOrderIdsOf } from './receive.ts';

// What each webhook topic does to the shop's mirror (the local platform store): the payload (one of
// Shopify's REST resources) read into the guarded writes of ../mirror-guard.ts, which the
// reconciliation shares. Every write is conditional on Shopify's `updated_at` and on the inbox's
// tombstones, so events may arrive late, twice or in any order, and the mirror ends as Shopify's
// latest state.

/** An event the applier works on: its topic, resource, Shopify's time of the change and its body. */
export interface InboxEvent { shopId: string; eventId: string; topic: string; resource: string; version: Date; payload: Record<string, unknown> }

/** What applying an event did, and which variants' catalogue fields or levels it changed (platform-linked materials follow them). */
export interface Applied {
  effect: WebhookEventEffect;
  variantIds: string[];
  /** The levels whose value it moved (their events follow). */
  levels?: PlatformLevelChange[];
  uninstalled?: boolean;
  /** customers/data_request: what bomcore holds of the customer, logged for the operator. */
  report?: Record<string, unknown>;
  /** shop/redact: the store's data left the mirror; bomcore's own records follow (WebhookFollowers.shopRedacted). */
  shopRedacted?: boolean;
  /** An order event the mirror took (not an older copy): order execution follows it. */
  order?: PlatformOrderChange;
  /** Orders whose units Shopify placed elsewhere (a fulfilment order moved or split): their reservations follow. */
  relocated?: PlatformOrderLocation[];
}

/**
 * Where orders are, as the applier read them from Shopify before applying a batch of events
 * (fulfilment-orders.ts): by order id, and the order of each fulfilment order named.
 */
export interface LocatedOrders { orders: ReadonlyMap<string, OrderLocation>; orderOf: ReadonlyMap<string, string> }

/**
 * What an event needs read from Shopify before it is applied: a fulfillment_orders/* event, the
 * order of the fulfilment orders it names; an order event of an open order without a retail
 * location (`location_id`: an online order), where its fulfilment orders are.
 */
export function locationReadsOf(e: Pick<InboxEvent, 'topic' | 'payload'>): { orderIds: string[]; fulfillmentOrderIds: string[] } {
  if (e.topic.startsWith('fulfillment_orders/')) return { orderIds: [], fulfillmentOrderIds: fulfillmentOrderIdsOf(e.payload) };
  const orderId = id(e.payload.id);
  const open = e.topic !== 'orders/cancelled' && e.topic !== 'orders/delete' && text(e.payload.cancelled_at) === null && text(e.payload.closed_at) === null;
  if (!e.topic.startsWith('orders/') || orderId === null || !open || id(e.payload.location_id) !== null) return { orderIds: [], fulfillmentOrderIds: [] };
  return { orderIds: [orderId], fulfillmentOrderIds: [] };
}

/** The event needs something not mirrored yet (a level of a variant whose product is not here): try again later. */
export class NotYetApplicable extends Error {}

const NOTHING: Applied = { effect: 'none', variantIds: [] };

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function id(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && /^\d+$/.test(value) ? value : null;
}

function money(value: unknown): string | null {
  if (typeof value === 'number') return null; // Shopify sends money as text: a float here is not its format.
  return decimalOrNull(text(value));
}

/** inventory_levels/update and /connect: the level of the item's variant at the location, unless newer is held. */
export async function applyLevel(em: Em, e: InboxEvent): Promise<Applied> {
  const item = id(e.payload.inventory_item_id);
  const location = id(e.payload.location_id);
  const available = e.payload.available;
  // An untracked item has no available quantity: nothing to mirror.
  if (item === null || location === null || typeof available !== 'number' || !Number.isInteger(available)) return NOTHING;
  const [variant] = await runSql(em, platformStoreSql.selectFrom('platform_variants').select('variant_id')
    .where('shop_id', '=', e.shopId).where('inventory_item_id', '=', item).limit(1));
  if (!variant) throw new NotYetApplicable(`inventory item ${item} is not mirrored (its products/create may come later)`);
  const written = await writeLevels(em, e.shopId, [{ variantId: variant.variant_id, inventoryItemId: item, locationId: location, available: String(available), version: e.version }]);
  return written.length > 0 ? { effect: 'upsert', variantIds: [variant.variant_id], levels: movedLevels(written) } : NOTHING;
}

/** inventory_levels/disconnect: the item is no longer stocked at the location. */
export async function disconnectLevel(em: Em, e: InboxEvent): Promise<Applied> {
  const item = id(e.payload.inventory_item_id);
  const location = id(e.payload.location_id);
  if (item === null || location === null) return NOTHING;
  const levels = await removeLevel(em, e.shopId, item, location, e.version);
  return { effect: 'remove', variantIds: levels.map((l) => l.variantId), levels };
}

interface ProductVariantPayload { id?: unknown; title?: unknown; sku?: unknown; price?: unknown; inventory_item_id?: unknown }

/**
 * products/create and /update: the product's variants (title, sku, price, image, vendor; the cost
 * is not in Shopify's payload, so a known variant keeps its own), and variants no longer in the
 * product leave with their levels.
 */
export async function applyProduct(em: Em, e: InboxEvent): Promise<Applied> {
  const productId = id(e.payload.id);
  if (productId === null) return NOTHING;
  const image = e.payload.image as { src?: unknown } | null | undefined;
  const images = Array.isArray(e.payload.images) ? e.payload.images as { src?: unknown }[] : [];
  const variants = (Array.isArray(e.payload.variants) ? e.payload.variants as ProductVariantPayload[] : [])
    .map((v) => ({ variantId: id(v.id), inventoryItemId: id(v.inventory_item_id), v }))
    .filter((v): v is { variantId: string; inventoryItemId: string; v: ProductVariantPayload } => v.variantId !== null && v.inventoryItemId !== null)
    .map(({ variantId, inventoryItemId, v }) => ({
      variantId, inventoryItemId, variantName: variantNameOf(text(v.title)), sku: text(v.sku), price: money(v.price),
    }));
  const written = await writeProduct(em, e.shopId, {
    productId, productName: text(e.payload.title) ?? '', vendor: text(e.payload.vendor), imageUrl: text(image?.src) ?? text(images[0]?.src), version: e.version, variants,
  });
  return written ? { effect: 'upsert', variantIds: [...written.written, ...written.gone] } : NOTHING;
}

/**
 * inventory_items/update: the item's unit cost (the only place a webhook carries it) and whether
 * Shopify counts its stock, onto its variant, unless newer is held. Platform-linked materials follow
 * (their cost, and the cost roll-up of the bills that use them; an untracked one stops limiting buildable).
 */
export async function applyInventoryItem(em: Em, e: InboxEvent): Promise<Applied> {
  const item = id(e.payload.id);
  if (item === null || typeof e.payload.tracked !== 'boolean') return NOTHING;
  const written = await writeInventoryItem(em, e.shopId, { inventoryItemId: item, cost: money(e.payload.cost), tracked: e.payload.tracked, version: e.version });
  if (written === null) throw new NotYetApplicable(`inventory item ${item} is not mirrored (its products/create may come later)`);
  return written.length > 0 ? { effect: 'upsert', variantIds: written } : NOTHING;
}

/** products/delete: the product's variants and their levels leave for good. */
export async function deleteProduct(em: Em, e: InboxEvent): Promise<Applied> {
  const productId = id(e.payload.id);
  if (productId === null) return NOTHING;
  await removeProduct(em, e.shopId, productId);
  return { effect: 'delete', variantIds: [] };
}

/** locations/create, /update, /activate (an active location: its name), /deactivate (out of the mirror, which holds active locations). */
export async function applyLocation(em: Em, e: InboxEvent): Promise<Applied> {
  const locationId = id(e.payload.id);
  if (locationId === null) return NOTHING;
  const active = e.topic === 'locations/deactivate' ? false : e.payload.active !== false;
  if (!active) {
    await removeLocation(em, e.shopId, locationId, e.version);
    return { effect: 'remove', variantIds: [] };
  }
  const name = text(e.payload.name);
  if (name === null || !await writeLocation(em, e.shopId, { locationId, name, version: e.version })) return NOTHING;
  return { effect: 'upsert', variantIds: [] };
}

/** locations/delete: gone for good (its levels stay: Shopify deletes only a location without stock). */
export async function deleteLocation(em: Em, e: InboxEvent): Promise<Applied> {
  const locationId = id(e.payload.id);
  if (locationId === null) return NOTHING;
  await removeLocation(em, e.shopId, locationId, null);
  return { effect: 'delete', variantIds: [] };
}

interface LineItemPayload { id?: unknown; variant_id?: unknown; product_id?: unknown; sku?: unknown; title?: unknown; quantity?: unknown; current_quantity?: unknown }

/**
 * orders/create, /updated, /fulfilled, /cancelled: an open order (neither cancelled nor closed)
 * with its note and current line items (a removed line has no current quantity), as the full sync
 * mirrors it; a cancelled or closed one leaves the open orders.
 */
export async function applyOrder(em: Em, e: InboxEvent, located?: LocatedOrders): Promise<Applied> {
  const orderId = id(e.payload.id);
  if (orderId === null) return NOTHING;
  const cancelled = e.topic === 'orders/cancelled' || text(e.payload.cancelled_at) !== null;
  if (cancelled || text(e.payload.closed_at) !== null) {
    await removeOrder(em, e.shopId, orderId, e.version);
    return { effect: 'remove', variantIds: [], order: orderChange(orderId, e.payload, cancelled ? 'cancelled' : 'closed') };
  }
  const lines = (Array.isArray(e.payload.line_items) ? e.payload.line_items as LineItemPayload[] : [])
    .map((l) => ({ l, quantity: typeof l.current_quantity === 'number' ? l.current_quantity : typeof l.quantity === 'number' ? l.quantity : 0 }))
    .filter(({ quantity }) => Number.isInteger(quantity) && quantity > 0)
    .map(({ l, quantity }) => ({ variantId: id(l.variant_id), productId: id(l.product_id), sku: text(l.sku), title: text(l.title) ?? '', quantity: String(quantity) }));
  const written = await writeOpenOrder(em, e.shopId, { orderId, name: text(e.payload.name) ?? `#${orderId}`, note: text(e.payload.note), version: e.version, lines });
  // Order execution follows only an event the mirror accepted: a late, older one changes nothing.
  return written ? { effect: 'upsert', variantIds: [], order: orderChange(orderId, e.payload, 'open', located?.orders.get(orderId)) } : NOTHING;
}

/**
 * fulfillment_orders/moved and /split: Shopify placed an order's units elsewhere. The payload names
 * fulfilment orders only; the applier read where their order is now (Shopify's current state, so
 * any order of delivery ends right), and the order's reservations follow. Nothing in the mirror
 * changes (it keeps no locations of orders). Without a read (no Admin API here) it does nothing.
 */
export async function applyFulfillmentOrders(_em: Em, e: InboxEvent, located?: LocatedOrders): Promise<Applied> {
  const orderIds = new Set(fulfillmentOrderIdsOf(e.payload).map((fo) => located?.orderOf.get(fo)).filter((o): o is string => o !== undefined));
  const relocated: PlatformOrderLocation[] = [];
  for (const orderId of orderIds) {
    const at = located!.orders.get(orderId);
    if (at) relocated.push({ orderId, locationId: at.locationId, placements: at.placements ? Object.fromEntries(at.placements) : null });
  }
  return relocated.length > 0 ? { effect: 'upsert', variantIds: [], relocated } : NOTHING;
}

/** A line's current quantity (a removed line has none). */
function currentQuantity(l: LineItemPayload): number {
  const quantity = typeof l.current_quantity === 'number' ? l.current_quantity : typeof l.quantity === 'number' ? l.quantity : 0;
  return Number.isInteger(quantity) && quantity > 0 ? quantity : 0;
}

interface FulfilmentPayload { id?: unknown; location_id?: unknown; status?: unknown; created_at?: unknown; line_items?: unknown }

/**
 * The order as order execution reads it: lines by id, where the order is, every successful
 * fulfilment. A point-of-sale order's payload names its retail location (`location_id`); any other
 * order's location is where its fulfilment orders are (`located`, read by the applier; unread, none).
 */
function orderChange(orderId: string, payload: Record<string, unknown>, status: PlatformOrderChange['status'], located?: OrderLocation): PlatformOrderChange {
  const retail = id(payload.location_id);
  const placements = retail === null ? located?.placements ?? null : null;
  const lines = (Array.isArray(payload.line_items) ? payload.line_items as LineItemPayload[] : [])
    .map((l) => ({ lineId: id(l.id), variantId: id(l.variant_id), quantity: String(currentQuantity(l)) }))
    .filter((l): l is { lineId: string; variantId: string | null; quantity: string } => l.lineId !== null)
    .map((l) => (placements ? { ...l, placements: placements.get(l.lineId) ?? [] } : l));
  const fulfilments = (Array.isArray(payload.fulfillments) ? payload.fulfillments as FulfilmentPayload[] : [])
    .filter((f) => f.status === undefined || f.status === 'success')
    .flatMap((f) => {
      const fulfilmentId = id(f.id);
      if (fulfilmentId === null) return [];
      const items = (Array.isArray(f.line_items) ? f.line_items as LineItemPayload[] : [])
        .map((l) => ({ lineId: id(l.id), variantId: id(l.variant_id), quantity: typeof l.quantity === 'number' && Number.isInteger(l.quantity) ? l.quantity : 0 }))
        .filter((l) => l.lineId !== null && l.quantity > 0)
        .map((l) => ({ lineId: l.lineId!, variantId: l.variantId, quantity: String(l.quantity) }));
      const createdAt = typeof f.created_at === 'string' && !Number.isNaN(Date.parse(f.created_at)) ? new Date(f.created_at) : null;
      return [{ fulfilmentId, locationId: id(f.location_id), createdAt, lines: items }];
    });
  return { orderId, status, locationId: retail ?? located?.locationId ?? null, lines, fulfilments };
}

/** orders/delete: gone for good. */
export async function deleteOrder(em: Em, e: InboxEvent): Promise<Applied> {
  const orderId = id(e.payload.id);
  if (orderId === null) return NOTHING;
  await removeOrder(em, e.shopId, orderId, null);
  return { effect: 'delete', variantIds: [], order: { orderId, status: 'deleted', locationId: null, lines: [], fulfilments: [] } };
}
