import type { Expression } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { exact } from '../../kernel/numbers/index.ts';
import {
  PlatformPushFailure, type ConfirmedPush,
  type OrderMetafieldInfo, type PlatformGateway, type PlatformGatewayFactory, type PlatformLevelAdjustment, type PlatformLevelInfo, type PlatformLocationInfo, type PlatformOrderInfo,
  type PlatformLevelRow, type PlatformLevelSetOutcome, type PlatformLevelSetRequest,
  type PlatformVariantInfo,
} from '../../kernel/platform-port/gateway.ts';
import { LocalPlatformGateway } from '../local-gateway.ts';
import { appliedPushIds } from '../mirror.ts';
import { recordPushedLevel, writeLevels } from './mirror-guard.ts';
import { ShopifyAdminApi, ShopifyApiError, type AdminApiOptions } from './admin-api.ts';
import { findConnection, findConnectionIn, type StoredConnection } from './connections.ts';
import { fromGid, toGid } from './ids.ts';
import { requestOperation } from './operations.ts';
import { ORDER_HISTORY_API, readOrderHistory, withOrderHistory } from './order-history.ts';
import type { SecretBox } from '../../kernel/secret-box.ts';
import { connectionTokenSource } from './access-token.ts';
import type { AppCredentials } from './oauth.ts';

/**
 * The platform port of a shop connected to Shopify. Reads come from the shop's mirror (the local
 * platform store, kept by the full sync, webhooks and reconciliation): a request waits for Shopify
 * only for an order the mirror does not hold (it mirrors the open ones; another is read on demand
 * and kept as history), and when Shopify is down the last synced state still answers. Writes go to Shopify:
 * each stock push is one `inventoryAdjustQuantities` under `@idempotent(key: <push id>)`, so a
 * push retried after a lost answer moves Shopify's level once; once Shopify took it, the mirror
 * takes the same delta (idempotent by push id too), so a retried batch skips pushes already done
 * without asking Shopify again.
 */
export class ShopifyPlatformGateway implements PlatformGateway {
  readonly #mirror: LocalPlatformGateway;
  readonly #api: ShopifyAdminApi;
  readonly #em: Em;
  readonly #shopId: string;

  constructor(shop: { shopId: string; em: Em }, api: ShopifyAdminApi) {
    this.#mirror = new LocalPlatformGateway(shop);
    this.#api = api;
    this.#em = shop.em;
    this.#shopId = shop.shopId;
  }

