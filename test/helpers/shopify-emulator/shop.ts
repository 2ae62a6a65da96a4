import { randomUUID } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import type { DatasetPlatform } from '../../../src/dataset/types.ts';
import type { IdempotentEntry } from './resolvers/inventory-mutations.ts';
import { gid, wholeNumber } from './gid.ts';
import { inventoryItemPayload, levelPayload, locationPayload, orderPayload, productPayload } from './payloads.ts';
import type { AdjustmentGroupRecord, FulfillmentOrderRecord, LevelRecord, LocationRecord, MetafieldRecord, OrderRecord, ProductRecord, WebhookSubscriptionRecord } from './records.ts';
import {
  cancel, createOrder, fulfil, moveFulfillmentOrder, splitFulfillmentOrder, type FulfillmentOrderLinesInput, type FulfilOptions,
} from './shop-orders.ts';
import { ShopStore, type ProductInput } from './store.ts';
import { CostBucket, Faults } from './throttle.ts';
import { makeDelivery, sendDelivery, type WebhookDelivery } from './webhooks.ts';

export interface ShopOptions {
  /** x.myshopify.com */
  domain: string;
  /**
   * The Admin API access token (unique across the emulator; a never-expiring one, as a legacy
   * admin-created app's); `tokens` for several. None: the shop gets its tokens from the OAuth grants.
   */
  token?: string;
  tokens?: string[];
  /** An app of the store's own organisation installed on it: the client credentials grant works with these. */
  organizationApp?: { clientId: string; clientSecret: string };
  /** Granted access scopes; default: every scope bomcore asks for. */
  scopes?: string[];
  /** The `platform` part of a bomcore dataset: locations, variants with levels, orders. */
  seed?: DatasetPlatform;
  name?: string;
  currencyCode?: string;
  /** Leaky bucket: default 2000 points, restored 100 per second. */
  maximumAvailable?: number;
  restoreRate?: number;
}

export interface OrderInput {
  orderId?: string;
  name?: string;
  /** Where the units are committed (available → committed) and later fulfilled from; default the first active location. */
  locationId?: string;
  /** Placed at a point of sale: its `retailLocation` (and webhooks' `location_id`) is `locationId`. Default false: an online order, which has none. */
  pos?: boolean;
  /** false = Shopify has not routed it to a location yet: it has no fulfilment order (and commits nothing). Default true. */
  routed?: boolean;
  /** false = create it without committing stock (as a seeded order). Default true. */
  commit?: boolean;
  lineItems: { variantId: string; quantity: number | string; title?: string; sku?: string | null }[];
  /** The order's note (Order.note); default none. */
  note?: string | null;
  /** When it was placed (ISO 8601), for an order older than the emulator's clock; default now. */
  createdAt?: string;
}

export interface RequestLogEntry {
  at: string;
  status: number;
  operationName: string | null;
  operation: 'query' | 'mutation' | 'subscription' | null;
  requestedQueryCost: number | null;
  actualQueryCost: number | null;
  outcome: 'ok' | 'unauthorized' | 'failed' | 'throttled' | 'invalid' | 'timeout';
}

export const DEFAULT_SCOPES = ['read_products', 'read_inventory', 'write_inventory', 'read_locations', 'read_orders', 'read_merchant_managed_fulfillment_orders', 'write_orders'];

let nextShopId = 70_000_000;

/** One emulated shop: its store, token(s), scopes, cost bucket, faults and outgoing webhooks. */
export class EmulatedShop {
  readonly shopId = String(++nextShopId);
  readonly domain: string;
  readonly name: string;
  readonly currencyCode: string;
  readonly tokens: Set<string>;
  readonly scopes: Set<string>;
  readonly organizationApp: { clientId: string; clientSecret: string } | null;
  readonly store: ShopStore;
  readonly bucket: CostBucket;
  readonly faults = new Faults();
  readonly idempotency = new Map<string, IdempotentEntry>();
  readonly bulkJobs = new Set<Promise<void>>();
  readonly deliveries: WebhookDelivery[] = [];
  readonly requests: RequestLogEntry[] = [];
  readonly inFlight = new Set<Promise<number>>();
  readonly schema: GraphQLSchema;
  installed = true;
  private holding = false;
  private readonly core: { apiSecret: string; apiVersion: string };

