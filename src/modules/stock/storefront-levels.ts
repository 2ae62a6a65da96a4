import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { Exact, exact, ZERO } from '../../kernel/numbers/index.ts';
import type { PlatformGateway, PlatformLevelSet } from '../../kernel/platform-port/gateway.ts';
import { shopContextFor, type ContextDeps } from '../../kernel/shop-context.ts';
import { bomsBuildable } from '../boms/buildable/buildable.service.ts';
import {
  markStorefrontRecomputeDone, markStorefrontRecomputeFailed, storefrontBoms, type ClaimedStorefrontRecompute, type StorefrontBom,
} from '../boms/for-stock.ts';
import { levelKey } from './platform-push.repository.ts';
import { isPlatformVariantId } from './stock-vocabulary.ts';
import { stockSql } from './tables.ts';

// Storefront stock: the platform's available level of a finished good, set by bomcore for BOMs in
// `shelf` or `sellable` mode (recipe-vocabulary.ts). At each location that stocks the finished good:
//   shelf    = max(0, floor(shelf there − open order reservations there))
//   sellable = max(0, floor(shelf there + sellable from components there − open order reservations there))
// computed exactly from the stored decimals. The outbox drainer settles the markers the writers
// leave (storefront-recomputes.repository.ts in boms): it computes, compares with the level bomcore
// last saw (the platform's, as the mirror holds it), and sets the levels that differ by
// compare-and-set with that level as `changeFromQuantity`. When another party moved a level since
// (stale), the level is read again from the platform and the target recomputed from the database
// — shelves, components and every order the platform has reported — before the next try, so no
// set is ever above what bomcore computed from what it knows.

/** Tries of one finished good's compare-and-set in a pass (each after a fresh read); then the marker backs off. */
const SET_TRIES = 3;

export interface StorefrontSettleResult { settled: number; set: number; stale: number; failed: number }

export interface StorefrontSettleOptions { retryBaseMs: number; retryMaxMs: number; errorMessage: (err: unknown) => string }

/** Per (finished good, location): the shelf and the open order reservations there. One statement. */
async function shelvesAndReservations(em: Em, shopId: string, variantIds: readonly string[], locationIds: readonly string[]): Promise<Map<string, { shelf: Exact; reserved: Exact }>> {
  const found = new Map<string, { shelf: Exact; reserved: Exact }>();
  if (variantIds.length === 0 || locationIds.length === 0) return found;
  const rows = await runSql(em, stockSql.selectFrom('preassembled_stock')
    .select(['item_id', 'location_id', 'quantity as shelf', sql<string>`0`.as('reserved')])
    .where('shop_id', '=', shopId).where('item_id', 'in', [...variantIds]).where('location_id', 'in', [...locationIds])
    .unionAll(stockSql.selectFrom('reservations')
      .select(['item_id', 'location_id', sql<string>`0`.as('shelf'), sql<string>`greatest(quantity - fulfilled_quantity, 0)`.as('reserved')])
      .where('shop_id', '=', shopId).where('kind', '=', sql.lit('order')).where('item_id', 'in', [...variantIds]).where('location_id', 'in', [...locationIds])));
  for (const r of rows) {
    const key = levelKey(r.item_id, r.location_id);
    const at = found.get(key) ?? { shelf: ZERO, reserved: ZERO };
    found.set(key, { shelf: at.shelf.plus(exact(String(r.shelf))), reserved: at.reserved.plus(exact(String(r.reserved))) });
  }
  return found;
}

/**
 * The storefront level of each BOM's finished good at each of `locationIds`, keyed by
 * `levelKey(variantId, locationId)`: whole units, never below 0. Two statements plus the buildable
 * read of the `sellable` BOMs (bounded by the recipe forest, not by the number of BOMs).
 */
