import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import { exact } from '../../kernel/numbers/index.ts';
import type { PlatformLevelChange } from '../../kernel/platform-port/gateway.ts';
import { recordAppliedPush } from '../mirror.ts';
import { platformStoreSql } from '../tables.ts';
import type { WebhookEventEffect, WebhookEventStatus } from './webhooks/inbox.entity.ts';
import { webhookInboxSql } from './webhooks/tables.ts';

// The mirror writes that follow Shopify after the full sync: the webhook applier's (one event at a
// time, from REST payloads) and the reconciliation's (a page at a time, from GraphQL reads) — one
// code path, so both obey the same rule. Every write is conditional on Shopify's `updated_at`: a row
// is replaced or removed only by a version at least as new as what it holds, and a resource an
// applied webhook removed (the inbox keeps it: a tombstone) is not brought back by an older version.
// So whichever arrives first — a late event, a late reconciliation read — the mirror ends as
// Shopify's latest state.

/** The inbox's name of a resource, as receive.ts stores it. */
export const resourceOf = {
  level: (inventoryItemId: string, locationId: string) => `level:${inventoryItemId}:${locationId}`,
  item: (inventoryItemId: string) => `item:${inventoryItemId}`,
  product: (productId: string) => `product:${productId}`,
  location: (locationId: string) => `location:${locationId}`,
  order: (orderId: string) => `order:${orderId}`,
};

const APPLIED = sql.lit<WebhookEventStatus>('applied');
const REMOVE = sql.lit<WebhookEventEffect>('remove');
const DELETE = sql.lit<WebhookEventEffect>('delete');

/**
 * Which of these resources an applied webhook removed at `version` or later, or deleted for good
 * (Shopify never reuses an id): writing them at `version` would bring back what is gone. One statement.
 */
export async function removedResources(em: Em, shopId: string, subjects: readonly { resource: string; version: Date }[]): Promise<Set<string>> {
  if (subjects.length === 0) return new Set();
  const rows = await runSql(em, webhookInboxSql.selectFrom('shopify_webhook_events').select(['resource', 'effect', 'version'])
    .where('shop_id', '=', shopId).where('resource', 'in', [...new Set(subjects.map((s) => s.resource))]).where('status', '=', APPLIED)
    .where((eb) => eb.or([eb('effect', '=', DELETE), eb('effect', '=', REMOVE)])));
  const removed = new Set<string>();
  for (const s of subjects) {
    if (rows.some((r) => r.resource === s.resource && (r.effect === 'delete' || new Date(r.version).getTime() >= s.version.getTime()))) removed.add(s.resource);
  }
  return removed;
}

async function removedSince(em: Em, shopId: string, resource: string, version: Date): Promise<boolean> {
  return (await removedResources(em, shopId, [{ resource, version }])).has(resource);
}

export interface LevelWrite { variantId: string; inventoryItemId: string; locationId: string; available: string; version: Date }

/** A level written, with what the mirror held before (null: it held none). */
export interface WrittenLevel extends LevelWrite { before: string | null }

/** The levels whose value moved (a rewrite with the same value, a newer `updated_at` only, moved none). */
export function movedLevels(written: readonly WrittenLevel[]): PlatformLevelChange[] {
  return written.filter((w) => w.before === null || !exact(w.before).eq(exact(w.available)))
    .map((w) => ({ variantId: w.variantId, locationId: w.locationId, before: w.before, after: w.available }));
}

/**
 * Available levels, each unless newer is held or the level was disconnected since; returns the rows
 * written, each with the value held before (read in the upsert's own statement, from its snapshot).
 * Two statements.
 */
