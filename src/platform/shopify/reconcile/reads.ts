import type { PlatformOrderChange } from '../../../kernel/platform-port/gateway.ts';
import type { ShopifyAdminApi } from '../admin-api.ts';
import { locateOrder, type FulfillmentOrderNode } from '../fulfilment-orders.ts';
import { fromGid, toGid } from '../ids.ts';
import type { OrderLineWrite, ProductWrite, VariantWrite } from '../mirror-guard.ts';
import { requestOperation } from '../operations.ts';
import { blankToNull, decimalOrNull, variantNameOf } from '../values.ts';

// What the reconciliation reads from the Admin API, page by page, and the mirror rows it makes of
// it — the same rows the full sync writes (Shopify's "Default Title" is no variant name, a blank
// text is null, money is exact decimal text, a removed line item is not an open line).

interface PageInfo { hasNextPage: boolean; endCursor: string | null }
export interface Page<T> { nodes: T[]; pageInfo: PageInfo }

interface VariantNode { id: string; title: string; sku: string | null; price: string | null; inventoryItem: { id: string; tracked: boolean; unitCost: { amount: string } | null } }
export interface ProductNode {
  id: string; title: string; vendor: string | null; updatedAt: string;
  featuredMedia: { preview: { image: { url: string } | null } | null } | null;
  variants: Page<VariantNode>;
}
export interface LevelNode { updatedAt: string; item: { id: string }; quantities: { name: string; quantity: number }[] }
interface LineItemNode { id: string; sku: string | null; title: string; quantity: number; currentQuantity: number; variant: { id: string } | null; product: { id: string } | null }
interface FulfillmentLineNode { quantity: number | null; lineItem: { id: string; variant: { id: string } | null } }
interface FulfillmentNode { id: string; status: string; createdAt: string; location: { id: string } | null; fulfillmentLineItems: Page<FulfillmentLineNode> }
export interface OrderNode {
  id: string; name: string; updatedAt: string; closed: boolean; cancelledAt: string | null; note: string | null; retailLocation: { id: string } | null;
  fulfillmentOrders: { nodes: FulfillmentOrderNode[] };
  lineItems: Page<LineItemNode>; fulfillments: FulfillmentNode[];
}
export interface LocationNode { id: string; name: string; isActive: boolean; updatedAt: string }

/** Counts every request a pass sends: its budget is in requests. */
export interface Budget { take(): boolean }

/** Shopify's search for a window of changes: after `since`, up to and including `until` (whole seconds). */
export function windowQuery(since: Date, until: Date): string {
  const at = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `updated_at:>'${at(since)}' AND updated_at:<='${at(until)}'`;
}

export async function readLocations(api: ShopifyAdminApi, after: string | null): Promise<Page<LocationNode>> {
  return (await api.request<{ locations: Page<LocationNode> }>(requestOperation('locations'), { after })).locations;
}

export async function readProducts(api: ShopifyAdminApi, query: string, after: string | null): Promise<Page<ProductNode>> {
  return (await api.request<{ products: Page<ProductNode> }>(requestOperation('reconcile-products'), { query, after })).products;
}

export async function readLevels(api: ShopifyAdminApi, locationId: string, query: string, after: string | null): Promise<Page<LevelNode> | null> {
  const answer = await api.request<{ location: { inventoryLevels: Page<LevelNode> } | null }>(requestOperation('reconcile-levels'), { location: toGid('Location', locationId), query, after });
  return answer.location?.inventoryLevels ?? null;
}

export async function readOrders(api: ShopifyAdminApi, query: string, after: string | null): Promise<Page<OrderNode>> {
  return (await api.request<{ orders: Page<OrderNode> }>(requestOperation('reconcile-orders'), { query, after })).orders;
}

/**
 * Pages on through a connection whose first page came nested in a read: appends every further
 * page's nodes to `first.nodes`, each request taken from the budget. `next` reads the page after a
 * cursor (null: its owner is gone, nothing more to read). False when the budget ran out.
 */
async function readRest<T>(first: Page<T>, budget: Budget, next: (after: string | null) => Promise<Page<T> | null>): Promise<boolean> {
  for (let page = first; page.pageInfo.hasNextPage;) {
    if (!budget.take()) return false;
    const answer = await next(page.pageInfo.endCursor);
    if (!answer) return true;
    page = answer;
    first.nodes.push(...page.nodes);
  }
  return true;
}

