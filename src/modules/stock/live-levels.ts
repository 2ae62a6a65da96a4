import { sql, type Expression } from 'kysely';
import { exact } from '../../kernel/numbers/index.ts';
import type { Em } from '../../db/orm.ts';
import type {
  ConfirmedPush, OrderMetafieldInfo, PlatformGateway, PlatformLevelAdjustment, PlatformLevelInfo, PlatformLevelRow, PlatformLevelSetOutcome, PlatformLevelSetRequest, PlatformLocationInfo, PlatformOrderInfo, PlatformVariantInfo,
} from '../../kernel/platform-port/gateway.ts';
import { levelKey, pendingLevelDeltas, pendingLevelDeltasSql } from './platform-push.repository.ts';

/**
 * Stock's rule of a live level: live level = the platform's level + the outbox's pending pushes
 * (stock a build run or a fulfilment took but the drainer has not pushed yet), so no read shows
 * stock already consumed. The platform adapters report only the platform's level; the composition
 * root (src/app/composition.ts) wraps the adapter in this gateway for every service.
 *
 * `getLevels` costs one extra round trip on the shop's em; a pending push on a (variant, location)
 * the platform has no level for yet reads as a level starting at 0, as it will be once pushed. Every other method goes straight to the platform.
 */
export class LiveLevelsGateway implements PlatformGateway {
  readonly #inner: PlatformGateway;
  readonly #em: Em;
  readonly #shopId: string;

  constructor(inner: PlatformGateway, shop: { shopId: string; em: Em }) {
    this.#inner = inner;
    this.#em = shop.em;
    this.#shopId = shop.shopId;
  }

  async getLevels(variantIds: readonly string[], locationIds: readonly string[] | null): Promise<PlatformLevelInfo[]> {
    const [levels, pending] = await Promise.all([
      this.#inner.getLevels(variantIds, locationIds),
      pendingLevelDeltas(this.#em, this.#shopId, variantIds, locationIds),
    ]);
    if (pending.size === 0) return levels;
    const merged = levels.map((level) => {
      const key = levelKey(level.variantId, level.locationId);
      const delta = pending.get(key);
      if (delta === undefined) return level;
      pending.delete(key);
      return { ...level, available: exact(level.available).plus(delta).toFixed() };
    });
    // Pending pushes on levels the platform does not list yet: the key's variant is one asked for.
    const asked = new Set(variantIds);
    const unlisted: PlatformLevelInfo[] = [];
    for (const [key, delta] of pending) {
      for (let cut = key.indexOf('|'); cut >= 0; cut = key.indexOf('|', cut + 1)) {
        if (!asked.has(key.slice(0, cut))) continue;
        unlisted.push({ variantId: key.slice(0, cut), locationId: key.slice(cut + 1), available: delta });
        break;
      }
    }
    unlisted.sort((a, b) => compare(a.variantId, b.variantId) || compare(a.locationId, b.locationId));
    return [...merged, ...unlisted];
  }

  /**
   * The live levels of `getLevels` as a select to embed (the platform's levels full-joined with the
   * pending pushes' sums), null when the adapter's levels are not in this database.
   */
  levelsSql(variantIds: readonly string[], locationIds: readonly string[] | null): Expression<PlatformLevelRow> | null {
    const platform = this.#inner.levelsSql?.(variantIds, locationIds) ?? null;
    if (!platform) return null;
    const pending = pendingLevelDeltasSql(this.#shopId, variantIds, locationIds);
    return sql<PlatformLevelRow>`(select coalesce(p.variant_id, q.variant_id) as variant_id, coalesce(p.location_id, q.location_id) as location_id,
      coalesce(p.available, 0) + coalesce(q.delta, 0) as available
      from ${platform} as p full join ${pending} as q on q.variant_id = p.variant_id and q.location_id = p.location_id)`;
  }

  listLocations(): Promise<PlatformLocationInfo[]> {
    return this.#inner.listLocations();
  }

  getVariants(variantIds: readonly string[]): Promise<PlatformVariantInfo[]> {
    return this.#inner.getVariants(variantIds);
  }

  variantJson(shopId: Expression<string>, variantId: Expression<string>): Expression<PlatformVariantInfo | null> | null {
    return this.#inner.variantJson?.(shopId, variantId) ?? null;
  }

  getOrders(orderIds: readonly string[] | null): Promise<PlatformOrderInfo[]> {
    return this.#inner.getOrders(orderIds);
  }

  writeOrderMetafields(entries: readonly Omit<OrderMetafieldInfo, 'updatedAt'>[]): Promise<void> {
    return this.#inner.writeOrderMetafields(entries);
  }

  readOrderMetafields(orderIds: readonly string[], namespace: string, key: string): Promise<OrderMetafieldInfo[]> {
    return this.#inner.readOrderMetafields(orderIds, namespace, key);
  }

  setLevels(request: PlatformLevelSetRequest): Promise<PlatformLevelSetOutcome> {
    return this.#inner.setLevels(request);
  }

  refreshLevels(variantIds: readonly string[], locationIds: readonly string[]): Promise<PlatformLevelInfo[]> {
    return this.#inner.refreshLevels(variantIds, locationIds);
  }

  applyLevelAdjustments(adjustments: readonly PlatformLevelAdjustment[]): Promise<readonly ConfirmedPush[]> {
    return this.#inner.applyLevelAdjustments(adjustments);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
