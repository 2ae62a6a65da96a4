import type { Em } from '../../db/orm.ts';
import { analyzeTablesIn } from '../../db/analyze.ts';
import { exact } from '../../kernel/numbers/index.ts';
import type { PlatformOpenOrder } from '../../kernel/platform-port/gateway.ts';
import { MirrorReplacement, mirroredVariantPages, type MirroredVariant } from '../mirror.ts';
import type { ShopifyAdminApi } from './admin-api.ts';
import { runBulkExport, type BulkFile } from './bulk-export.ts';
import { holdingLocation, locateOrder, readOrderLocations, type FulfillmentOrderNode, type OrderLocation } from './fulfilment-orders.ts';
import { fromGid, gidResource } from './ids.ts';
import { bulkQuery, requestOperation } from './operations.ts';
import { blankToNull, decimalOrNull, variantNameOf } from './values.ts';
import { weightUnitLabel } from './weight-units.ts';
import { reapplyEventsSince } from './webhooks/reapply.ts';

/**
 * A full sync of one store into the shop's platform mirror: locations (paged), then variants
 * with their products, inventory items and available levels, then open orders with their line
 * items (two bulk exports, downloaded before the write), then one transaction that replaces the
 * mirror and lets platform-linked materials take their catalogue fields and level totals
 * (`afterMirror`, the materials module's, wired by the caller). Nothing is held whole in memory:
 * the exports are read line by line, the materials updated a page at a time.
 */
export type SyncPhase = 'locations' | 'variants' | 'orders' | 'writing';

export interface FullSyncOptions {
  api: ShopifyAdminApi;
  /** The database (not a transaction: the sync opens its own). */
  em: Em;
  shopId: string;
  /** Runs in the write transaction once the mirror is replaced: platform-linked materials follow their variants. */
  afterMirror?: (em: Em, shopId: string, variants: AsyncIterable<MirroredVariant[]>) => Promise<void>;
  /** Runs in the sync's transaction after the mirror: the open orders read (order execution reserves those it has not seen). */
  afterOrders?: (em: Em, shopId: string, orders: readonly PlatformOpenOrder[]) => Promise<void>;
  /** Progress: the phase, how many objects it has seen, and of how many when known (the write phase). */
  onProgress?: (phase: SyncPhase, count: number, total: number | null) => void;
  pollMs?: number;
}

/** Clock difference allowed between this machine and Shopify when telling events newer than the snapshot. */
const SNAPSHOT_MARGIN_MS = 60_000;

const MIRROR_TABLES = ['platform_locations', 'platform_variants', 'platform_levels', 'platform_orders', 'platform_order_lines'];

export interface SyncCounts { locations: number; variants: number; levels: number; orders: number; lineItems: number }