export async function writeLevels(em: Em, shopId: string, rows: readonly LevelWrite[]): Promise<WrittenLevel[]> {
  if (rows.length === 0) return [];
  const removed = await removedResources(em, shopId, rows.map((r) => ({ resource: resourceOf.level(r.inventoryItemId, r.locationId), version: r.version })));
  // One row per level (the last given wins): an upsert may not touch a row twice.
  const byKey = new Map<string, LevelWrite>();
  for (const r of rows) if (!removed.has(resourceOf.level(r.inventoryItemId, r.locationId))) byKey.set(`${r.variantId}:${r.locationId}`, r);
  if (byKey.size === 0) return [];
  const levels = [...byKey.values()];
  const written = await runSql(em, platformStoreSql
    .with('prior', (db) => db.selectFrom('platform_levels').select(['variant_id', 'location_id', sql<string>`available::text`.as('available')])
      .where('shop_id', '=', shopId).where('variant_id', 'in', [...new Set(levels.map((r) => r.variantId))])
      .where('location_id', 'in', [...new Set(levels.map((r) => r.locationId))]))
    .with('w', (db) => db.insertInto('platform_levels')
      .values(levels.map((r) => ({ shop_id: shopId, variant_id: r.variantId, location_id: r.locationId, available: r.available, updated_at: r.version })))
      .onConflict((oc) => oc.columns(['shop_id', 'variant_id', 'location_id'])
        .doUpdateSet((eb) => ({ available: eb.ref('excluded.available'), updated_at: eb.ref('excluded.updated_at') }))
        .where((eb) => eb.or([eb('platform_levels.updated_at', 'is', null), eb('platform_levels.updated_at', '<=', eb.ref('excluded.updated_at'))])))
      .returning(['variant_id', 'location_id']))
    .selectFrom('w').leftJoin('prior', (join) => join.onRef('prior.variant_id', '=', 'w.variant_id').onRef('prior.location_id', '=', 'w.location_id'))
    .select(['w.variant_id', 'w.location_id', 'prior.available as before']));
  return written.map((w) => ({ ...byKey.get(`${w.variant_id}:${w.location_id}`)!, before: w.before ?? null }));
}

/**
 * A push Shopify applied, as the mirror records it: the push among the applied ones (a retried
 * batch skips it) and the level Shopify answered, stamped with Shopify's time of the change,
 * through the guarded level write: a webhook of a later change that arrived first is not
 * overwritten, and a replayed (older) answer never moves the level back. One transaction.
 * Returns how much the mirror's level moved ("0" when it was not written).
 */
export async function recordPushedLevel(
  em: Em, shopId: string, push: { pushId: string; variantId: string; inventoryItemId: string; locationId: string }, available: string, at: Date,
): Promise<string> {
  return em.transactional(async (tx) => {
    await recordAppliedPush(tx, shopId, push.pushId);
    const [written] = await writeLevels(tx, shopId, [{ variantId: push.variantId, inventoryItemId: push.inventoryItemId, locationId: push.locationId, available, version: at }]);
    return written ? exact(written.available).minus(written.before ?? '0').toFixed() : '0';
  });
}

/** Removes a level (the item is no longer stocked at the location) unless a newer one is held; returns the levels that left. */
export async function removeLevel(em: Em, shopId: string, inventoryItemId: string, locationId: string, version: Date): Promise<PlatformLevelChange[]> {
  const removed = await runSql(em, platformStoreSql.deleteFrom('platform_levels')
    .where('shop_id', '=', shopId).where('location_id', '=', locationId)
    .where('variant_id', 'in', platformStoreSql.selectFrom('platform_variants').select('variant_id').where('shop_id', '=', shopId).where('inventory_item_id', '=', inventoryItemId))
    .where((eb) => eb.or([eb('updated_at', 'is', null), eb('updated_at', '<=', version)]))
    .returning(['variant_id', sql<string>`available::text`.as('available')]));
  return removed.map((r) => ({ variantId: r.variant_id, locationId, before: r.available, after: null }));
}

export interface VariantWrite {
  variantId: string; inventoryItemId: string; variantName: string | null; sku: string | null; price: string | null;
  /** The unit cost; undefined when the source does not carry it (a webhook's product): a held variant keeps its own. */
  cost?: string | null;
  /** Whether Shopify counts the item's stock; undefined when the source does not carry it (a webhook's product). */
  tracked?: boolean;
}
/** An inventory item as Shopify holds it at `version` (its own `updated_at`): its unit cost and whether its stock is counted. */
export interface InventoryItemWrite { inventoryItemId: string; cost: string | null; tracked: boolean; version: Date }

/**
 * The item's variant takes its cost and tracked flag, unless the mirror holds the item newer. The
 * variant ids written (empty: held newer); null when no variant of the item is mirrored (its
 * product's create may come later). Two statements at most.
 */
export async function writeInventoryItem(em: Em, shopId: string, item: InventoryItemWrite): Promise<string[] | null> {
  const written = await runSql(em, platformStoreSql.updateTable('platform_variants')
    .set({ cost: item.cost, tracked: item.tracked, item_updated_at: item.version })
    .where('shop_id', '=', shopId).where('inventory_item_id', '=', item.inventoryItemId)
    .where((eb) => eb.or([eb('item_updated_at', 'is', null), eb('item_updated_at', '<=', item.version)]))
    .returning('variant_id'));
  if (written.length > 0) return written.map((r) => r.variant_id);
  const [held] = await runSql(em, platformStoreSql.selectFrom('platform_variants').select('variant_id')
    .where('shop_id', '=', shopId).where('inventory_item_id', '=', item.inventoryItemId).limit(1));
  return held ? [] : null;
}

