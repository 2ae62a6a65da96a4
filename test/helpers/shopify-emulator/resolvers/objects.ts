import { GraphQLError } from 'graphql';
import { seesFulfillmentOrders, type EmulatorContext } from '../context.ts';
import { connection, matchesSearch, parseSearch, type PageArgs, type SearchFields } from '../connection.ts';
import { compareIds, gid, legacyId } from '../gid.ts';
import type {
  AdjustmentGroupRecord, BulkOperationRecord, FulfillmentOrderRecord, FulfillmentRecord, InventoryItemRecord, LevelRecord, LineItemRecord, LocationRecord,
  MetafieldRecord, OrderRecord, ProductRecord, VariantRecord, WebhookSubscriptionRecord,
} from '../records.ts';
import type { Resolvers } from './types.ts';

type Ctx = EmulatorContext;
/** A fulfilment as its resolvers see it: with the order it belongs to. */
type FulfillmentView = FulfillmentRecord & { order: OrderRecord };

/** Quantity names Shopify knows; asking for another is an error there too. */
export const QUANTITY_NAMES = new Set(['available', 'committed', 'on_hand', 'incoming', 'reserved', 'damaged', 'safety_stock', 'quality_control']);

export function quantityOf(level: LevelRecord, name: string): number {
  switch (name) {
    case 'available': return level.available;
    case 'committed': return level.committed;
    case 'on_hand': return level.available + level.committed;
    default: return 0;
  }
}

const common = (type: string) => ({
  id: (r: { id: string }) => gid(type, r.id),
  legacyResourceId: (r: { id: string }) => r.id,
  createdAt: (r: { createdAt: string }) => r.createdAt,
  updatedAt: (r: { updatedAt: string }) => r.updatedAt,
});

/** The search fields of `Location.inventoryLevels(query:)` (Shopify's: created_at, updated_at, inventory_item_id, id). */
const levelSearch: SearchFields<LevelRecord> = {
  created_at: (l) => l.createdAt, updated_at: (l) => l.updatedAt, inventory_item_id: (l) => l.itemId,
};

function levelGid(level: LevelRecord): string {
  return `gid://shopify/InventoryLevel/${level.locationId}?inventory_item_id=${level.itemId}`;
}

function imageOf(url: string | null, id: string) {
  if (!url) return null;
  const image = { __typename: 'Image', id: gid('ProductImage', id), url, altText: null, width: null, height: null };
  return image;
}

