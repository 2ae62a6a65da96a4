import { sql } from 'kysely';
import type { Em } from '../../../db/orm.ts';
import { runSql, runSqlWrite } from '../../../db/typed-sql.ts';
import { exact } from '../../../numbers/index.ts';
import type { PlatformOrderChange } from '../../gateway.ts';
import { platformStoreSql } from '../../tables.ts';
import type { WebhookEventEffect, WebhookEventStatus } from './inbox.entity.ts';
import { webhookInboxSql } from './tables.ts';

// What each webhook topic does to the shop's mirror (the local platform store). Every write is
// conditional on Shopify's `updated_at`: a row is replaced or removed only by an event at least as
// new as what it holds, and a resource removed by an applied event (the inbox keeps it: a
// tombstone) is not brought back by an older one. So events may arrive late, twice or in any
// order, and the mirror ends as Shopify's latest state. Payloads are Shopify's REST resources.

/** An event the applier works on: its topic, resource, Shopify's time of the change and its body. */
export interface InboxEvent { shopId: string; eventId: string; topic: string; resource: string; version: Date; payload: Record<string, unknown> }

/** What applying an event did, and which variants' catalogue fields or levels it changed (platform-linked materials follow them). */
export interface Applied {
  effect: WebhookEventEffect;
  variantIds: string[];
  uninstalled?: boolean;
  /** An order event the mirror took (not an older copy): order execution follows it. */
  order?: PlatformOrderChange;
}

/** The event needs something not mirrored yet (a level of a variant whose product is not here): try again later. */
export class NotYetApplicable extends Error {}

const NOTHING: Applied = { effect: 'none', variantIds: [] };

/** Shopify's title of the one variant of a product without options: bomcore says no variant name. */
const DEFAULT_VARIANT_TITLE = 'Default Title';

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function id(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && /^\d+$/.test(value) ? value : null;
}

function money(value: unknown): string | null {
  if (typeof value === 'number') return null; // Shopify sends money as text: a float here is not its format.
  const t = text(value);
  return t === null ? null : exact(t).toFixed();
}

/** An applied `remove` at least as new as `version`, or any applied `delete`, of the resource. */
async function removedSince(em: Em, e: InboxEvent): Promise<boolean> {
  const rows = await runSql(em, webhookInboxSql.selectFrom('shopify_webhook_events').select('event_id')
    .where('shop_id', '=', e.shopId).where('resource', '=', e.resource).where('status', '=', sql.lit<WebhookEventStatus>('applied'))
    .where((eb) => eb.or([eb('effect', '=', sql.lit<WebhookEventEffect>('delete')), eb.and([eb('effect', '=', sql.lit<WebhookEventEffect>('remove')), eb('version', '>=', e.version)])]))
    .limit(1));
  return rows.length > 0;
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
  if (await removedSince(em, e)) return NOTHING;
  const written = await runSql(em, platformStoreSql.insertInto('platform_levels')
    .values({ shop_id: e.shopId, variant_id: variant.variant_id, location_id: location, available: String(available), updated_at: e.version })
    .onConflict((oc) => oc.columns(['shop_id', 'variant_id', 'location_id'])
      .doUpdateSet((eb) => ({ available: eb.ref('excluded.available'), updated_at: eb.ref('excluded.updated_at') }))
      .where((eb) => eb.or([eb('platform_levels.updated_at', 'is', null), eb('platform_levels.updated_at', '<=', eb.ref('excluded.updated_at'))])))
    .returning('variant_id'));
  return written.length > 0 ? { effect: 'upsert', variantIds: [variant.variant_id] } : NOTHING;
}