export interface ProductWrite { productId: string; productName: string; vendor: string | null; imageUrl: string | null; version: Date; variants: VariantWrite[] }

/**
 * A product's variants as Shopify holds them at `version`: written unless the mirror holds the
 * product newer or a webhook deleted it; variants no longer in it leave with their levels. Null when
 * nothing was written; else the variants written and those removed.
 */
export async function writeProduct(em: Em, shopId: string, product: ProductWrite): Promise<{ written: string[]; gone: string[] } | null> {
  if (await removedSince(em, shopId, resourceOf.product(product.productId), product.version)) return null;
  const held = await runSql(em, platformStoreSql.selectFrom('platform_variants').select(['variant_id', 'updated_at'])
    .where('shop_id', '=', shopId).where('product_id', '=', product.productId));
  if (held.some((r) => r.updated_at !== null && new Date(r.updated_at).getTime() > product.version.getTime())) return null;
  const withCost = product.variants.length > 0 && product.variants.every((v) => v.cost !== undefined);
  const withTracked = product.variants.length > 0 && product.variants.every((v) => v.tracked !== undefined);
  if (product.variants.length > 0) {
    await runSqlWrite(em, platformStoreSql.insertInto('platform_variants').values(product.variants.map((v) => ({
      shop_id: shopId, variant_id: v.variantId, product_id: product.productId, inventory_item_id: v.inventoryItemId, product_name: product.productName,
      variant_name: v.variantName, sku: v.sku, vendor: product.vendor, price: v.price, cost: v.cost ?? null, image_url: product.imageUrl, updated_at: product.version,
      tracked: v.tracked ?? true,
    }))).onConflict((oc) => oc.columns(['shop_id', 'variant_id']).doUpdateSet((eb) => ({
      product_id: eb.ref('excluded.product_id'), inventory_item_id: eb.ref('excluded.inventory_item_id'), product_name: eb.ref('excluded.product_name'),
      variant_name: eb.ref('excluded.variant_name'), sku: eb.ref('excluded.sku'), vendor: eb.ref('excluded.vendor'), price: eb.ref('excluded.price'),
      ...(withCost ? { cost: eb.ref('excluded.cost') } : {}),
      ...(withTracked ? { tracked: eb.ref('excluded.tracked') } : {}),
      image_url: eb.ref('excluded.image_url'), updated_at: eb.ref('excluded.updated_at'),
    })).where((eb) => eb.or([eb('platform_variants.updated_at', 'is', null), eb('platform_variants.updated_at', '<=', eb.ref('excluded.updated_at'))]))));
  }
  const kept = new Set(product.variants.map((v) => v.variantId));
  const gone = held.map((r) => r.variant_id).filter((v) => !kept.has(v));
  await removeVariants(em, shopId, gone);
  return { written: [...kept], gone };
}

/** A product deleted for good: its variants and their levels leave. Returns the variants removed. */
export async function removeProduct(em: Em, shopId: string, productId: string): Promise<string[]> {
  const held = await runSql(em, platformStoreSql.selectFrom('platform_variants').select('variant_id').where('shop_id', '=', shopId).where('product_id', '=', productId));
  const ids = held.map((r) => r.variant_id);
  await removeVariants(em, shopId, ids);
  return ids;
}

async function removeVariants(em: Em, shopId: string, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0) return;
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_levels').where('shop_id', '=', shopId).where('variant_id', 'in', variantIds));
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_variants').where('shop_id', '=', shopId).where('variant_id', 'in', variantIds));
}

/** An active location's name, unless newer is held or it was removed since; true when written. */
export async function writeLocation(em: Em, shopId: string, location: { locationId: string; name: string; version: Date }): Promise<boolean> {
  if (await removedSince(em, shopId, resourceOf.location(location.locationId), location.version)) return false;
  const written = await runSql(em, platformStoreSql.insertInto('platform_locations').values({ shop_id: shopId, location_id: location.locationId, name: location.name, updated_at: location.version })
    .onConflict((oc) => oc.columns(['shop_id', 'location_id']).doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), updated_at: eb.ref('excluded.updated_at') }))
      .where((eb) => eb.or([eb('platform_locations.updated_at', 'is', null), eb('platform_locations.updated_at', '<=', eb.ref('excluded.updated_at'))])))
    .returning('location_id'));
  return written.length > 0;
}