export const objectResolvers: Resolvers = {
  Shop: {
    id: (s: Ctx['shop']) => gid('Shop', s.shopId), name: (s: Ctx['shop']) => s.name, myshopifyDomain: (s: Ctx['shop']) => s.domain,
    currencyCode: (s: Ctx['shop']) => s.currencyCode, ianaTimezone: () => 'UTC', email: (s: Ctx['shop']) => `owner@${s.domain}`,
    url: (s: Ctx['shop']) => `https://${s.domain}`,
  },
  AppInstallation: {
    id: (_: unknown, __: unknown, ctx: Ctx) => gid('AppInstallation', ctx.shop.shopId),
    accessScopes: (_: unknown, __: unknown, ctx: Ctx) => [...ctx.shop.scopes].map((handle) => ({ handle, description: '' })),
  },
  Location: {
    ...common('Location'), name: (l: LocationRecord) => l.name, isActive: (l: LocationRecord) => l.isActive,
    activatable: (l: LocationRecord) => !l.isActive, deactivatable: (l: LocationRecord) => l.isActive, deactivatedAt: (l: LocationRecord) => (l.isActive ? null : l.updatedAt),
    inventoryLevel: (l: LocationRecord, a: { inventoryItemId: string }, ctx: Ctx) => ctx.shop.store.level(legacyId(a.inventoryItemId, 'InventoryItem') ?? '', l.id),
    inventoryLevels: (l: LocationRecord, a: PageArgs & { query?: string | null }, ctx: Ctx, info: any) => {
      const levels = [...ctx.shop.store.levels.values()].flatMap((m) => (m.has(l.id) ? [m.get(l.id)!] : []));
      const terms = parseSearch(a.query);
      const matching = terms.length ? levels.filter((lv) => matchesSearch(lv, terms, levelSearch)) : levels;
      return connection(matching.map((lv) => ({ ...lv, id: lv.itemId })).sort((x, y) => compareIds(x.id, y.id)), a, ctx, info);
    },
  },
  Product: {
    ...common('Product'), title: (p: ProductRecord) => p.title, vendor: (p: ProductRecord) => p.vendor, productType: (p: ProductRecord) => p.productType,
    category: (p: ProductRecord) => (p.category === null ? null : {
      __typename: 'TaxonomyCategory', id: `gid://shopify/TaxonomyCategory/${p.category.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`, name: p.category, fullName: p.category,
    }),
    handle: (p: ProductRecord) => p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
    status: () => 'ACTIVE', tags: () => [], hasOnlyDefaultVariant: (p: ProductRecord) => p.variantIds.length === 1,
    variants: (p: ProductRecord, a: PageArgs, ctx: Ctx, info: any) => connection(p.variantIds.map((id) => ctx.shop.store.variants.get(id)!), a, ctx, info),
    featuredMedia: (p: ProductRecord) => (p.imageUrl
      ? { __typename: 'MediaImage', id: gid('MediaImage', p.id), alt: null, mediaContentType: 'IMAGE', status: 'READY', image: imageOf(p.imageUrl, p.id), preview: { image: imageOf(p.imageUrl, p.id), status: 'READY' } }
      : null),
    featuredImage: (p: ProductRecord) => imageOf(p.imageUrl, p.id),
    totalInventory: (p: ProductRecord, _: unknown, ctx: Ctx) => p.variantIds.reduce((sum, id) => sum + available(ctx, ctx.shop.store.variants.get(id)!), 0),
  },
  ProductVariant: {
    ...common('ProductVariant'), title: (v: VariantRecord) => v.title, sku: (v: VariantRecord) => v.sku, price: (v: VariantRecord) => v.price,
    position: (v: VariantRecord) => v.position, barcode: () => null, compareAtPrice: () => null, taxable: () => true, inventoryPolicy: () => 'DENY',
    displayName: (v: VariantRecord, _: unknown, ctx: Ctx) => `${ctx.shop.store.products.get(v.productId)?.title ?? ''} - ${v.title}`,
    availableForSale: (v: VariantRecord, _: unknown, ctx: Ctx) => available(ctx, v) > 0,
    product: (v: VariantRecord, _: unknown, ctx: Ctx) => ctx.shop.store.products.get(v.productId),
    inventoryItem: (v: VariantRecord, _: unknown, ctx: Ctx) => ctx.shop.store.items.get(v.inventoryItemId),
    inventoryQuantity: (v: VariantRecord, _: unknown, ctx: Ctx) => available(ctx, v),
    image: (v: VariantRecord, _: unknown, ctx: Ctx) => imageOf(ctx.shop.store.products.get(v.productId)?.imageUrl ?? null, v.productId),
  },
  InventoryItem: {
    ...common('InventoryItem'), tracked: (i: InventoryItemRecord) => i.tracked, requiresShipping: () => true,
    sku: (i: InventoryItemRecord, _: unknown, ctx: Ctx) => ctx.shop.store.variants.get(i.variantId)?.sku ?? null,
    unitCost: (i: InventoryItemRecord, _: unknown, ctx: Ctx) => (i.unitCost === null ? null : { amount: i.unitCost, currencyCode: ctx.shop.currencyCode }),
    measurement: (i: InventoryItemRecord) => ({ id: `gid://shopify/InventoryItemMeasurement/${i.id}`, weight: i.weight }),
    variant: (i: InventoryItemRecord, _: unknown, ctx: Ctx) => ctx.shop.store.variants.get(i.variantId),
    inventoryLevel: (i: InventoryItemRecord, a: { locationId: string }, ctx: Ctx) => ctx.shop.store.level(i.id, legacyId(a.locationId, 'Location') ?? ''),
    inventoryLevels: (i: InventoryItemRecord, a: PageArgs, ctx: Ctx, info: any) =>
      connection(ctx.shop.store.levelsOf(i.id).map((lv) => ({ ...lv, id: lv.locationId })), a, ctx, info),
    locationsCount: (i: InventoryItemRecord, _: unknown, ctx: Ctx) => ({ count: ctx.shop.store.levelsOf(i.id).length, precision: 'EXACT' }),
  },
  InventoryLevel: {
    id: (l: LevelRecord) => levelGid(l), createdAt: (l: LevelRecord) => l.createdAt, updatedAt: (l: LevelRecord) => l.updatedAt,
    isActive: () => true, canDeactivate: (l: LevelRecord) => l.committed === 0,
    item: (l: LevelRecord, _: unknown, ctx: Ctx) => ctx.shop.store.items.get(l.itemId),
    location: (l: LevelRecord, _: unknown, ctx: Ctx) => ctx.shop.store.locations.get(l.locationId),
    quantities: (l: LevelRecord, a: { names: string[] }) => a.names.map((name) => {
      if (!QUANTITY_NAMES.has(name)) throw new GraphQLError(`The quantity name '${name}' is not valid.`, { extensions: { code: 'BAD_REQUEST' } });
      return { id: `gid://shopify/InventoryQuantity/${l.locationId}?inventory_item_id=${l.itemId}&name=${name}`, name, quantity: quantityOf(l, name), updatedAt: l.updatedAt };
    }),
  },
  Order: {
    ...common('Order'), name: (o: OrderRecord) => o.name, cancelledAt: (o: OrderRecord) => o.cancelledAt, closed: (o: OrderRecord) => o.closed,
    closedAt: (o: OrderRecord) => o.closedAt, processedAt: (o: OrderRecord) => o.createdAt, tags: () => [], note: (o: OrderRecord) => o.note,
    currencyCode: (_: OrderRecord, __: unknown, ctx: Ctx) => ctx.shop.currencyCode,
    displayFulfillmentStatus: (o: OrderRecord) => fulfillmentStatus(o),
    fulfillable: (o: OrderRecord) => !o.cancelledAt && o.lineItems.some((l) => l.currentQuantity > l.fulfilledQuantity),
    lineItems: (o: OrderRecord, a: PageArgs, ctx: Ctx, info: any) => connection(o.lineItems, a, ctx, info),
    // Only a point-of-sale order has a retail location (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order#field-Order.fields.retailLocation).
    retailLocation: (o: OrderRecord, _: unknown, ctx: Ctx) => (o.pos && o.locationId ? ctx.shop.store.locations.get(o.locationId) : null),
    // Every order's units are in fulfilment orders, each at its assigned location
    // (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order#connection-Order.fields.fulfillmentOrders).
    fulfillmentOrders: (o: OrderRecord, a: PageArgs, ctx: Ctx, info: any) => connection(seesFulfillmentOrders(ctx) ? o.fulfillmentOrders : [], a, ctx, info),
    // A plain list (Shopify's `first` truncates it); each fulfilment knows its order for its lines.
    fulfillments: (o: OrderRecord, a: { first?: number | null }) => o.fulfillments.slice(0, a.first ?? undefined).map((f) => ({ ...f, order: o })),
  },
  Fulfillment: {
    id: (f: FulfillmentView) => gid('Fulfillment', f.id), legacyResourceId: (f: FulfillmentView) => f.id, name: (f: FulfillmentView) => `${f.order.name}-F${f.order.fulfillments.findIndex((x) => x.id === f.id) + 1}`,
    createdAt: (f: FulfillmentView) => f.createdAt, updatedAt: (f: FulfillmentView) => f.createdAt, status: () => 'SUCCESS', requiresShipping: () => true,
    totalQuantity: (f: FulfillmentView) => f.lines.reduce((n, l) => n + l.quantity, 0), order: (f: FulfillmentView) => f.order,
    location: (f: FulfillmentView, _: unknown, ctx: Ctx) => ctx.shop.store.locations.get(f.locationId) ?? null,
    fulfillmentLineItems: (f: FulfillmentView, a: PageArgs, ctx: Ctx, info: any) =>
      connection(f.lines.map((l) => ({ id: l.lineItemId, fulfillmentId: f.id, quantity: l.quantity, lineItem: f.order.lineItems.find((x) => x.id === l.lineItemId)! })), a, ctx, info),
  },
  FulfillmentOrder: {
    ...common('FulfillmentOrder'), status: (f: FulfillmentOrderRecord) => f.status, requestStatus: () => 'UNSUBMITTED',
    orderId: (f: FulfillmentOrderRecord) => gid('Order', f.orderId), order: (f: FulfillmentOrderRecord, _: unknown, ctx: Ctx) => ctx.shop.store.orders.get(f.orderId),
    orderName: (f: FulfillmentOrderRecord, _: unknown, ctx: Ctx) => ctx.shop.store.orders.get(f.orderId)?.name ?? '',
    orderProcessedAt: (f: FulfillmentOrderRecord, _: unknown, ctx: Ctx) => ctx.shop.store.orders.get(f.orderId)?.createdAt ?? f.createdAt,
    assignedLocation: (f: FulfillmentOrderRecord, _: unknown, ctx: Ctx) => {
      const location = ctx.shop.store.locations.get(f.locationId) ?? null;
      return { name: location?.name ?? '', countryCode: 'US', location, address1: null, address2: null, city: null, province: null, zip: null, phone: null };
    },
    lineItems: (f: FulfillmentOrderRecord, a: PageArgs, ctx: Ctx, info: any) => {
      const order = ctx.shop.store.orders.get(f.orderId)!;
      return connection(f.lines.map((l) => ({ ...l, lineItem: order.lineItems.find((x) => x.id === l.lineItemId)! })), a, ctx, info);
    },
  },
  FulfillmentOrderLineItem: {
    id: (l: { id: string }) => gid('FulfillmentOrderLineItem', l.id), lineItem: (l: { lineItem: LineItemRecord }) => l.lineItem,
    remainingQuantity: (l: { remainingQuantity: number }) => l.remainingQuantity, totalQuantity: (l: { totalQuantity: number }) => l.totalQuantity,
    sku: (l: { lineItem: LineItemRecord }) => l.lineItem.sku, productTitle: (l: { lineItem: LineItemRecord }) => l.lineItem.title, requiresShipping: () => true,
  },
  FulfillmentLineItem: {
    // Paged by its line item's id (unique within the fulfilment); its own id joins both.
    id: (l: { id: string; fulfillmentId: string }) => gid('FulfillmentLineItem', `${l.fulfillmentId}${l.id}`), quantity: (l: { quantity: number }) => l.quantity, lineItem: (l: { lineItem: LineItemRecord }) => l.lineItem,
  },
  LineItem: {
    id: (l: LineItemRecord) => gid('LineItem', l.id), sku: (l: LineItemRecord) => l.sku, title: (l: LineItemRecord) => l.title, name: (l: LineItemRecord) => l.title,
    quantity: (l: LineItemRecord) => l.quantity, currentQuantity: (l: LineItemRecord) => l.currentQuantity,
    unfulfilledQuantity: (l: LineItemRecord) => Math.max(0, l.currentQuantity - l.fulfilledQuantity),
    variant: (l: LineItemRecord, _: unknown, ctx: Ctx) => (l.variantId ? ctx.shop.store.variants.get(l.variantId) ?? null : null),
    product: (l: LineItemRecord, _: unknown, ctx: Ctx) => (l.productId ? ctx.shop.store.products.get(l.productId) ?? null : null),
    variantTitle: (l: LineItemRecord, _: unknown, ctx: Ctx) => (l.variantId ? ctx.shop.store.variants.get(l.variantId)?.title ?? null : null),
  },
  InventoryAdjustmentGroup: {
    id: (g: AdjustmentGroupRecord) => gid('InventoryAdjustmentGroup', g.id), createdAt: (g: AdjustmentGroupRecord) => g.createdAt,
    reason: (g: AdjustmentGroupRecord) => g.reason, referenceDocumentUri: (g: AdjustmentGroupRecord) => g.referenceDocumentUri, app: () => null, staffMember: () => null,
    changes: (g: AdjustmentGroupRecord, a: { inventoryItemIds?: string[]; locationIds?: string[]; quantityNames?: string[] }, ctx: Ctx) => g.changes
      .filter((c) => (!a.inventoryItemIds || a.inventoryItemIds.includes(gid('InventoryItem', c.itemId)))
        && (!a.locationIds || a.locationIds.includes(gid('Location', c.locationId))) && (!a.quantityNames || a.quantityNames.includes(c.name)))
      .map((c) => ({ name: c.name, delta: c.delta, quantityAfterChange: c.quantityAfterChange, ledgerDocumentUri: null,
        item: ctx.shop.store.items.get(c.itemId) ?? null, location: ctx.shop.store.locations.get(c.locationId) ?? null })),
  },
  Metafield: {
    ...common('Metafield'), namespace: (m: MetafieldRecord) => m.namespace, key: (m: MetafieldRecord) => m.key, type: (m: MetafieldRecord) => m.type,
    value: (m: MetafieldRecord) => m.value, compareDigest: (m: MetafieldRecord) => Buffer.from(`${m.id}:${m.updatedAt}:${m.value}`).toString('base64'),
    jsonValue: (m: MetafieldRecord) => (m.type === 'json' ? JSON.parse(m.value) : m.value),
    ownerType: (m: MetafieldRecord) => ownerTypeOf(m.ownerId),
  },
  WebhookSubscription: {
    ...common('WebhookSubscription'), topic: (w: WebhookSubscriptionRecord) => w.topic, uri: (w: WebhookSubscriptionRecord) => w.uri,
    callbackUrl: (w: WebhookSubscriptionRecord) => w.uri, format: (w: WebhookSubscriptionRecord) => w.format, filter: (w: WebhookSubscriptionRecord) => w.filter,
    includeFields: (w: WebhookSubscriptionRecord) => w.includeFields, metafieldNamespaces: (w: WebhookSubscriptionRecord) => w.metafieldNamespaces,
    metafields: () => [], name: (w: WebhookSubscriptionRecord) => w.name,
    apiVersion: (_: unknown, __: unknown, ctx: Ctx) => ({ handle: ctx.emulator.apiVersion, displayName: ctx.emulator.apiVersion, supported: true }),
    endpoint: (w: WebhookSubscriptionRecord) => ({ __typename: 'WebhookHttpEndpoint', callbackUrl: w.uri }),
  },
  BulkOperation: {
    id: (b: BulkOperationRecord) => gid('BulkOperation', b.id), createdAt: (b: BulkOperationRecord) => b.createdAt, query: (b: BulkOperationRecord) => b.query,
    type: () => 'QUERY', status: (b: BulkOperationRecord) => bulkStatus(b), errorCode: (b: BulkOperationRecord) => (bulkStatus(b) === 'FAILED' ? b.failed : null),
    completedAt: (b: BulkOperationRecord) => (bulkStatus(b) === 'COMPLETED' ? b.completedAt : null),
    objectCount: (b: BulkOperationRecord) => String(bulkStatus(b) === 'COMPLETED' ? b.objectCount : 0),
    rootObjectCount: (b: BulkOperationRecord) => String(bulkStatus(b) === 'COMPLETED' ? b.rootObjectCount : 0),
    fileSize: (b: BulkOperationRecord) => (bulkStatus(b) === 'COMPLETED' && b.objectCount > 0 ? String(b.fileSize) : null),
    url: (b: BulkOperationRecord, _: unknown, ctx: Ctx) => (bulkStatus(b) === 'COMPLETED' && b.objectCount > 0 ? `${ctx.emulator.url}/bulk/${ctx.shop.shopId}/${b.id}.jsonl` : null),
    partialDataUrl: (b: BulkOperationRecord, _: unknown, ctx: Ctx) => (bulkStatus(b) === 'FAILED' && b.objectCount > 0 ? `${ctx.emulator.url}/bulk/${ctx.shop.shopId}/${b.id}.jsonl` : null),
  },
};