/** inventory_levels/disconnect: the item is no longer stocked at the location. */
export async function disconnectLevel(em: Em, e: InboxEvent): Promise<Applied> {
  const item = id(e.payload.inventory_item_id);
  const location = id(e.payload.location_id);
  if (item === null || location === null) return NOTHING;
  const removed = await runSql(em, platformStoreSql.deleteFrom('platform_levels')
    .where('shop_id', '=', e.shopId).where('location_id', '=', location)
    .where('variant_id', 'in', platformStoreSql.selectFrom('platform_variants').select('variant_id').where('shop_id', '=', e.shopId).where('inventory_item_id', '=', item))
    .where((eb) => eb.or([eb('updated_at', 'is', null), eb('updated_at', '<=', e.version)]))
    .returning('variant_id'));
  return { effect: 'remove', variantIds: removed.map((r) => r.variant_id) };
}

interface ProductVariantPayload { id?: unknown; title?: unknown; sku?: unknown; price?: unknown; inventory_item_id?: unknown }

/**
 * products/create and /update: the product's variants (title, sku, price, image, vendor; the cost
 * is not in Shopify's payload, so a known variant keeps its own), and variants no longer in the
 * product leave with their levels.
 */
export async function applyProduct(em: Em, e: InboxEvent): Promise<Applied> {
  const productId = id(e.payload.id);
  if (productId === null || await removedSince(em, e)) return NOTHING;
  const held = await runSql(em, platformStoreSql.selectFrom('platform_variants').select(['variant_id', 'updated_at'])
    .where('shop_id', '=', e.shopId).where('product_id', '=', productId));
  if (held.some((r) => r.updated_at !== null && new Date(r.updated_at).getTime() > e.version.getTime())) return NOTHING;
  const image = e.payload.image as { src?: unknown } | null | undefined;
  const images = Array.isArray(e.payload.images) ? e.payload.images as { src?: unknown }[] : [];
  const imageUrl = text(image?.src) ?? text(images[0]?.src);
  const variants = (Array.isArray(e.payload.variants) ? e.payload.variants as ProductVariantPayload[] : [])
    .map((v) => ({ variantId: id(v.id), inventoryItemId: id(v.inventory_item_id), v }))
    .filter((v): v is { variantId: string; inventoryItemId: string; v: ProductVariantPayload } => v.variantId !== null && v.inventoryItemId !== null);
  const productName = text(e.payload.title) ?? '';
  if (variants.length > 0) {
    await runSqlWrite(em, platformStoreSql.insertInto('platform_variants').values(variants.map(({ variantId, inventoryItemId, v }) => ({
      shop_id: e.shopId, variant_id: variantId, product_id: productId, inventory_item_id: inventoryItemId, product_name: productName,
      variant_name: text(v.title) === DEFAULT_VARIANT_TITLE ? null : text(v.title), sku: text(v.sku), vendor: text(e.payload.vendor),
      price: money(v.price), cost: null, image_url: imageUrl, updated_at: e.version,
    }))).onConflict((oc) => oc.columns(['shop_id', 'variant_id']).doUpdateSet((eb) => ({
      product_id: eb.ref('excluded.product_id'), inventory_item_id: eb.ref('excluded.inventory_item_id'), product_name: eb.ref('excluded.product_name'),
      variant_name: eb.ref('excluded.variant_name'), sku: eb.ref('excluded.sku'), vendor: eb.ref('excluded.vendor'), price: eb.ref('excluded.price'),
      image_url: eb.ref('excluded.image_url'), updated_at: eb.ref('excluded.updated_at'),
    })).where((eb) => eb.or([eb('platform_variants.updated_at', 'is', null), eb('platform_variants.updated_at', '<=', eb.ref('excluded.updated_at'))]))));
  }
  const kept = new Set(variants.map((v) => v.variantId));
  const gone = held.map((r) => r.variant_id).filter((v) => !kept.has(v));
  await removeVariants(em, e.shopId, gone);
  return { effect: 'upsert', variantIds: [...kept, ...gone] };
}

/** products/delete: the product's variants and their levels leave for good. */
export async function deleteProduct(em: Em, e: InboxEvent): Promise<Applied> {
  const productId = id(e.payload.id);
  if (productId === null) return NOTHING;
  const held = await runSql(em, platformStoreSql.selectFrom('platform_variants').select('variant_id').where('shop_id', '=', e.shopId).where('product_id', '=', productId));
  await removeVariants(em, e.shopId, held.map((r) => r.variant_id));
  return { effect: 'delete', variantIds: [] };
}