  constructor(options: ShopOptions, schema: GraphQLSchema, core: { apiSecret: string; apiVersion: string; now: () => Date }) {
    this.domain = options.domain;
    this.name = options.name ?? options.domain.replace(/\.myshopify\.com$/, '');
    this.currencyCode = options.currencyCode ?? 'USD';
    this.tokens = new Set([...(options.token ? [options.token] : []), ...(options.tokens ?? [])]);
    this.organizationApp = options.organizationApp ?? null;
    this.scopes = new Set(options.scopes ?? DEFAULT_SCOPES);
    this.schema = schema;
    this.core = core;
    this.store = new ShopStore(core.now);
    this.bucket = new CostBucket(options.maximumAvailable ?? 2000, options.restoreRate ?? 100);
    if (options.seed) this.store.seed(options.seed);
  }

  // ---------- reading the store back ----------

  /** The level of a variant at a location: Shopify's quantity states; null when it is not stocked there. */
  level(variantId: string, locationId: string): { available: number; committed: number; onHand: number } | null {
    const level = this.store.level(this.store.variantOrThrow(variantId).inventoryItemId, locationId);
    return level ? { available: level.available, committed: level.committed, onHand: level.available + level.committed } : null;
  }

  available(variantId: string, locationId: string): number | null {
    return this.level(variantId, locationId)?.available ?? null;
  }

  get adjustmentGroups(): readonly AdjustmentGroupRecord[] {
    return this.store.adjustmentGroups;
  }

  /** Metafields set through metafieldsSet, all or those of one owner GID. */
  metafields(ownerId?: string): MetafieldRecord[] {
    return [...this.store.metafields.values()].filter((m) => !ownerId || m.ownerId === ownerId);
  }

  get webhookSubscriptions(): WebhookSubscriptionRecord[] {
    return [...this.store.webhookSubscriptions.values()];
  }

  order(orderId: string): OrderRecord {
    return this.store.orderOrThrow(orderId);
  }

  // ---------- changing the store as the merchant or a customer would (webhooks follow) ----------

  setAvailable(variantId: string, locationId: string, quantity: number | string): void {
    const itemId = this.store.variantOrThrow(variantId).inventoryItemId;
    const fresh = !this.store.level(itemId, locationId);
    const level = this.store.level(itemId, locationId, true)!;
    if (fresh) this.emit('INVENTORY_LEVELS_CONNECT', levelPayload(level));
    this.store.moveLevel(level, 'available', wholeNumber(quantity, 'available') - level.available);
    this.emitLevel(level);
  }

  addLocation(input: { id?: string; name: string; isActive?: boolean }): LocationRecord {
    const location = this.store.addLocation(input);
    this.emit('LOCATIONS_CREATE', locationPayload(location));
    return location;
  }

  setLocationActive(locationId: string, isActive: boolean): void {
    const location = this.store.locations.get(locationId);
    if (!location) throw new Error(`emulator: no location ${locationId}`);
    location.isActive = isActive;
    location.updatedAt = this.store.stamp();
    this.emit(isActive ? 'LOCATIONS_ACTIVATE' : 'LOCATIONS_DEACTIVATE', locationPayload(location));
  }

  addProduct(input: ProductInput): ProductRecord {
    const product = this.store.addProduct(input);
    this.emit('PRODUCTS_CREATE', productPayload(this.store, product));
    return product;
  }

  /** Edits a product and/or its variants (title, vendor, image; sku, price, cost) and sends products/update. */
  updateProduct(productId: string, patch: { title?: string; vendor?: string; productType?: string; imageUrl?: string | null }, variants: Record<string, { title?: string; sku?: string | null; price?: string; cost?: string | null }> = {}): void {
    const product = this.store.products.get(productId);
    if (!product) throw new Error(`emulator: no product ${productId}`);
    const at = this.store.stamp();
    Object.assign(product, patch, { updatedAt: at });
    for (const [variantId, v] of Object.entries(variants)) {
      const variant = this.store.variantOrThrow(variantId);
      const { cost, ...rest } = v;
      Object.assign(variant, rest, { updatedAt: at });
      if (cost !== undefined) Object.assign(this.store.items.get(variant.inventoryItemId)!, { unitCost: cost, updatedAt: at });
    }
    this.emit('PRODUCTS_UPDATE', productPayload(this.store, product));
    // A cost is the inventory item's: Shopify tells it in inventory_items/update (the product's payload carries none).
    for (const [variantId, v] of Object.entries(variants)) {
      if (v.cost !== undefined) this.emit('INVENTORY_ITEMS_UPDATE', inventoryItemPayload(this.store, this.store.items.get(this.store.variantOrThrow(variantId).inventoryItemId)!));
    }
  }