/** The variants of a product past its first page (each request taken from the budget; false when it ran out). */
export function readRestOfVariants(api: ShopifyAdminApi, product: ProductNode, budget: Budget): Promise<boolean> {
  return readRest(product.variants, budget, async (after) => (await api.request<{ product: { variants: Page<VariantNode> } | null }>(
    requestOperation('product-variants'), { id: product.id, after })).product?.variants ?? null);
}

/** The line items of an order past its first page (each request taken from the budget; false when it ran out). */
export function readRestOfLines(api: ShopifyAdminApi, order: Pick<OrderNode, 'id' | 'lineItems'>, budget: Budget): Promise<boolean> {
  return readRest(order.lineItems, budget, async (after) => (await api.request<{ order: { lineItems: Page<LineItemNode> } | null }>(
    requestOperation('order-line-items'), { id: order.id, after })).order?.lineItems ?? null);
}

/** The shipped lines of an order's fulfilments past their first page (each request taken from the budget; false when it ran out). */
export async function readRestOfFulfilmentLines(api: ShopifyAdminApi, order: OrderNode, budget: Budget): Promise<boolean> {
  for (const fulfillment of order.fulfillments) {
    const read = await readRest(fulfillment.fulfillmentLineItems, budget, async (after) => (await api.request<{ fulfillment: { fulfillmentLineItems: Page<FulfillmentLineNode> } | null }>(
      requestOperation('fulfillment-line-items'), { id: fulfillment.id, after })).fulfillment?.fulfillmentLineItems ?? null);
    if (!read) return false;
  }
  return true;
}

export function toProductWrite(node: ProductNode): ProductWrite {
  return {
    productId: fromGid('Product', node.id), productName: node.title, vendor: blankToNull(node.vendor), imageUrl: node.featuredMedia?.preview?.image?.url ?? null,
    version: new Date(node.updatedAt),
    variants: node.variants.nodes.map((v): VariantWrite => ({
      variantId: fromGid('ProductVariant', v.id), inventoryItemId: fromGid('InventoryItem', v.inventoryItem.id),
      variantName: variantNameOf(v.title), sku: blankToNull(v.sku), price: decimalOrNull(v.price),
      cost: decimalOrNull(v.inventoryItem.unitCost?.amount), tracked: v.inventoryItem.tracked,
    })),
  };
}

/** An order's open lines: those with a current quantity (a removed line has none). */
export function toOrderLines(node: Pick<OrderNode, 'lineItems'>): OrderLineWrite[] {
  return node.lineItems.nodes.filter((l) => l.currentQuantity > 0).map((l) => ({
    variantId: l.variant ? fromGid('ProductVariant', l.variant.id) : null, productId: l.product ? fromGid('Product', l.product.id) : null,
    sku: blankToNull(l.sku), title: l.title, quantity: String(l.currentQuantity),
  }));
}

/**
 * The order as order execution reads it, as the webhooks give it: every line by id with its current
 * quantity, where the order is (its retail location, else its fulfilment orders' locations, per line
 * where they differ: fulfilment-orders.ts), and each successful fulfilment with what it shipped.
 */
export function toOrderChange(node: OrderNode): PlatformOrderChange {
  const variantOf = (v: { id: string } | null) => (v ? fromGid('ProductVariant', v.id) : null);
  const located = locateOrder(node.retailLocation, node.fulfillmentOrders.nodes);
  return {
    orderId: fromGid('Order', node.id),
    status: node.cancelledAt !== null ? 'cancelled' : node.closed ? 'closed' : 'open',
    locationId: located.locationId,
    lines: node.lineItems.nodes.map((l) => {
      const lineId = fromGid('LineItem', l.id);
      const line = { lineId, variantId: variantOf(l.variant), quantity: String(Math.max(0, l.currentQuantity)) };
      return located.placements ? { ...line, placements: located.placements.get(lineId) ?? [] } : line;
    }),
    fulfilments: node.fulfillments.filter((f) => f.status === 'SUCCESS').map((f) => ({
      fulfilmentId: fromGid('Fulfillment', f.id),
      locationId: f.location ? fromGid('Location', f.location.id) : null,
      createdAt: new Date(f.createdAt),
      lines: f.fulfillmentLineItems.nodes.filter((l) => Number.isInteger(l.quantity) && l.quantity! > 0)
        .map((l) => ({ lineId: fromGid('LineItem', l.lineItem.id), variantId: variantOf(l.lineItem.variant), quantity: String(l.quantity) })),
    })),
  };
}

/** The available quantity of a level, or null when Shopify gave none (an untracked item). */
export function availableOf(node: LevelNode): string | null {
  const available = node.quantities.find((q) => q.name === 'available');
  return available && Number.isInteger(available.quantity) ? String(available.quantity) : null;
}
