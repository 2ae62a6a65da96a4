// The emulator's in-memory store records. Each carries `__typename`, which is how interfaces and
// unions (Node, Media, …) resolve; ids are legacy numeric strings.

export interface LocationRecord {
  __typename: 'Location';
  id: string;
  name: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ProductRecord {
  __typename: 'Product';
  id: string;
  title: string;
  vendor: string;
  productType: string;
  /** The taxonomy category's name (Shopify's standard product taxonomy), null = uncategorised. */
  category: string | null;
  imageUrl: string | null;
  variantIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface VariantRecord {
  __typename: 'ProductVariant';
  id: string;
  productId: string;
  inventoryItemId: string;
  title: string;
  sku: string | null;
  /** Money as Shopify serialises it: an exact decimal string. */
  price: string;
  position: number;
  createdAt: string;
  updatedAt: string;
}

export interface InventoryItemRecord {
  __typename: 'InventoryItem';
  id: string;
  variantId: string;
  /** Decimal string, null = no cost recorded. */
  unitCost: string | null;
  /** Shopify's `InventoryItemMeasurement.weight`: a Float and a WeightUnit. */
  weight: { value: number; unit: string } | null;
  tracked: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One item at one location: Shopify's quantity states (on_hand = available + committed). */
export interface LevelRecord {
  __typename: 'InventoryLevel';
  itemId: string;
  locationId: string;
  available: number;
  committed: number;
  createdAt: string;
  updatedAt: string;
}

export interface LineItemRecord {
  __typename: 'LineItem';
  id: string;
  variantId: string | null;
  productId: string | null;
  sku: string | null;
  title: string;
  quantity: number;
  /** quantity minus removed (cancelled/refunded) units. */
  currentQuantity: number;
  fulfilledQuantity: number;
}

export interface FulfillmentRecord {
  id: string;
  locationId: string;
  createdAt: string;
  lines: { lineItemId: string; quantity: number }[];
}

/**
 * A fulfilment order: a group of an order's line items assigned to one location, which fulfils
 * them (https://shopify.dev/docs/api/admin-graphql/latest/objects/FulfillmentOrder — its
 * `assignedLocation` is where the units are; it can be moved, split, closed).
 */
export interface FulfillmentOrderRecord {
  __typename: 'FulfillmentOrder';
  id: string;
  orderId: string;
  /** `assignedLocation.location`. */
  locationId: string;
  /** FulfillmentOrderStatus: OPEN, IN_PROGRESS (partly fulfilled), CLOSED (all fulfilled or moved/split away), CANCELLED. */
  status: 'OPEN' | 'IN_PROGRESS' | 'CLOSED' | 'CANCELLED';
  /** FulfillmentOrderLineItem: its own id, the order line, its units and those not fulfilled yet. */
  lines: { id: string; lineItemId: string; totalQuantity: number; remainingQuantity: number }[];
  createdAt: string;
  updatedAt: string;
}

export interface OrderRecord {
  __typename: 'Order';
  id: string;
  name: string;
  lineItems: LineItemRecord[];
  /**
   * Where the order was placed and its units first committed: for a point-of-sale order its
   * `retailLocation` (the webhooks' `location_id`); an online order has none of either, and its
   * units are where its fulfilment orders are.
   */
  locationId: string | null;
  /** Placed at a point of sale (`retailLocation` is `locationId`); else an online order. */
  pos: boolean;
  fulfillmentOrders: FulfillmentOrderRecord[];
  fulfillments: FulfillmentRecord[];
  cancelledAt: string | null;
  /**
   * Closed (archived in the admin): by orderClose, a cancellation, or Shopify's automatic archiving
   * of a fulfilled order (https://shopify.dev/docs/api/admin-graphql/latest/mutations/orderClose).
   * A closed order is not `status:open`, and is still read by id.
   */
  closed: boolean;
  closedAt: string | null;
  /** The order's note (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order#field-Order.fields.note): the REST payloads' `note`; null: none. */
  note: string | null;
  /**
   * When it was placed. Without read_all_orders an app sees only the last 60 days of orders: "Only
   * the last 60 days' worth of orders from a store are accessible from the Order object by default"
   * (https://shopify.dev/docs/api/admin-graphql/latest/objects/Order).
   */
  createdAt: string;
  updatedAt: string;
}

export interface AdjustmentChangeRecord {
  name: string;
  delta: number;
  quantityAfterChange: number;
  itemId: string;
  locationId: string;
}

export interface AdjustmentGroupRecord {
  __typename: 'InventoryAdjustmentGroup';
  id: string;
  createdAt: string;
  reason: string;
  referenceDocumentUri: string | null;
  changes: AdjustmentChangeRecord[];
  /** The @idempotent key it was applied under. */
  idempotencyKey: string | null;
}

export interface MetafieldRecord {
  __typename: 'Metafield';
  id: string;
  ownerId: string;
  namespace: string;
  key: string;
  type: string;
  value: string;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookSubscriptionRecord {
  __typename: 'WebhookSubscription';
  id: string;
  /** The GraphQL enum value, e.g. INVENTORY_LEVELS_UPDATE. */
  topic: string;
  uri: string;
  format: 'JSON' | 'XML';
  filter: string | null;
  includeFields: string[];
  metafieldNamespaces: string[];
  name: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface BulkOperationRecord {
  __typename: 'BulkOperation';
  id: string;
  query: string;
  createdAt: string;
  completedAt: string | null;
  /** Wall-clock ms from which a finished job reads COMPLETED. */
  readyAt: number;
  done: boolean;
  failed: 'ACCESS_DENIED' | 'INTERNAL_SERVER_ERROR' | 'TIMEOUT' | null;
  objectCount: number;
  rootObjectCount: number;
  fileSize: number;
  file: string | null;
}
