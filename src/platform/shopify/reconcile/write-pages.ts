import type { Em } from '../../../db/orm.ts';
import { runSql } from '../../../db/typed-sql.ts';
import { exact } from '../../../kernel/numbers/index.ts';
import type { PlatformLevelChange, PlatformOrderChange } from '../../../kernel/platform-port/gateway.ts';
import { platformStoreSql } from '../../tables.ts';
import { fromGid } from '../ids.ts';
import { blankToNull } from '../values.ts';
import { movedLevels, removeOrder, writeLevels, writeLocation, writeOpenOrder, writeProduct, type LevelWrite, type ProductWrite } from '../mirror-guard.ts';
import { availableOf, toOrderChange, toOrderLines, toProductWrite, type LevelNode, type LocationNode, type OrderNode, type ProductNode } from './reads.ts';

// One page of a reconciliation read, written to the mirror in the caller's transaction through the
// guarded writes the webhooks use (../mirror-guard.ts). What the mirror held is read first (one
// statement a page), so a row written with other content than it held counts as drift: Shopify
// changed it and no webhook told bomcore. A row rewritten with the same content (a newer
// `updated_at` only) is no drift.

export interface Drift { locations: number; variants: number; levels: number; orders: number }
export const noDrift = (): Drift => ({ locations: 0, variants: 0, levels: 0, orders: 0 });

/**
 * What a page changed: drift by kind, the variants whose catalogue fields or levels moved
 * (platform-linked materials follow them), and the orders order execution follows.
 */
export interface PageResult { drift: Drift; variantIds: string[]; unmatched: number; orders?: PlatformOrderChange[]; levels?: PlatformLevelChange[] }

const same = (a: string | null, b: string | null) => (a === null || b === null ? a === b : exact(a).eq(exact(b)));

export async function writeLocationsPage(em: Em, shopId: string, nodes: LocationNode[]): Promise<PageResult> {
  const active = nodes.filter((n) => n.isActive).map((n) => ({ locationId: fromGid('Location', n.id), name: n.name, version: new Date(n.updatedAt) }));
  const result: PageResult = { drift: noDrift(), variantIds: [], unmatched: 0 };
  if (active.length === 0) return result;
  const held = new Map((await runSql(em, platformStoreSql.selectFrom('platform_locations').select(['location_id', 'name'])
    .where('shop_id', '=', shopId).where('location_id', 'in', active.map((l) => l.locationId)))).map((r) => [r.location_id, r.name]));
  for (const location of active) {
    if (await writeLocation(em, shopId, location) && held.get(location.locationId) !== location.name) result.drift.locations += 1;
  }
  return result;
}

export async function writeProductsPage(em: Em, shopId: string, nodes: ProductNode[]): Promise<PageResult> {
  const products = nodes.map(toProductWrite);
  const result: PageResult = { drift: noDrift(), variantIds: [], unmatched: 0 };
  if (products.length === 0) return result;
  const rows = await runSql(em, platformStoreSql.selectFrom('platform_variants')
    .select(['variant_id', 'product_id', 'inventory_item_id', 'product_name', 'variant_name', 'sku', 'vendor', 'price', 'cost', 'image_url'])
    .where('shop_id', '=', shopId).where('product_id', 'in', products.map((p) => p.productId)));
  const held = new Map(rows.map((r) => [r.variant_id, r]));
  for (const product of products) {
    const written = await writeProduct(em, shopId, product);
    if (!written) continue;
    const changed = product.variants.filter((v) => differs(held.get(v.variantId), product, v)).map((v) => v.variantId);
    result.drift.variants += changed.length + written.gone.length;
    result.variantIds.push(...changed, ...written.gone);
  }
  return result;
}

type HeldVariant = { product_id: string; inventory_item_id: string; product_name: string; variant_name: string | null; sku: string | null; vendor: string | null; price: string | null; cost: string | null; image_url: string | null };

function differs(held: HeldVariant | undefined, product: ProductWrite, v: ProductWrite['variants'][number]): boolean {
  if (!held) return true;
  return held.product_id !== product.productId || held.inventory_item_id !== v.inventoryItemId || held.product_name !== product.productName
    || held.variant_name !== v.variantName || held.sku !== v.sku || held.vendor !== product.vendor || held.image_url !== product.imageUrl
    || !same(held.price, v.price) || !same(held.cost, v.cost ?? null);
}