  /**
   * Edits a variant's inventory item (its cost; whether Shopify tracks its stock) and sends
   * inventory_items/update, as the admin's cost field or "Track quantity" box does.
   */
  updateInventoryItem(variantId: string, patch: { cost?: string | null; tracked?: boolean }): void {
    const item = this.store.items.get(this.store.variantOrThrow(variantId).inventoryItemId)!;
    if (patch.cost !== undefined) item.unitCost = patch.cost;
    if (patch.tracked !== undefined) item.tracked = patch.tracked;
    item.updatedAt = this.store.stamp();
    this.store.changed('items');
    this.emit('INVENTORY_ITEMS_UPDATE', inventoryItemPayload(this.store, item));
  }

  deleteProduct(productId: string): void {
    const product = this.store.products.get(productId);
    if (!product) throw new Error(`emulator: no product ${productId}`);
    for (const id of product.variantIds) {
      const variant = this.store.variants.get(id)!;
      this.store.items.delete(variant.inventoryItemId);
      this.store.levels.delete(variant.inventoryItemId);
      this.store.variants.delete(id);
    }
    this.store.products.delete(productId);
    for (const kind of ['products', 'variants', 'items']) this.store.changed(kind);
    this.emit('PRODUCTS_DELETE', { id: Number(productId) });
  }

  /** A customer's order: committed at its location (available → committed) unless `commit: false`. */
  createOrder(input: OrderInput): OrderRecord {
    return createOrder(this, input);
  }

  /** Fulfils lines (default: everything left) in one fulfilment; partial fulfilments are two calls. Returns the fulfilment id. */
  fulfil(orderId: string, options: FulfilOptions = {}): string {
    return fulfil(this, orderId, options);
  }

  /** The order's fulfilment orders (where its units are assigned), oldest first. */
  fulfillmentOrders(orderId: string): FulfillmentOrderRecord[] {
    return this.store.orderOrThrow(orderId).fulfillmentOrders;
  }

  /** Moves a fulfilment order (or some of its units) to another location; sends fulfillment_orders/moved. Returns the one now there. */
  moveFulfillmentOrder(fulfillmentOrderId: string, newLocationId: string, lines?: FulfillmentOrderLinesInput): FulfillmentOrderRecord {
    return moveFulfillmentOrder(this, fulfillmentOrderId, newLocationId, lines);
  }

  /** Splits units of a fulfilment order into a new one at its location; sends fulfillment_orders/split. Returns the new one. */
  splitFulfillmentOrder(fulfillmentOrderId: string, lines: FulfillmentOrderLinesInput): FulfillmentOrderRecord {
    return splitFulfillmentOrder(this, fulfillmentOrderId, lines);
  }

  /** Cancels an order; unfulfilled units leave it and, with restock (default), return to available. */
  cancel(orderId: string, options: { restock?: boolean } = {}): void {
    cancel(this, orderId, options);
  }

  /**
   * Closes (archives) an order, as orderClose does and as Shopify does by itself to a fulfilled order
   * when the store archives orders automatically; sends orders/updated with its `closed_at`
   * (https://shopify.dev/docs/api/admin-graphql/latest/mutations/orderClose). It is still read by id.
   */
  closeOrder(orderId: string): void {
    const order = this.store.orderOrThrow(orderId);
    const at = this.store.stamp();
    Object.assign(order, { closed: true, closedAt: at, updatedAt: at });
    this.store.changed('orders');
    this.emit('ORDERS_UPDATED', orderPayload(order));
  }

  /** Sets the order's note, as orderUpdate does (https://shopify.dev/docs/api/admin-graphql/latest/input-objects/OrderInput#fields-note); sends orders/updated. */
  setOrderNote(orderId: string, note: string | null): void {
    const order = this.store.orderOrThrow(orderId);
    Object.assign(order, { note, updatedAt: this.store.stamp() });
    this.emit('ORDERS_UPDATED', orderPayload(order));
  }

  deleteOrder(orderId: string): void {
    if (!this.store.orders.delete(orderId)) throw new Error(`emulator: no order ${orderId}`);
    this.store.changed('orders');
    this.emit('ORDERS_DELETE', { id: Number(orderId) });
  }

  /** The merchant uninstalls the app: app/uninstalled is sent and the tokens stop working. */
  uninstall(): void {
    this.emit('APP_UNINSTALLED', { id: Number(this.shopId), name: this.name, domain: this.domain, myshopify_domain: this.domain });
    this.installed = false;
  }