async function removeVariants(em: Em, shopId: string, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0) return;
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_levels').where('shop_id', '=', shopId).where('variant_id', 'in', variantIds));
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_variants').where('shop_id', '=', shopId).where('variant_id', 'in', variantIds));
}

/** locations/create, /update, /activate (an active location: its name), /deactivate (out of the mirror, which holds active locations). */
export async function applyLocation(em: Em, e: InboxEvent): Promise<Applied> {
  const locationId = id(e.payload.id);
  if (locationId === null) return NOTHING;
  const active = e.topic === 'locations/deactivate' ? false : e.payload.active !== false;
  if (!active) {
    await runSqlWrite(em, platformStoreSql.deleteFrom('platform_locations').where('shop_id', '=', e.shopId).where('location_id', '=', locationId)
      .where((eb) => eb.or([eb('updated_at', 'is', null), eb('updated_at', '<=', e.version)])));
    return { effect: 'remove', variantIds: [] };
  }
  const name = text(e.payload.name);
  if (name === null || await removedSince(em, e)) return NOTHING;
  await runSqlWrite(em, platformStoreSql.insertInto('platform_locations').values({ shop_id: e.shopId, location_id: locationId, name, updated_at: e.version })
    .onConflict((oc) => oc.columns(['shop_id', 'location_id']).doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), updated_at: eb.ref('excluded.updated_at') }))
      .where((eb) => eb.or([eb('platform_locations.updated_at', 'is', null), eb('platform_locations.updated_at', '<=', eb.ref('excluded.updated_at'))]))));
  return { effect: 'upsert', variantIds: [] };
}

/** locations/delete: gone for good (its levels stay: Shopify deletes only a location without stock). */
export async function deleteLocation(em: Em, e: InboxEvent): Promise<Applied> {
  const locationId = id(e.payload.id);
  if (locationId === null) return NOTHING;
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_locations').where('shop_id', '=', e.shopId).where('location_id', '=', locationId));
  return { effect: 'delete', variantIds: [] };
}

interface LineItemPayload { id?: unknown; variant_id?: unknown; product_id?: unknown; sku?: unknown; title?: unknown; quantity?: unknown; current_quantity?: unknown }

/**
 * orders/create, /updated, /fulfilled, /cancelled: an open order (neither cancelled nor closed)
 * with its current line items (a removed line has no current quantity), as the full sync mirrors
 * it; a cancelled or closed one leaves the open orders.
 */
export async function applyOrder(em: Em, e: InboxEvent): Promise<Applied> {
  const orderId = id(e.payload.id);
  if (orderId === null) return NOTHING;
  const cancelled = e.topic === 'orders/cancelled' || text(e.payload.cancelled_at) !== null;
  if (cancelled || text(e.payload.closed_at) !== null) {
    await removeOrder(em, e.shopId, orderId, e.version);
    return { effect: 'remove', variantIds: [], order: orderChange(orderId, e.payload, cancelled ? 'cancelled' : 'closed') };
  }
  if (await removedSince(em, e)) return NOTHING;
  const name = text(e.payload.name) ?? `#${orderId}`;
  const written = await runSql(em, platformStoreSql.insertInto('platform_orders').values({ shop_id: e.shopId, order_id: orderId, name, updated_at: e.version })
    .onConflict((oc) => oc.columns(['shop_id', 'order_id']).doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), updated_at: eb.ref('excluded.updated_at') }))
      .where((eb) => eb.or([eb('platform_orders.updated_at', 'is', null), eb('platform_orders.updated_at', '<=', eb.ref('excluded.updated_at'))])))
    .returning('order_id'));
  if (written.length === 0) return NOTHING;
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_order_lines').where('shop_id', '=', e.shopId).where('order_id', '=', orderId));
  const lines = (Array.isArray(e.payload.line_items) ? e.payload.line_items as LineItemPayload[] : [])
    .map((l) => ({ l, quantity: typeof l.current_quantity === 'number' ? l.current_quantity : typeof l.quantity === 'number' ? l.quantity : 0 }))
    .filter(({ quantity }) => Number.isInteger(quantity) && quantity > 0);
  if (lines.length > 0) {
    await runSqlWrite(em, platformStoreSql.insertInto('platform_order_lines').values(lines.map(({ l, quantity }, position) => ({
      shop_id: e.shopId, order_id: orderId, position, variant_id: id(l.variant_id), product_id: id(l.product_id), sku: text(l.sku), title: text(l.title) ?? '', quantity: String(quantity),
    }))));
  }
  return { effect: 'upsert', variantIds: [], order: orderChange(orderId, e.payload, 'open') };
}

