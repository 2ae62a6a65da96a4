import type { Expression } from 'kysely';
/**
 * The port to the e-commerce platform. bomcore never reads the platform's tables directly: every
 * read of locations, variants, live levels and orders, and every metafield write, goes through
 * this interface. `LocalPlatformGateway` serves it from the local platform store (datasets);
 * an adapter for a real platform API implements the same methods.
 */
export interface PlatformLocationInfo { locationId: string; name: string }

export interface PlatformLevelInfo { variantId: string; locationId: string; available: string }

/** A level as a row of SQL (`levelsSql`): `available` is exact numeric. */
export interface PlatformLevelRow { variant_id: string; location_id: string; available: string }

export interface PlatformVariantInfo {
  variantId: string; productId: string; inventoryItemId: string; productName: string; variantName: string | null;
  sku: string | null; vendor: string | null; price: string | null; cost: string | null; imageUrl: string | null;
}

export interface PlatformOrderLineInfo { variantId: string | null; productId: string | null; sku: string | null; title: string; quantity: string }
/** An order with its current line items and its note (the platform's free text on the order; null: none). */
export interface PlatformOrderInfo { orderId: string; name: string; note: string | null; lineItems: PlatformOrderLineInfo[] }

/**
 * A level of a variant at a location that the mirror took from the platform (a webhook, a
 * reconciliation read) with another value than it held: what it held and what it holds now, as
 * exact decimal text, null where it held no level (new) or holds none any more (disconnected).
 */
export interface PlatformLevelChange { variantId: string; locationId: string; before: string | null; after: string | null }

/**
 * Where some of a line's units still to ship are assigned: a location and how many (exact decimal
 * text). On Shopify, the open fulfilment orders' assigned locations.
 */
export interface PlatformLinePlacement { locationId: string; quantity: string }

/**
 * One line of an order as the platform reports it: its current quantity (removed units excluded)
 * and, when the platform assigns the line's units to locations itself (fulfilment orders), where
 * its units still to ship are (`placements`; absent: the order's `locationId` holds the whole line).
 */
export interface PlatformOrderChangeLine { lineId: string; variantId: string | null; quantity: string; placements?: PlatformLinePlacement[] }

/**
 * One fulfilment of an order: what shipped, from where; `fulfilmentId` is the platform's id;
 * `createdAt` when it shipped (null: not said), which tells one made before the store was connected.
 */
export interface PlatformFulfilmentInfo {
  fulfilmentId: string; locationId: string | null; createdAt: Date | null;
  lines: { lineId: string; variantId: string | null; quantity: string }[];
}

/**
 * What the platform said about an order (a webhook applied to the mirror): open with its lines and
 * the location its units are assigned to (null: none, or several — then its lines' placements say where), or no longer open (`cancelled`, `closed`, `deleted`);
 * every fulfilment it carries, old ones included (the receiver applies each id once).
 */
export interface PlatformOrderChange {
  orderId: string;
  status: 'open' | 'cancelled' | 'closed' | 'deleted';
  locationId: string | null;
  lines: PlatformOrderChangeLine[];
  fulfilments: PlatformFulfilmentInfo[];
}

/**
 * Where an open order's units are now, when only that changed (the platform moved or split the
 * order's fulfilment): the order's location and, by line id, where each line's units still to ship
 * are (`placements` null: the order's location holds every line; a line not named holds nothing).
 */
export interface PlatformOrderLocation { orderId: string; locationId: string | null; placements: Readonly<Record<string, PlatformLinePlacement[]>> | null }

/**
 * An open order as a full sync read it: its location and, per line, the units still to ship (the
 * platform's unfulfilled quantity). Order execution reserves them for an order it has not seen yet.
 */
export interface PlatformOpenOrder { orderId: string; locationId: string | null; lines: { lineId: string; variantId: string | null; unfulfilled: string; placements?: PlatformLinePlacement[] }[] }

/**
 * One stock move to apply to a live level, identified by bomcore's outbox push id; the work order
 * and build run that caused it, when one did (the platform's reference document).
 */
export interface PlatformLevelAdjustment {
  pushId: string; variantId: string; locationId: string; delta: string; workOrderId?: string | null; buildRunId?: string | null;
  /** The platform order whose fulfilment consumed the stock (an order fulfilment's push). */
  orderId?: string | null;
}

/**
 * A push the platform confirmed in this call, where the platform's level as bomcore holds it did
 * not simply move by the push's delta: `levelChange` is how much writing the platform's answer
 * moved it (exact decimal text; "0" when a newer level was already held, e.g. one a webhook of the
 * push's own change brought while its answer was lost). The outbox drainer turns the difference
 * into an event when it marks the push pushed.
 */
export interface ConfirmedPush { pushId: string; levelChange: string }

/**
 * A storefront level to set (a finished good's available quantity at a location): the new value, in
 * whole units, and the value bomcore last saw there (`changeFromQuantity`). The platform sets it only if
 * its level still is that value.
 */
export interface PlatformLevelSet { variantId: string; locationId: string; quantity: string; changeFromQuantity: string }