  listLocations(): Promise<PlatformLocationInfo[]> { return this.#mirror.listLocations(); }
  getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]> { return this.#mirror.getLevels(variantIds, locationIds); }
  levelsSql(variantIds: readonly string[], locationIds: readonly string[] | null): Expression<PlatformLevelRow> { return this.#mirror.levelsSql(variantIds, locationIds); }
  getVariants(variantIds: readonly string[]): Promise<PlatformVariantInfo[]> { return this.#mirror.getVariants(variantIds); }
  variantJson(shopId: Expression<string>, variantId: Expression<string>): Expression<PlatformVariantInfo | null> { return this.#mirror.variantJson(shopId, variantId); }
  /** The mirror's orders, and those it lacks read from Shopify and kept as history (order-history.ts). */
  async getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]> {
    const held = await this.#mirror.getOrders(orderIds);
    if (orderIds === null) return held;
    return withOrderHistory(held, orderIds, (missing) => readOrderHistory(this.#api, this.#em, this.#shopId, missing));
  }

  readOrderMetafields(orderIds: readonly string[], namespace: string, key: string): Promise<OrderMetafieldInfo[]> {
    return this.#mirror.readOrderMetafields(orderIds, namespace, key);
  }

  /** `metafieldsSet` in batches of 25 (Shopify's limit per call), then the mirror's copy. */
  async writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void> {
    for (let start = 0; start < entries.length; start += 25) {
      const batch = entries.slice(start, start + 25);
      const answer = await this.#api.request<{ metafieldsSet: { userErrors: { field: string[] | null; message: string; code: string | null }[] } | null }>(
        requestOperation('metafields-set'),
        { metafields: batch.map((e) => ({ ownerId: toGid('Order', e.orderId), namespace: e.namespace, key: e.key, type: 'json', value: JSON.stringify(e.value) })) },
      );
      const errors = answer.metafieldsSet?.userErrors ?? [];
      if (errors.length > 0) throw userErrorsFailure('metafieldsSet', errors);
    }
    await this.#mirror.writeOrderMetafields(entries);
  }

  /**
   * One `inventoryAdjustQuantities` per push, in order, under `@idempotent(key: <push id>)`; the
   * mirror takes each delta once Shopify has it. A push that fails stops the batch with a
   * PlatformPushFailure naming it and the pushes already applied: a refusal Shopify will repeat
   * (userErrors, a deleted variant, a fraction of a unit, a revoked token) is permanent and stops
   * that push; a passing one (timeout, 5xx, throttled too long) is retried by the drainer.
   */
  async applyLevelAdjustments(adjustments: readonly PlatformLevelAdjustment[]): Promise<readonly ConfirmedPush[]> {
    if (adjustments.length === 0) return [];
    const done = await appliedPushIds(this.#em, this.#shopId, adjustments.map((a) => a.pushId));
    const todo = adjustments.filter((a) => !done.has(a.pushId));
    if (todo.length === 0) return [];
    const variants = new Map((await this.#mirror.getVariants(todo.map((a) => a.variantId))).map((v) => [v.variantId, v]));
    const applied: string[] = [];
    const confirmed: ConfirmedPush[] = [];
    for (const push of todo) {
      try {
        const levelChange = await this.#push(push, variants.get(push.variantId)?.inventoryItemId ?? null);
        // The mirror's level moved by other than the push's delta: Shopify's answer folded in another change, or a
        // webhook of this very change came first (its answer was lost): the drainer's events make up the difference.
        if (levelChange !== null && !exact(levelChange).eq(exact(push.delta))) confirmed.push({ pushId: push.pushId, levelChange });
      } catch (error) {
        const permanent = error instanceof ShopifyApiError ? error.permanent : false;
        throw new PlatformPushFailure((error as Error).message, { pushId: push.pushId, applied, permanent, confirmed });
      }
      applied.push(push.pushId);
    }
    return confirmed;
  }

  /**
   * One `inventorySetQuantities` (name `available`, every quantity with its `changeFromQuantity`)
   * under `@idempotent(key:)`; CHANGE_FROM_QUANTITY_STALE answers `stale` (nothing was set). The
   * mirror takes the levels Shopify answered, at Shopify's time of the change (a newer webhook stays).
   */
  async setLevels(request: PlatformLevelSetRequest): Promise<PlatformLevelSetOutcome> {
    if (request.sets.length === 0) return { status: 'set' };
    const variants = new Map((await this.#mirror.getVariants(request.sets.map((s) => s.variantId))).map((v) => [v.variantId, v]));
    const items = request.sets.map((s) => {
      const item = variants.get(s.variantId)?.inventoryItemId;
      if (!item) throw new ShopifyApiError(`variant ${s.variantId} is not in the store (deleted on Shopify?)`, { permanent: true, code: 'UNKNOWN_VARIANT' });
      return item;
    });
    const answer = await this.#api.request<InventorySetAnswer>(requestOperation('inventory-set'), {
      key: request.idempotencyKey,
      input: {
        name: 'available',
        reason: 'correction',
        referenceDocumentUri: request.reference,
        quantities: request.sets.map((s, i) => ({
          inventoryItemId: toGid('InventoryItem', items[i]!), locationId: toGid('Location', s.locationId),
          quantity: Number(exact(s.quantity).toFixed()), changeFromQuantity: Number(exact(s.changeFromQuantity).toFixed()),
        })),
      },
    });
    const payload = answer.inventorySetQuantities;
    const errors = payload?.userErrors ?? [];
    if (errors.some((e) => e.code === 'CHANGE_FROM_QUANTITY_STALE')) return { status: 'stale' };
    if (errors.length > 0) throw userErrorsFailure('inventorySetQuantities', errors);
    const version = payload?.inventoryAdjustmentGroup ? new Date(payload.inventoryAdjustmentGroup.createdAt) : new Date();
    await writeLevels(this.#em, this.#shopId, request.sets.map((s, i) => ({
      variantId: s.variantId, inventoryItemId: items[i]!, locationId: s.locationId, available: exact(s.quantity).toFixed(), version,
    })));
    return { status: 'set' };
  }

  /** Each variant's levels read from Shopify (one request per variant), written to the mirror when newer than what it holds. */
  async refreshLevels(variantIds: readonly string[], locationIds: readonly string[]): Promise<PlatformLevelInfo[]> {
    const wanted = new Set(locationIds);
    const found: PlatformLevelInfo[] = [];
    const writes: { variantId: string; inventoryItemId: string; locationId: string; available: string; version: Date }[] = [];
    for (const variant of await this.#mirror.getVariants(variantIds)) {
      const answer = await this.#api.request<InventoryItemLevelsAnswer>(requestOperation('inventory-item-levels'), { item: toGid('InventoryItem', variant.inventoryItemId) });
      for (const node of answer.inventoryItem?.inventoryLevels.nodes ?? []) {
        const locationId = node.location ? fromGid('Location', node.location.id) : null;
        const available = node.quantities.find((q) => q.name === 'available')?.quantity;
        if (!locationId || !wanted.has(locationId) || typeof available !== 'number') continue;
        found.push({ variantId: variant.variantId, locationId, available: String(available) });
        writes.push({ variantId: variant.variantId, inventoryItemId: variant.inventoryItemId, locationId, available: String(available), version: new Date(node.updatedAt) });
      }
    }
    await writeLevels(this.#em, this.#shopId, writes);
    return found;
  }

  /** Pushes one adjustment; returns how much the mirror's level moved (null: the mirror applied the delta itself). */
  async #push(push: PlatformLevelAdjustment, inventoryItemId: string | null): Promise<string | null> {
    if (inventoryItemId === null) {
      throw new ShopifyApiError(`variant ${push.variantId} is not in the store (deleted on Shopify?)`, { permanent: true, code: 'UNKNOWN_VARIANT' });
    }
    const delta = exact(push.delta);
    if (!delta.isInteger()) {
      throw new ShopifyApiError(`Shopify keeps whole units; the delta ${push.delta} of variant ${push.variantId} is not one`, { permanent: true, code: 'FRACTIONAL_DELTA' });
    }
    const answer = await this.#api.request<InventoryAdjustAnswer>(
      requestOperation('inventory-adjust'),
      {
        key: push.pushId,
        input: {
          name: 'available',
          reason: 'correction',
          referenceDocumentUri: referenceDocument(push),
          changes: [{
            inventoryItemId: toGid('InventoryItem', inventoryItemId),
            locationId: toGid('Location', push.locationId),
            delta: Number(delta.toFixed()),
            // Mandatory since 2026-04 (Shopify refuses a change without it), and `null` on purpose: a push is a
            // pure delta (stock a build run or a fulfilment took), right whatever the level is now. A known
            // quantity would make every sale Shopify takes between our read and this call a
            // CHANGE_FROM_QUANTITY_STALE refusal of a move that is still due, while @idempotent already
            // guards what compare-and-swap would (a retried push moving the level twice).
            changeFromQuantity: null,
          }],
        },
      },
    );
    const payload = answer.inventoryAdjustQuantities;
    const errors = payload?.userErrors ?? [];
    if (errors.length > 0) throw userErrorsFailure('inventoryAdjustQuantities', errors);
    const group = payload?.inventoryAdjustmentGroup;
    const change = group?.changes.find((c) => c.location?.id === toGid('Location', push.locationId));
    if (group && change && typeof change.quantityAfterChange === 'number') {
      // The level Shopify answered, at Shopify's time of the change: a webhook of a later change
      // that came first stays, and a replayed answer (an older time) never moves the level back.
      return recordPushedLevel(this.#em, this.#shopId, { ...push, inventoryItemId }, String(change.quantityAfterChange), new Date(group.createdAt));
    }
    await this.#mirror.applyLevelAdjustments([push]);
    return null;
  }
}

interface InventoryAdjustAnswer {
  inventoryAdjustQuantities: {
    inventoryAdjustmentGroup: { createdAt: string; changes: { quantityAfterChange: number | null; location: { id: string } | null }[] } | null;
    userErrors: { field: string[] | null; message: string; code: string | null }[];
  } | null;
}

interface InventorySetAnswer {
  inventorySetQuantities: {
    inventoryAdjustmentGroup: { createdAt: string } | null;
    userErrors: { field: string[] | null; message: string; code: string | null }[];
  } | null;
}

interface InventoryItemLevelsAnswer {
  inventoryItem: { inventoryLevels: { nodes: { updatedAt: string; location: { id: string } | null; quantities: { name: string; quantity: number }[] }[] } } | null;
}

/**
 * What moved the stock, as Shopify's inventory history shows it: the build run, the Shopify order
 * whose fulfilment consumed it (its GID, which Shopify's admin links), or the push alone.
 */
function referenceDocument(push: PlatformLevelAdjustment): string {
  if (push.workOrderId && push.buildRunId) {
    return `bomcore://work-orders/${encodeURIComponent(push.workOrderId)}/build-runs/${encodeURIComponent(push.buildRunId)}?push=${encodeURIComponent(push.pushId)}`;
  }
  if (push.orderId) return toGid('Order', push.orderId);
  return `bomcore://pushes/${encodeURIComponent(push.pushId)}`;
}

const PASSING_USER_ERRORS = new Set(['IDEMPOTENCY_CONCURRENT_REQUEST', 'SERVICE_UNAVAILABLE']);

function userErrorsFailure(mutation: string, errors: { field: string[] | null; message: string; code: string | null }[]): ShopifyApiError {
  const first = errors[0]!;
  const text = errors.map((e) => `${e.code ?? 'ERROR'}${e.field ? ` (${e.field.join('.')})` : ''}: ${e.message}`).join('; ');
  return new ShopifyApiError(`Shopify ${mutation}: ${text}`, { permanent: !PASSING_USER_ERRORS.has(first.code ?? ''), code: first.code ?? 'USER_ERROR' });
}

export interface ShopifyPlatformOptions {
  /** Opens sealed tokens; resolved when a connected shop first needs Shopify. */
  secretBox: () => SecretBox;
  api?: AdminApiOptions;
  /** SHOPIFY_API_KEY and SHOPIFY_API_SECRET: renew the tokens the install link got (default none). */
  installApp?: AppCredentials | null;
}

export interface ConnectionApiOptions extends AdminApiOptions {
  /** Where an expiring token's renewal re-reads and writes the connection (required for one). */
  em?: Em;
  /** SHOPIFY_API_KEY and SHOPIFY_API_SECRET (null: unset): the app whose refresh tokens the install link got. */
  installApp?: AppCredentials | null;
}

/** An API client for a stored connection: a token file's token as it is, an expiring one renewed as it nears its end (access-token.ts). */
export function adminApiFor(connection: StoredConnection, box: SecretBox, options: ConnectionApiOptions): ShopifyAdminApi {
  const { em, installApp, ...apiOptions } = options;
  if (connection.grantKind !== 'token' && !em) throw new Error(`the expiring token of ${connection.domain} is renewed in the database: adminApiFor needs an em`);
  const accessToken = connection.grantKind === 'token' ? box.open(connection.tokenSealed)
    : connectionTokenSource(connection, { em: em!, box, endpoint: apiOptions.endpoint ?? null, installApp: installApp ?? null });
  return new ShopifyAdminApi({ domain: connection.domain, accessToken, apiVersion: connection.apiVersion }, apiOptions);
}

/** The install app's credentials of a configuration (both variables set), else null. */
export function installAppOf(config: { shopifyApiKey: string | null; shopifyApiSecret: string | null }): AppCredentials | null {
  return config.shopifyApiKey && config.shopifyApiSecret ? { clientId: config.shopifyApiKey, clientSecret: config.shopifyApiSecret } : null;
}

/**
 * The platform port per shop: a shop connected to Shopify gets the Shopify gateway, any other the
 * local platform store. Reads are the mirror's either way; the connection is looked up (one
 * statement) only when a write needs it, or a read names orders the mirror does not hold.
 */
export function platformGatewayFactory(options: ShopifyPlatformOptions): PlatformGatewayFactory {
  return (shop) => new RoutingGateway(shop, options);
}

class RoutingGateway extends LocalPlatformGateway {
  readonly #shop: { shopId: string; em: Em };
  readonly #options: ShopifyPlatformOptions;

  constructor(shop: { shopId: string; em: Em }, options: ShopifyPlatformOptions) {
    super(shop);
    this.#shop = shop;
    this.#options = options;
  }

  async #writer(): Promise<PlatformGateway> {
    const connection = await findConnection(this.#shop.em, this.#shop.shopId);
    if (!connection) return new LocalPlatformGateway(this.#shop);
    // Uninstalled: no call reaches the store and its tokens are gone. A push waits in the outbox
    // (a passing failure, retried with backoff) and goes out once the app is installed again.
    if (connection.uninstalledAt) {
      throw new ShopifyApiError(`the store ${connection.domain} uninstalled the app at ${connection.uninstalledAt.toISOString()}: nothing is sent until it is installed again`, { permanent: false, code: 'UNINSTALLED' });
    }
    return new ShopifyPlatformGateway(this.#shop, this.#api(connection));
  }

  #api(connection: StoredConnection, options: AdminApiOptions = {}): ShopifyAdminApi {
    return adminApiFor(connection, this.#options.secretBox(), { ...this.#options.api, ...options, em: this.#shop.em, installApp: this.#options.installApp ?? null });
  }

  /**
   * The mirror's orders; named orders it lacks are, for a shop connected to Shopify, read from the
   * store (one request for the batch, retried briefly) and kept as history (order-history.ts).
   */
  override async getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]> {
    const held = await super.getOrders(orderIds);
    if (orderIds === null) return held;
    return withOrderHistory(held, orderIds, async (missing) => {
      const connection = await findConnectionIn(this.#shop.em, this.#shop.shopId);
      // Not connected, or uninstalled (its tokens are gone): the mirror is all there is.
      if (!connection || connection.uninstalledAt) return [];
      return readOrderHistory(this.#api(connection, ORDER_HISTORY_API), this.#shop.em, this.#shop.shopId, missing);
    });
  }

  override async writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void> {
    if (entries.length === 0) return;
    return (await this.#writer()).writeOrderMetafields(entries);
  }

  override async applyLevelAdjustments(adjustments: readonly PlatformLevelAdjustment[]): Promise<readonly ConfirmedPush[]> {
    if (adjustments.length === 0) return [];
    return (await this.#writer()).applyLevelAdjustments(adjustments);
  }

  override async setLevels(request: PlatformLevelSetRequest): Promise<PlatformLevelSetOutcome> {
    if (request.sets.length === 0) return { status: 'set' };
    return (await this.#writer()).setLevels(request);
  }

  /** A connected shop's levels are asked of Shopify; another's are the local store's. */
  override async refreshLevels(variantIds: readonly string[], locationIds: readonly string[]): Promise<PlatformLevelInfo[]> {
    if (variantIds.length === 0 || locationIds.length === 0) return [];
    return (await this.#writer()).refreshLevels(variantIds, locationIds);
  }
}