/** A line's current quantity (a removed line has none). */
function currentQuantity(l: LineItemPayload): number {
  const quantity = typeof l.current_quantity === 'number' ? l.current_quantity : typeof l.quantity === 'number' ? l.quantity : 0;
  return Number.isInteger(quantity) && quantity > 0 ? quantity : 0;
}

interface FulfilmentPayload { id?: unknown; location_id?: unknown; status?: unknown; line_items?: unknown }

/** The order as order execution reads it: lines by id, the order's location, every successful fulfilment. */
function orderChange(orderId: string, payload: Record<string, unknown>, status: PlatformOrderChange['status']): PlatformOrderChange {
  const lines = (Array.isArray(payload.line_items) ? payload.line_items as LineItemPayload[] : [])
    .map((l) => ({ lineId: id(l.id), variantId: id(l.variant_id), quantity: String(currentQuantity(l)) }))
    .filter((l): l is { lineId: string; variantId: string | null; quantity: string } => l.lineId !== null);
  const fulfilments = (Array.isArray(payload.fulfillments) ? payload.fulfillments as FulfilmentPayload[] : [])
    .filter((f) => f.status === undefined || f.status === 'success')
    .flatMap((f) => {
      const fulfilmentId = id(f.id);
      if (fulfilmentId === null) return [];
      const items = (Array.isArray(f.line_items) ? f.line_items as LineItemPayload[] : [])
        .map((l) => ({ lineId: id(l.id), variantId: id(l.variant_id), quantity: typeof l.quantity === 'number' && Number.isInteger(l.quantity) ? l.quantity : 0 }))
        .filter((l) => l.lineId !== null && l.quantity > 0)
        .map((l) => ({ lineId: l.lineId!, variantId: l.variantId, quantity: String(l.quantity) }));
      return [{ fulfilmentId, locationId: id(f.location_id), lines: items }];
    });
  return { orderId, status, locationId: id(payload.location_id), lines, fulfilments };
}

/** orders/delete: gone for good. */
export async function deleteOrder(em: Em, e: InboxEvent): Promise<Applied> {
  const orderId = id(e.payload.id);
  if (orderId === null) return NOTHING;
  await removeOrder(em, e.shopId, orderId, null);
  return { effect: 'delete', variantIds: [], order: { orderId, status: 'deleted', locationId: null, lines: [], fulfilments: [] } };
}

/** Removes an open order and its lines; with a version, only when the mirror's copy is not newer. */
async function removeOrder(em: Em, shopId: string, orderId: string, version: Date | null): Promise<void> {
  let query = platformStoreSql.deleteFrom('platform_orders').where('shop_id', '=', shopId).where('order_id', '=', orderId);
  if (version) query = query.where((eb) => eb.or([eb('updated_at', 'is', null), eb('updated_at', '<=', version)]));
  const removed = await runSql(em, query.returning('order_id'));
  if (removed.length > 0) await runSqlWrite(em, platformStoreSql.deleteFrom('platform_order_lines').where('shop_id', '=', shopId).where('order_id', '=', orderId));
}
