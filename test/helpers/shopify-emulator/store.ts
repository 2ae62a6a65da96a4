import type { DatasetPlatform } from '../../../src/dataset/types.ts';
import { shopifyWeightUnit } from '../../../src/platform/shopify/weight-units.ts';
import { compareIds, dateTime, wholeNumber } from './gid.ts';
import type {
  AdjustmentGroupRecord, BulkOperationRecord, InventoryItemRecord, LevelRecord, LocationRecord, MetafieldRecord,
  OrderRecord, ProductRecord, VariantRecord, WebhookSubscriptionRecord,
} from './records.ts';

export interface ProductInput {
  productId?: string;
  title: string;
  vendor?: string | null;
  productType?: string | null;
  category?: string | null;
  imageUrl?: string | null;
  variants: VariantInput[];
}

export interface VariantInput {
  variantId?: string;
  inventoryItemId?: string;
  title?: string | null;
  sku?: string | null;
  price?: string | null;
  cost?: string | null;
  weight?: { value: number; unit: string } | null;
  levels?: { locationId: string; available: string | number }[];
}

/** One shop's data: Maps keyed by legacy id, and id-ordered lists built on demand for paging. */
export class ShopStore {
  readonly locations = new Map<string, LocationRecord>();
  readonly products = new Map<string, ProductRecord>();
  readonly variants = new Map<string, VariantRecord>();
  readonly items = new Map<string, InventoryItemRecord>();
  /** itemId → locationId → level. */
  readonly levels = new Map<string, Map<string, LevelRecord>>();
  readonly orders = new Map<string, OrderRecord>();
  readonly adjustmentGroups: AdjustmentGroupRecord[] = [];
  readonly metafields = new Map<string, MetafieldRecord>();
  readonly webhookSubscriptions = new Map<string, WebhookSubscriptionRecord>();
  readonly bulkOperations = new Map<string, BulkOperationRecord>();
  private sortedCache = new Map<string, unknown[]>();
  private nextId = 900_000_000;
  readonly now: () => Date;

  constructor(now: () => Date) {
    this.now = now;
  }

  stamp(): string {
    return dateTime(this.now());
  }

  newId(): string {
    return String(++this.nextId);
  }

  /** Records of a Map in Shopify's default order (by id); cached until the Map changes. */
  sorted<T extends { id: string }>(kind: 'locations' | 'products' | 'variants' | 'items' | 'orders' | 'webhookSubscriptions'): T[] {
    let list = this.sortedCache.get(kind) as T[] | undefined;
    if (!list) {
      list = [...(this[kind] as unknown as Map<string, T>).values()].sort((a, b) => compareIds(a.id, b.id));
      this.sortedCache.set(kind, list);
    }
    return list;
  }

  changed(kind: string): void {
    this.sortedCache.delete(kind);
  }

  addLocation(input: { id?: string; name: string; isActive?: boolean }): LocationRecord {
    const at = this.stamp();
    const rec: LocationRecord = { __typename: 'Location', id: input.id ?? this.newId(), name: input.name, isActive: input.isActive ?? true, createdAt: at, updatedAt: at };
    this.locations.set(rec.id, rec);
    this.changed('locations');
    return rec;
  }

  addProduct(input: ProductInput): ProductRecord {
    const at = this.stamp();
    const productId = input.productId ?? this.newId();
    let product = this.products.get(productId);
    if (!product) {
      product = {
        __typename: 'Product', id: productId, title: input.title, vendor: input.vendor ?? '', productType: input.productType ?? '', category: input.category ?? null,
        imageUrl: input.imageUrl ?? null, variantIds: [], createdAt: at, updatedAt: at,
      };
      this.products.set(productId, product);
      this.changed('products');
    }
    for (const v of input.variants) {
      const variant: VariantRecord = {
        __typename: 'ProductVariant', id: v.variantId ?? this.newId(), productId, inventoryItemId: v.inventoryItemId ?? this.newId(),
        title: v.title ?? 'Default Title', sku: v.sku ?? null, price: v.price ?? '0.00', position: product.variantIds.length + 1, createdAt: at, updatedAt: at,
      };
      if (this.variants.has(variant.id)) throw new Error(`emulator: variant ${variant.id} already exists`);
      this.variants.set(variant.id, variant);
      product.variantIds.push(variant.id);
      this.items.set(variant.inventoryItemId, {
        __typename: 'InventoryItem', id: variant.inventoryItemId, variantId: variant.id, unitCost: v.cost ?? null, weight: v.weight ?? null, tracked: true, createdAt: at, updatedAt: at,
      });
      for (const level of v.levels ?? []) this.level(variant.inventoryItemId, level.locationId, true)!.available = wholeNumber(level.available, `variant ${variant.id} level`);
    }
    this.changed('variants');
    this.changed('items');
    return product;
  }