  /**
   * The merchant changes what the app may do (an optional scope granted or revoked): app/scopes_update
   * with the scopes before and after (https://shopify.dev/docs/api/webhooks?reference=toml#list-of-topics-app/scopes_update).
   */
  updateScopes(scopes: readonly string[]): void {
    const previous = [...this.scopes];
    this.scopes.clear();
    for (const scope of scopes) this.scopes.add(scope);
    const at = this.store.stamp();
    this.emit('APP_SCOPES_UPDATE', { id: Number(this.shopId), previous, current: [...scopes], updated_at: at, created_at: at });
  }

  /**
   * A mandatory compliance webhook (https://shopify.dev/docs/apps/build/compliance/privacy-law-compliance):
   * sent to the app's compliance URL (set in its configuration, not by a subscription), signed as
   * every webhook is. `customers/data_request` and `customers/redact` name the customer and orders;
   * `shop/redact` comes 48 hours after an uninstall. Resolves with the receiver's status.
   */
  sendCompliance(uri: string, topic: 'customers/data_request' | 'customers/redact' | 'shop/redact', details: { customerId?: number; orderIds?: number[]; dataRequestId?: number } = {}): Promise<number> {
    const shop = { shop_id: Number(this.shopId), shop_domain: this.domain };
    const customer = { id: details.customerId ?? 0, email: 'customer@example.com', phone: '555-625-1199' };
    const payload = topic === 'shop/redact' ? shop
      : topic === 'customers/redact' ? { ...shop, customer, orders_to_redact: details.orderIds ?? [] }
        : { ...shop, orders_requested: details.orderIds ?? [], customer, data_request: { id: details.dataRequestId ?? 9999 } };
    const delivery = makeDelivery(topic, { id: 'compliance', uri }, randomUUID(), payload,
      { shopDomain: this.domain, apiSecret: this.core.apiSecret, apiVersion: this.core.apiVersion, now: new Date() });
    this.deliveries.push(delivery);
    return this.send(delivery);
  }

  // ---------- outgoing webhooks ----------

  emitLevel(level: LevelRecord): void {
    this.emit('INVENTORY_LEVELS_UPDATE', levelPayload(level));
  }

  /** One event: a delivery per subscription to its topic, sent now unless held or dropped. */
  emit(topic: string, payload: unknown): void {
    const eventId = randomUUID();
    for (const sub of this.store.webhookSubscriptions.values()) {
      if (sub.topic !== topic) continue;
      const delivery = makeDelivery(topic, { id: gid('WebhookSubscription', sub.id), uri: sub.uri }, eventId, payload,
        { shopDomain: this.domain, apiSecret: this.core.apiSecret, apiVersion: this.core.apiVersion, now: new Date() });
      this.deliveries.push(delivery);
      if (this.faults.droppedWebhooks > 0) {
        this.faults.droppedWebhooks -= 1;
        delivery.status = 'dropped';
      } else if (!this.holding) void this.send(delivery);
    }
  }

  /** Sends (or sends again: same body, ids and signature) a delivery; resolves with the receiver's status. */
  send(delivery: WebhookDelivery): Promise<number> {
    const sending = sendDelivery(delivery);
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
    return sending;
  }

  /** From now on deliveries wait (status 'held') until released or sent one by one, in any order. */
  holdWebhooks(): void {
    this.holding = true;
  }

  /** Sends the held deliveries in the given order (default: as made) and stops holding. */
  async releaseWebhooks(order: (held: WebhookDelivery[]) => WebhookDelivery[] = (held) => held): Promise<void> {
    this.holding = false;
    for (const delivery of order(this.deliveries.filter((d) => d.status === 'held'))) await this.send(delivery);
  }

  // ---------- faults ----------

  failNext(n: number, status: 500 | 502 | 503 = 500): void {
    this.faults.failures.push({ remaining: n, status });
  }

  /** The next n requests are throttled: HTTP 429 (REST-style limit) or a GraphQL THROTTLED answer. */
  throttleNext(n: number, kind: 429 | 'THROTTLED' = 429): void {
    this.faults.throttles.push({ remaining: n, kind });
  }

  /** The next n requests that change the store are applied, then their socket is destroyed unanswered. */
  timeoutAfterApply(n: number): void {
    this.faults.timeoutsAfterApply += n;
  }

  dropWebhooks(n: number): void {
    this.faults.droppedWebhooks += n;
  }
}