/** One compare-and-set of storefront levels, all or none; `idempotencyKey` makes a retried call after a lost answer a replay. */
export interface PlatformLevelSetRequest { sets: readonly PlatformLevelSet[]; idempotencyKey: string; reference: string }

/** `stale`: some level was not the `changeFromQuantity` given (another party moved it), and nothing was set. */
export type PlatformLevelSetOutcome = { status: 'set' } | { status: 'stale' };

export interface OrderMetafieldInfo { orderId: string; namespace: string; key: string; value: unknown; updatedAt: Date }

export interface PlatformGateway {
  /** All locations of the shop, ordered by name then id. */
  listLocations(): Promise<PlatformLocationInfo[]>;
  /** Live levels of the given variants; `locationIds` null means every location. One round trip. */
  getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]>;
  /**
   * The same levels as `getLevels` (`variantIds` and a given `locationIds` not empty), as a select of
   * (variant_id, location_id, available) that a caller embeds in a statement of its own, so reading
   * them with its own rows costs no round trip; null when the adapter does not hold its levels in this
   * database (the caller then asks `getLevels`). Absent on an adapter that never does.
   */
  levelsSql?(variantIds: readonly string[], locationIds: readonly string[] | null): Expression<PlatformLevelRow> | null;
  /** Catalogue data of the given variants (unknown ids are absent). One round trip. */
  getVariants(variantIds: readonly string[]): Promise<PlatformVariantInfo[]>;
  /**
   * The same catalogue data as `getVariants`, for one variant, as a correlated subquery of a JSON
   * object of PlatformVariantInfo (null: unknown variant) that a caller embeds in a statement of its
   * own, so reading it with its own rows costs no round trip; null when the adapter does not hold its
   * variants in this database (the caller then asks `getVariants`). Its SQL depends only on its
   * arguments (a caller may prepare the statement once for every shop). Absent on an adapter that never does.
   */
  variantJson?(shopId: Expression<string>, variantId: Expression<string>): Expression<PlatformVariantInfo | null> | null;
  /**
   * Orders with their line items, in id order. Named ids: any order the platform has, open or not
   * (an adapter that mirrors only open orders reads the others from the platform); unknown ids are
   * absent, and when the platform cannot be asked it throws PlatformUnavailableError rather than
   * leave out an order that may exist. `null` = every open order of the shop.
   */
  getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]>;
  /** Creates or replaces order metafields (one write for the batch). */
  writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void>;
  readOrderMetafields(orderIds: readonly string[], namespace: string, key: string): Promise<OrderMetafieldInfo[]>;
  /**
   * Adds each signed `delta` to the live level of its (variant, location); a missing level starts
   * at 0, and levels may go negative (the caller has already clamped). Idempotent by `pushId`: a
   * push the platform has already applied is skipped, so a retried batch moves each level exactly
   * once. When it throws, the caller retries the whole batch later: whatever part of it was applied
   * is skipped then (the local store applies a batch all or nothing). Returns the pushes confirmed
   * with a level change other than their delta (none when every level moved by its delta).
   */
  applyLevelAdjustments(adjustments: readonly PlatformLevelAdjustment[]): Promise<readonly ConfirmedPush[]>;
  /**
   * Sets available levels by compare-and-set (the storefront levels of finished goods): every set
   * applies only if the platform's level is still its `changeFromQuantity`, all or none. The held
   * copy of the levels (a mirror) takes the new values once the platform has them.
   */
  setLevels(request: PlatformLevelSetRequest): Promise<PlatformLevelSetOutcome>;
  /** The platform's levels of the variants at the locations, asked of the platform itself (not a copy), and written to any copy held. */
  refreshLevels(variantIds: readonly string[], locationIds: readonly string[]): Promise<PlatformLevelInfo[]>;
}

export type PlatformGatewayFactory = (shop: { shopId: string; em: import('../orm-types.ts').Em }) => PlatformGateway;

/**
 * A batch of level adjustments that stopped part way: the pushes in `applied` went through,
 * `pushId` failed (for good when `permanent`: the platform refused it and will refuse it again),
 * and the rest were not tried. The outbox drainer marks each accordingly; any other error from
 * `applyLevelAdjustments` fails the whole batch, to be retried.
 */
export class PlatformPushFailure extends Error {
  readonly pushId: string;
  readonly applied: readonly string[];
  readonly permanent: boolean;
  /** Of `applied`, the confirmations `applyLevelAdjustments` would have returned. */
  readonly confirmed: readonly ConfirmedPush[];

  constructor(message: string, details: { pushId: string; applied: readonly string[]; permanent: boolean; confirmed?: readonly ConfirmedPush[] }) {
    super(message);
    this.name = 'PlatformPushFailure';
    this.pushId = details.pushId;
    this.applied = details.applied;
    this.permanent = details.permanent;
    this.confirmed = details.confirmed ?? [];
  }
}

/**
 * The platform did not answer a read the request needs (down, timing out, refusing the token): the
 * request is answered 503 UNAVAILABLE with Retry-After (src/http/errors/unavailable.ts classifies it
 * by name), never as if what it asked for did not exist.
 */
export class PlatformUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PlatformUnavailableError';
  }
}