/** A location out of the mirror (deactivated: with its version, unless newer is held; deleted: `version` null). */
export async function removeLocation(em: Em, shopId: string, locationId: string, version: Date | null): Promise<boolean> {
  let query = platformStoreSql.deleteFrom('platform_locations').where('shop_id', '=', shopId).where('location_id', '=', locationId);
  if (version) query = query.where((eb) => eb.or([eb('updated_at', 'is', null), eb('updated_at', '<=', version)]));
  return (await runSql(em, query.returning('location_id'))).length > 0;
}

export interface OrderLineWrite { variantId: string | null; productId: string | null; sku: string | null; title: string; quantity: string }
export interface OrderWrite { orderId: string; name: string; note: string | null; version: Date; lines: OrderLineWrite[] }

/**
 * An open order with its note and current lines (replacing the held ones, a history row of it
 * included: it is open again), unless newer is held or it was removed since; true when written.
 */
export async function writeOpenOrder(em: Em, shopId: string, order: OrderWrite): Promise<boolean> {
  if (await removedSince(em, shopId, resourceOf.order(order.orderId), order.version)) return false;
  const written = await runSql(em, platformStoreSql.insertInto('platform_orders')
    .values({ shop_id: shopId, order_id: order.orderId, name: order.name, note: order.note, open: true, updated_at: order.version })
    .onConflict((oc) => oc.columns(['shop_id', 'order_id'])
      .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), note: eb.ref('excluded.note'), open: eb.ref('excluded.open'), updated_at: eb.ref('excluded.updated_at') }))
      .where((eb) => eb.or([eb('platform_orders.updated_at', 'is', null), eb('platform_orders.updated_at', '<=', eb.ref('excluded.updated_at'))])))
    .returning('order_id'));
  if (written.length === 0) return false;
  await runSqlWrite(em, platformStoreSql.deleteFrom('platform_order_lines').where('shop_id', '=', shopId).where('order_id', '=', order.orderId));
  if (order.lines.length > 0) {
    await runSqlWrite(em, platformStoreSql.insertInto('platform_order_lines').values(order.lines.map((l, position) => ({
      shop_id: shopId, order_id: order.orderId, position, variant_id: l.variantId, product_id: l.productId, sku: l.sku, title: l.title, quantity: l.quantity,
    }))));
  }
  return true;
}

/**
 * An order out of the mirror (closed or cancelled: with its version, unless newer is held; deleted:
 * `version` null); a history row of it goes too (the next read that names it reads it afresh).
 * True when it was one of the open orders.
 */
export async function removeOrder(em: Em, shopId: string, orderId: string, version: Date | null): Promise<boolean> {
  let query = platformStoreSql.deleteFrom('platform_orders').where('shop_id', '=', shopId).where('order_id', '=', orderId);
  if (version) query = query.where((eb) => eb.or([eb('updated_at', 'is', null), eb('updated_at', '<=', version)]));
  const removed = await runSql(em, query.returning(['order_id', 'open']));
  if (removed.length > 0) await runSqlWrite(em, platformStoreSql.deleteFrom('platform_order_lines').where('shop_id', '=', shopId).where('order_id', '=', orderId));
  return removed.some((r) => r.open);
}

/**
 * Orders read from the platform on demand (a read named them and the mirror held none), kept as
 * history: `open` false, so they reserve nothing and stay out of the open orders, even one Shopify
 * still has open (its webhook or the reconciliation makes it an open order, with its reservations).
 * A row already held — an open order a webhook wrote meanwhile — is left as it is. Two statements.
 */
export async function writeOrderHistory(em: Em, shopId: string, orders: readonly OrderWrite[]): Promise<void> {
  if (orders.length === 0) return;
  const written = new Set((await runSql(em, platformStoreSql.insertInto('platform_orders')
    .values(orders.map((o) => ({ shop_id: shopId, order_id: o.orderId, name: o.name, note: o.note, open: false, updated_at: o.version })))
    .onConflict((oc) => oc.columns(['shop_id', 'order_id']).doNothing())
    .returning('order_id'))).map((r) => r.order_id));
  const lines = orders.filter((o) => written.has(o.orderId)).flatMap((o) => o.lines.map((l, position) => ({
    shop_id: shopId, order_id: o.orderId, position, variant_id: l.variantId, product_id: l.productId, sku: l.sku, title: l.title, quantity: l.quantity,
  })));
  if (lines.length > 0) await runSqlWrite(em, platformStoreSql.insertInto('platform_order_lines').values(lines));
}