export function bulkStatus(b: BulkOperationRecord): 'RUNNING' | 'COMPLETED' | 'FAILED' {
  if (!b.done || Date.now() < b.readyAt) return 'RUNNING';
  return b.failed ? 'FAILED' : 'COMPLETED';
}

function available(ctx: Ctx, v: VariantRecord): number {
  return ctx.shop.store.levelsOf(v.inventoryItemId).reduce((sum, l) => sum + l.available, 0);
}

export function fulfillmentStatus(o: OrderRecord): string {
  const open = o.lineItems.filter((l) => l.currentQuantity > 0);
  const fulfilled = open.reduce((n, l) => n + Math.min(l.fulfilledQuantity, l.currentQuantity), 0);
  const total = open.reduce((n, l) => n + l.currentQuantity, 0);
  if (total > 0 && fulfilled >= total) return 'FULFILLED';
  if (fulfilled > 0) return 'PARTIALLY_FULFILLED';
  return 'UNFULFILLED';
}

function ownerTypeOf(ownerGid: string): string {
  const type = /^gid:\/\/shopify\/([A-Za-z]+)\//.exec(ownerGid)?.[1] ?? '';
  return ({ Order: 'ORDER', Product: 'PRODUCT', ProductVariant: 'PRODUCTVARIANT', Shop: 'SHOP', Location: 'LOCATION', Customer: 'CUSTOMER' } as Record<string, string>)[type] ?? 'SHOP';
}