  /** The level of an item at a location; `connect` stocks the item there (at 0) when it is not yet. */
  level(itemId: string, locationId: string, connect = false): LevelRecord | null {
    let byLocation = this.levels.get(itemId);
    let level = byLocation?.get(locationId) ?? null;
    if (!level && connect) {
      if (!this.locations.has(locationId)) throw new Error(`emulator: no location ${locationId}`);
      if (!byLocation) this.levels.set(itemId, (byLocation = new Map()));
      const at = this.stamp();
      level = { __typename: 'InventoryLevel', itemId, locationId, available: 0, committed: 0, createdAt: at, updatedAt: at };
      byLocation.set(locationId, level);
    }
    return level;
  }

  levelsOf(itemId: string): LevelRecord[] {
    const byLocation = this.levels.get(itemId);
    if (!byLocation) return [];
    return [...byLocation.values()].sort((a, b) => compareIds(a.locationId, b.locationId));
  }

  /** Moves a quantity state by delta and stamps the level, its item and its variant. */
  moveLevel(level: LevelRecord, state: 'available' | 'committed', delta: number): void {
    level[state] += delta;
    const at = this.stamp();
    level.updatedAt = at;
    const item = this.items.get(level.itemId);
    if (item) {
      item.updatedAt = at;
      const variant = this.variants.get(item.variantId);
      if (variant) variant.updatedAt = at;
    }
  }

  variantOrThrow(variantId: string): VariantRecord {
    const variant = this.variants.get(variantId);
    if (!variant) throw new Error(`emulator: no variant ${variantId}`);
    return variant;
  }

  orderOrThrow(orderId: string): OrderRecord {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`emulator: no order ${orderId}`);
    return order;
  }

  /** Loads the `platform` part of a bomcore dataset: ids are Shopify legacy ids, quantities whole numbers. */
  seed(platform: DatasetPlatform): void {
    for (const location of platform.locations) this.addLocation({ id: location.id, name: location.name });
    const byProduct = new Map<string, DatasetPlatform['variants']>();
    for (const v of platform.variants) {
      const list = byProduct.get(v.productId) ?? [];
      list.push(v);
      byProduct.set(v.productId, list);
    }
    for (const [productId, variants] of byProduct) {
      const first = variants[0]!;
      this.addProduct({
        productId, title: first.productName, vendor: first.vendor, productType: first.productType, category: first.productCategory, imageUrl: first.imageUrl,
        variants: variants.map((v) => {
          const unit = v.weightUnitId === null ? null : shopifyWeightUnit(v.weightUnitId);
          return {
            variantId: v.variantId, inventoryItemId: v.inventoryItemId, title: v.variantName, sku: v.sku, price: v.price, cost: v.cost, levels: v.levels,
            weight: v.weightValue !== null && unit !== null ? { value: Number(v.weightValue), unit } : null,
          };
        }),
      });
    }
    let lineId = 0;
    for (const o of platform.orders) {
      const at = this.stamp();
      this.orders.set(o.orderId, {
        // A dataset's order comes without fulfilment orders (as one Shopify has not routed yet): no location.
        __typename: 'Order', id: o.orderId, name: o.name, locationId: null, pos: false, fulfillmentOrders: [], fulfillments: [], cancelledAt: null, closed: false, closedAt: null, note: null, createdAt: at, updatedAt: at,
        lineItems: o.lineItems.map((l) => {
          const quantity = wholeNumber(l.quantity, `order ${o.orderId} line quantity`);
          return { __typename: 'LineItem' as const, id: String(++lineId), variantId: l.variantId, productId: l.productId, sku: l.sku, title: l.title, quantity, currentQuantity: quantity, fulfilledQuantity: 0 };
        }),
      });
    }
    this.nextLineItem = Math.max(this.nextLineItem, lineId);
    this.changed('orders');
  }

  nextLineItem = 0;
}