export async function writeLevelsPage(em: Em, shopId: string, locationId: string, nodes: LevelNode[]): Promise<PageResult> {
  const result: PageResult = { drift: noDrift(), variantIds: [], unmatched: 0 };
  const levels = nodes.map((n) => ({ itemId: fromGid('InventoryItem', n.item.id), available: availableOf(n), version: new Date(n.updatedAt) }))
    .filter((l): l is { itemId: string; available: string; version: Date } => l.available !== null);
  if (levels.length === 0) return result;
  const variants = new Map((await runSql(em, platformStoreSql.selectFrom('platform_variants').select(['variant_id', 'inventory_item_id'])
    .where('shop_id', '=', shopId).where('inventory_item_id', 'in', levels.map((l) => l.itemId)))).map((r) => [r.inventory_item_id, r.variant_id]));
  const rows: LevelWrite[] = [];
  for (const level of levels) {
    const variantId = variants.get(level.itemId);
    // A level of a product the mirror does not hold (created after the window's product read): the next window has it.
    if (variantId === undefined) result.unmatched += 1;
    else rows.push({ variantId, inventoryItemId: level.itemId, locationId, available: level.available, version: level.version });
  }
  if (rows.length === 0) return result;
  // What the mirror held comes with the write (writeLevels reads it in the upsert's statement).
  result.levels = movedLevels(await writeLevels(em, shopId, rows));
  result.drift.levels = result.levels.length;
  result.variantIds.push(...result.levels.map((l) => l.variantId));
  return result;
}

/**
 * Orders changed in the window. Order execution follows, as after an order webhook: every closed or
 * cancelled order (its fulfilments are consumed once, what it holds is released), and an open order
 * the mirror took — an open order the mirror holds in a newer version came through a webhook,
 * which ran order execution on that newer state.
 */
export async function writeOrdersPage(em: Em, shopId: string, nodes: OrderNode[]): Promise<PageResult> {
  const result: PageResult = { drift: noDrift(), variantIds: [], unmatched: 0, orders: [] };
  if (nodes.length === 0) return result;
  const ids = nodes.map((n) => fromGid('Order', n.id));
  const heldOrders = new Map((await runSql(em, platformStoreSql.selectFrom('platform_orders').select(['order_id', 'name', 'note', 'open'])
    .where('shop_id', '=', shopId).where('order_id', 'in', ids))).map((r) => [r.order_id, r]));
  const heldLines = new Map<string, string[]>();
  const lineRows = await runSql(em, platformStoreSql.selectFrom('platform_order_lines').select(['order_id', 'variant_id', 'product_id', 'sku', 'title', 'quantity'])
    .where('shop_id', '=', shopId).where('order_id', 'in', ids).orderBy('order_id').orderBy('position'));
  for (const l of lineRows) heldLines.set(l.order_id, [...(heldLines.get(l.order_id) ?? []), lineKey(l.variant_id, l.product_id, l.sku, l.title, l.quantity)]);
  for (const node of nodes) {
    const orderId = fromGid('Order', node.id);
    const version = new Date(node.updatedAt);
    if (node.closed || node.cancelledAt !== null) {
      if (await removeOrder(em, shopId, orderId, version)) result.drift.orders += 1;
      result.orders!.push(toOrderChange(node));
      continue;
    }
    const lines = toOrderLines(node);
    const note = blankToNull(node.note);
    if (!await writeOpenOrder(em, shopId, { orderId, name: node.name, note, version, lines })) continue;
    result.orders!.push(toOrderChange(node));
    const before = heldLines.get(orderId) ?? [];
    const after = lines.map((l) => lineKey(l.variantId, l.productId, l.sku, l.title, l.quantity));
    const held = heldOrders.get(orderId);
    if (!held?.open || held.name !== node.name || (held.note ?? null) !== note || before.length !== after.length || before.some((k, i) => k !== after[i])) result.drift.orders += 1;
  }
  return result;
}

function lineKey(variantId: string | null, productId: string | null, sku: string | null, title: string, quantity: string): string {
  return JSON.stringify([variantId, productId, sku, title, exact(quantity).toFixed()]);
}