interface LocationsAnswer { locations: { nodes: { id: string; name: string; isActive: boolean; updatedAt: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }

export async function fullSync(options: FullSyncOptions): Promise<SyncCounts> {
  const { api, em, shopId, onProgress } = options;
  const locations: { locationId: string; name: string; updatedAt: string }[] = [];
  for (let after: string | null = null; ;) {
    const page: LocationsAnswer = await api.request<LocationsAnswer>(requestOperation('locations'), { after });
    for (const node of page.locations.nodes) if (node.isActive) locations.push({ locationId: fromGid('Location', node.id), name: node.name, updatedAt: node.updatedAt });
    onProgress?.('locations', locations.length, null);
    if (!page.locations.pageInfo.hasNextPage) break;
    after = page.locations.pageInfo.endCursor;
  }
  // Webhook events of changes after this moment may be newer than the snapshot: applied again after it.
  const exportStarted = new Date(Date.now() - SNAPSHOT_MARGIN_MS);
  const variants = await runBulkExport(api, bulkQuery('variants'), { pollMs: options.pollMs, onProgress: (n) => onProgress?.('variants', n, null) });
  let orders: BulkFile | null = null;
  try {
    orders = await runBulkExport(api, bulkQuery('open-orders'), { pollMs: options.pollMs, onProgress: (n) => onProgress?.('orders', n, null) });
    // Orders whose fulfilment orders are at several locations: their lines' placements, read before the write.
    const split = await readSplitOrders(api, orders);
    const files = { variants, orders };
    return await em.fork().transactional(async (tx) => {
      const mirror = new MirrorReplacement(tx, shopId);
      await mirror.begin();
      for (const location of locations) await mirror.addLocation(location);
      await writeVariants(mirror, files.variants, (n) => onProgress?.('writing', n, files.variants.objectCount));
      const openOrders = await writeOrders(mirror, files.orders, split);
      await mirror.finish();
      // Statistics of the rows just written (ANALYZE sees them inside the transaction): the steps
      // after this one join them, and a table the planner believes empty is planned as one.
      await analyzeTablesIn(tx, MIRROR_TABLES);
      await reapplyEventsSince(tx, shopId, exportStarted);
      if (options.afterMirror) await options.afterMirror(tx, shopId, mirroredVariantPages(tx, shopId));
      if (options.afterOrders) await options.afterOrders(tx, shopId, openOrders);
      return { ...mirror.counts };
    });
  } finally {
    await variants.dispose();
    await orders?.dispose();
  }
}


interface VariantLine {
  id: string; title: string; sku: string | null; price: string | null;
  product: {
    id: string; title: string; vendor: string | null; updatedAt: string; productType: string | null; category: { name: string } | null;
    featuredMedia: { preview: { image: { url: string } | null } | null } | null;
  };
  inventoryItem: { id: string; tracked: boolean; updatedAt: string; unitCost: { amount: string } | null; measurement: { weight: { unit: string; value: number } | null } | null };
}
interface LevelLine { __parentId: string; location: { id: string }; quantities: { name: string; quantity: number }[]; updatedAt: string }

async function writeVariants(mirror: MirrorReplacement, file: BulkFile, progress: (n: number) => void): Promise<void> {
  let seen = 0;
  for await (const object of file.lines()) {
    seen += 1;
    if (seen % 1000 === 0) progress(seen);
    if (typeof object.id === 'string' && gidResource(object.id) === 'ProductVariant') {
      const v = object as unknown as VariantLine;
      await mirror.addVariant({
        variantId: fromGid('ProductVariant', v.id), productId: fromGid('Product', v.product.id), inventoryItemId: fromGid('InventoryItem', v.inventoryItem.id),
        productName: v.product.title, variantName: variantNameOf(v.title), sku: blankToNull(v.sku), vendor: blankToNull(v.product.vendor),
        price: decimalOrNull(v.price), cost: decimalOrNull(v.inventoryItem.unitCost?.amount ?? null), imageUrl: v.product.featuredMedia?.preview?.image?.url ?? null,
        updatedAt: v.product.updatedAt, productType: blankToNull(v.product.productType), productCategory: v.product.category?.name ?? null, ...weightOf(v.inventoryItem),
        tracked: v.inventoryItem.tracked, itemUpdatedAt: v.inventoryItem.updatedAt,
      });
    } else if (typeof object.__parentId === 'string' && Array.isArray(object.quantities)) {
      const level = object as unknown as LevelLine;
      const available = level.quantities.find((q) => q.name === 'available');
      if (!available) continue;
      await mirror.addLevel({ variantId: fromGid('ProductVariant', level.__parentId), locationId: fromGid('Location', level.location.id), available: String(available.quantity), updatedAt: level.updatedAt });
    }
  }
  progress(seen);
}

interface OrderLine { id: string; name: string; updatedAt: string; note: string | null; retailLocation: { id: string } | null }
/** A fulfilment order's line in the orders export (`__parentId` = the order); its line items are not in a bulk file. */
type FulfillmentOrderLine = Omit<FulfillmentOrderNode, 'lineItems'> & { __parentId: string }

const isFulfillmentOrderLine = (object: Record<string, unknown>) => typeof object.id === 'string' && gidResource(object.id) === 'FulfillmentOrder';

/** The export's fulfilment orders as nodes without line items (each placed whole at its location). */
const withoutLines = (fo: FulfillmentOrderLine): FulfillmentOrderNode => ({ id: fo.id, status: fo.status, assignedLocation: fo.assignedLocation, lineItems: { nodes: [] } });


/**
 * The orders of the export whose holding fulfilment orders are at more than one location (no retail
 * location), read again with their fulfilment orders' line items: where each line's units are.
 * One pass over the file (an order's fulfilment orders follow it) and a request per 10 such orders.
 */
async function readSplitOrders(api: ShopifyAdminApi, file: BulkFile): Promise<Map<string, OrderLocation>> {
  const retail = new Set<string>();
  const locations = new Map<string, Set<string>>();
  for await (const object of file.lines()) {
    if (typeof object.id === 'string' && gidResource(object.id) === 'Order' && object.retailLocation) retail.add(fromGid('Order', object.id));
    if (!isFulfillmentOrderLine(object)) continue;
    const fo = object as unknown as FulfillmentOrderLine;
    const orderId = fromGid('Order', fo.__parentId);
    const at = holdingLocation(fo);
    if (at !== null) locations.set(orderId, (locations.get(orderId) ?? new Set()).add(at));
  }
  const split = [...locations].filter(([orderId, at]) => at.size > 1 && !retail.has(orderId)).map(([orderId]) => orderId);
  return split.length > 0 ? (await readOrderLocations(api, split, [])).orders : new Map();
}
interface LineItemLine {
  __parentId: string; id: string; sku: string | null; title: string; quantity: number; currentQuantity: number; unfulfilledQuantity: number;
  variant: { id: string } | null; product: { id: string } | null;
}

/**
 * Mirrors the open orders; returns them as order execution reads them (held in memory: a few small
 * rows per open order), located by the location rule (fulfilment-orders.ts): `split` holds the
 * orders whose fulfilment orders are at several locations, read with their line items.
 */
async function writeOrders(mirror: MirrorReplacement, file: BulkFile, split: ReadonlyMap<string, OrderLocation>): Promise<PlatformOpenOrder[]> {
  // Line positions count per order in file order (a line item follows its order in Shopify's file).
  const positions = new Map<string, number>();
  const open = new Map<string, PlatformOpenOrder>();
  const retail = new Map<string, { id: string } | null>();
  const fulfillmentOrders = new Map<string, FulfillmentOrderNode[]>();
  for await (const object of file.lines()) {
    if (typeof object.id === 'string' && gidResource(object.id) === 'Order') {
      const order = object as unknown as OrderLine;
      const orderId = fromGid('Order', order.id);
      await mirror.addOrder({ orderId, name: order.name, note: blankToNull(order.note), updatedAt: order.updatedAt });
      open.set(orderId, { orderId, locationId: null, lines: [] });
      retail.set(orderId, order.retailLocation);
    } else if (isFulfillmentOrderLine(object)) {
      const fo = object as unknown as FulfillmentOrderLine;
      const orderId = fromGid('Order', fo.__parentId);
      fulfillmentOrders.set(orderId, [...(fulfillmentOrders.get(orderId) ?? []), withoutLines(fo)]);
    } else if (typeof object.__parentId === 'string' && gidResource(object.__parentId) === 'Order') {
      const line = object as unknown as LineItemLine;
      // A removed line (an order edit) has no current quantity: the breakdown reflects current line items.
      if (line.currentQuantity <= 0) continue;
      const orderId = fromGid('Order', line.__parentId);
      const unfulfilled = Math.max(0, line.unfulfilledQuantity);
      if (unfulfilled > 0) {
        open.get(orderId)?.lines.push({ lineId: fromGid('LineItem', line.id), variantId: line.variant ? fromGid('ProductVariant', line.variant.id) : null, unfulfilled: String(unfulfilled) });
      }
      const position = positions.get(orderId) ?? 0;
      positions.set(orderId, position + 1);
      await mirror.addOrderLine({
        orderId, position, variantId: line.variant ? fromGid('ProductVariant', line.variant.id) : null, productId: line.product ? fromGid('Product', line.product.id) : null,
        sku: blankToNull(line.sku), title: line.title, quantity: String(line.currentQuantity),
      });
    }
  }
  for (const order of open.values()) {
    const located = split.get(order.orderId) ?? locateWhole(retail.get(order.orderId) ?? null, fulfillmentOrders.get(order.orderId) ?? []);
    order.locationId = located.locationId;
    if (located.placements) for (const line of order.lines) line.placements = located.placements.get(line.lineId) ?? [];
  }
  return [...open.values()];
}

/** An order whose fulfilment orders the export gave without line items: its location, when they share one (else none). */
function locateWhole(retailLocation: { id: string } | null, fulfillmentOrders: readonly FulfillmentOrderNode[]): OrderLocation {
  if (retailLocation) return locateOrder(retailLocation, null);
  const at = new Set(fulfillmentOrders.map(holdingLocation).filter((l): l is string => l !== null));
  return { locationId: at.size === 1 ? [...at][0]! : null, placements: null };
}

/** Shopify's weight (a Float and a unit) as bomcore's exact text and unit label; none for a zero weight or an unknown unit. */
function weightOf(item: VariantLine['inventoryItem']): { weightValue: string | null; weightUnitId: string | null } {
  const weight = item.measurement?.weight;
  const unit = weight ? weightUnitLabel(weight.unit) : null;
  // JSON gave a double; its shortest decimal text is what Shopify sent (weights carry a few digits).
  if (!weight || unit === null || weight.value === 0) return { weightValue: null, weightUnitId: null };
  return { weightValue: exact(String(weight.value)).toFixed(), weightUnitId: unit };
}