export async function storefrontTargets(deps: ContextDeps, shopId: string, em: Em, boms: readonly StorefrontBom[], locationIds: readonly string[]): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  if (boms.length === 0 || locationIds.length === 0) return targets;
  const sellableBoms = boms.filter((b) => b.mode === 'sellable');
  const ctx = { ...shopContextFor(deps, shopId, { requestId: 'storefront-stock', apiKeyId: null, scopes: [] }), em, platform: deps.platform({ shopId, em }) };
  const [stock, buildable] = await Promise.all([
    shelvesAndReservations(em, shopId, boms.map((b) => b.variantId), locationIds),
    sellableBoms.length === 0 ? null : bomsBuildable(ctx, sellableBoms.map((b) => b.bomId), locationIds),
  ]);
  for (const bom of boms) {
    const perLocation = new Map((buildable?.get(bom.bomId)?.perLocation ?? []).map((l) => [l.locationId, l.sellable]));
    for (const locationId of locationIds) {
      const at = stock.get(levelKey(bom.variantId, locationId)) ?? { shelf: ZERO, reserved: ZERO };
      // A BOM whose buildable has no per-location figures (no platform data there) adds nothing from components.
      const fromComponents = bom.mode === 'sellable' ? exact(String(perLocation.get(locationId) ?? 0)) : ZERO;
      const level = Exact.max(at.shelf.plus(fromComponents).minus(at.reserved).floor(), ZERO);
      targets.set(levelKey(bom.variantId, locationId), level.toFixed());
    }
  }
  return targets;
}

/** The key of one compare-and-set: the same intent (marker generation, levels, expected levels) replays; another is new. */
function setKey(shopId: string, marker: ClaimedStorefrontRecompute, sets: readonly PlatformLevelSet[]): string {
  const digest = createHash('sha256').update(JSON.stringify([shopId, marker.variantId, marker.generation, sets])).digest('hex');
  return `bomcore-storefront-${digest.slice(0, 40)}`;
}

/**
 * Settles one shop's claimed markers through its platform adapter (no outbox view): per finished
 * good, the levels that differ from the target are set by compare-and-set; a stale answer is
 * followed by a fresh read of the levels and a recompute, up to SET_TRIES times; the marker is then
 * done (at the generation claimed) or, after an error, retried with backoff.
 */
export async function settleStorefrontMarkers(
  deps: ContextDeps, em: Em, gateway: PlatformGateway, shopId: string, markers: readonly ClaimedStorefrontRecompute[], options: StorefrontSettleOptions,
): Promise<StorefrontSettleResult> {
  const result: StorefrontSettleResult = { settled: 0, set: 0, stale: 0, failed: 0 };
  const boms = await storefrontBoms(em, shopId, markers.map((m) => m.variantId));
  for (const marker of markers) {
    const bom = boms.get(marker.variantId);
    try {
      // A finished good not sold on the platform, or whose BOM went back to manual: nothing to set.
      if (bom && isPlatformVariantId(bom.variantId)) {
        let held = await gateway.getLevels([bom.variantId], null);
        for (let attempt = 1; ; attempt += 1) {
          const locationIds = held.map((l) => l.locationId);
          const targets = await storefrontTargets(deps, shopId, em, [bom], locationIds);
          const sets = held.flatMap((l) => {
            const target = targets.get(levelKey(l.variantId, l.locationId));
            return target === undefined || exact(target).eq(exact(l.available)) ? []
              : [{ variantId: l.variantId, locationId: l.locationId, quantity: target, changeFromQuantity: exact(l.available).toFixed() }];
          });
          if (sets.length === 0) break;
          const outcome = await gateway.setLevels({ sets, idempotencyKey: setKey(shopId, marker, sets), reference: `bomcore://boms/${encodeURIComponent(bom.bomId)}/storefront-stock` });
          if (outcome.status === 'set') {
            result.set += sets.length;
            break;
          }
          result.stale += 1;
          if (attempt >= SET_TRIES) throw new Error(`the storefront level of ${bom.variantId} kept moving on the platform (${SET_TRIES} stale compare-and-sets)`);
          // Another party moved the level: read it from the platform, then recompute (reservations as reported) and try again.
          held = await gateway.refreshLevels([bom.variantId], locationIds);
        }
      }
      await markStorefrontRecomputeDone(em, shopId, marker.variantId, marker.generation);
      result.settled += 1;
    } catch (err) {
      await markStorefrontRecomputeFailed(em, shopId, marker.variantId, { error: options.errorMessage(err), retryBaseMs: options.retryBaseMs, retryMaxMs: options.retryMaxMs });
      result.failed += 1;
    }
  }
  return result;
}
