import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import { billsUsingAny } from './material-parents.ts';
import type { BillOwnerType, StorefrontStockMode } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

// The only code that reads and writes `storefront_recomputes`: the markers of finished goods whose
// storefront level may have changed (storefront-recompute.entity.ts). One statement per call.

/** What changed: stock items (materials, finished goods, assembly-bill shelves) and BOMs whose recipe, rules or mode changed. */
export interface StorefrontChange {
  items?: readonly string[];
  bomIds?: readonly string[];
  /** Every BOM of the shop (a dataset load: the levels follow the loaded shelves at once). */
  all?: boolean;
}

/** What a save of a bill changes: a BOM's own level, or (an assembly bill) the `sellable` levels of the BOMs using it. */
export function storefrontChangeOf(key: { ownerType: BillOwnerType; ownerId: string }): StorefrontChange {
  return key.ownerType === 'bom' ? { bomIds: [key.ownerId] } : { items: [key.ownerId] };
}

/** Longest `last_error` kept. */
const MAX_ERROR_LENGTH = 500;

/**
 * Marks the finished goods whose storefront level depends on what changed: a BOM not in `manual`
 * mode whose finished good is one of `items` (its shelf, its order reservations), any such BOM
 * named in `bomIds`, and every `sellable` BOM that consumes one of `items` at any depth (one
 * recursive CTE, read only when the shop has such a BOM). An existing marker's generation is
 * bumped, so a recompute already under way is followed by another. One statement, in the caller's
 * transaction; none when nothing changed.
 */
export async function enqueueStorefrontRecomputes(em: Em, shopId: string, change: StorefrontChange): Promise<void> {
  const insert = storefrontRecomputesInsert(shopId, change);
  if (insert) await runSqlWrite(em, insert);
}

/**
 * The upsert of `enqueueStorefrontRecomputes` as a query, for a writer that sends it as a part of
 * its own statement (src/db/statement-parts.ts: its CTEs `edges` and `parents` join the
 * statement's); null when nothing changed.
 */
export function storefrontRecomputesInsert(shopId: string, change: StorefrontChange) {
  const items = [...new Set(change.items ?? [])];
  const bomIds = [...new Set(change.bomIds ?? [])];
  if (items.length === 0 && bomIds.length === 0 && !change.all) return null;
  // Without items the `parents` CTE is named by no clause, so PostgreSQL never runs it (its list only has to be non-empty).
  return billsUsingAny(shopId, items.length > 0 ? items : [''])
    .insertInto('storefront_recomputes')
    .columns(['shop_id', 'variant_id', 'generation', 'done_generation', 'next_attempt_at', 'attempts'])
    .expression((db) => db.selectFrom('boms as b')
      .select((eb) => [eb.val(shopId).as('shop_id'), sql<string>`b.variant_id`.as('variant_id'), sql.lit(1).as('generation'), sql.lit(0).as('done_generation'), sql<Date>`now()`.as('next_attempt_at'), sql.lit(0).as('attempts')])
      .distinct()
      .where('b.shop_id', '=', shopId).where('b.storefront_stock', '<>', sql.lit('manual')).where('b.variant_id', 'is not', null)
      .where((eb) => eb.or([
        ...(items.length > 0 ? [
          eb('b.variant_id', 'in', items),
          eb.and([eb('b.storefront_stock', '=', sql.lit('sellable')), sql<boolean>`exists (select 1 from parents p where p.owner_type = 'bom' and p.owner_id = b.bom_id)`]),
        ] : []),
        ...(bomIds.length > 0 ? [eb('b.bom_id', 'in', bomIds)] : []),
        ...(change.all ? [sql<boolean>`true`] : []),
      ]))
      // Rows are locked in variant order, so two writers marking the same finished goods never deadlock.
      .orderBy('variant_id'))
    .onConflict((oc) => oc.columns(['shop_id', 'variant_id']).doUpdateSet({
      generation: sql<number>`storefront_recomputes.generation + 1`,
      // A marker already pending keeps its due time (a lease or a backoff); a settled one is due now.
      next_attempt_at: sql<Date>`case when storefront_recomputes.generation > storefront_recomputes.done_generation then storefront_recomputes.next_attempt_at else now() end`,
    }));
}

/** A due marker claimed by a drainer. */
export interface ClaimedStorefrontRecompute { shopId: string; variantId: string; generation: number; attempts: number }

/**
 * The drainer's claim, across shops (or only `shopIds`): up to `limit` due markers, locked with
 * `for update skip locked` and leased by moving their due time `leaseMs` ahead, in one statement.
 */
export async function claimDueStorefrontRecomputes(
  em: Em, options: { limit: number; leaseMs: number; shopIds?: readonly string[] | null },
): Promise<ClaimedStorefrontRecompute[]> {
  const shopIds = options.shopIds ? [...new Set(options.shopIds)] : null;
  if (shopIds && shopIds.length === 0) return [];
  let due = recipesSql.selectFrom('storefront_recomputes').select(['shop_id', 'variant_id'])
    .where(sql<boolean>`generation > done_generation`).where('next_attempt_at', '<=', sql<Date>`now()`);
  if (shopIds) due = due.where('shop_id', 'in', shopIds);
  const rows = await runSql(em, recipesSql
    .with('due', () => due.orderBy('next_attempt_at').orderBy('shop_id').orderBy('variant_id').limit(options.limit).forUpdate().skipLocked())
    .updateTable('storefront_recomputes as r')
    .set({ next_attempt_at: sql<Date>`now() + (${options.leaseMs} * interval '1 millisecond')` })
    .from('due')
    .whereRef('r.shop_id', '=', 'due.shop_id').whereRef('r.variant_id', '=', 'due.variant_id')
    .returning(['r.shop_id', 'r.variant_id', 'r.generation', 'r.attempts']));
  return rows.map((r) => ({ shopId: r.shop_id, variantId: r.variant_id, generation: Number(r.generation), attempts: Number(r.attempts) }))
    .sort((a, b) => (a.shopId + '|' + a.variantId < b.shopId + '|' + b.variantId ? -1 : 1));
}

/**
 * Records that the levels of `variantId` were computed from `generation`: a marker bumped since
 * stays pending and is due at once. One statement.
 */
export async function markStorefrontRecomputeDone(em: Em, shopId: string, variantId: string, generation: number): Promise<void> {
  await runSqlWrite(em, recipesSql.updateTable('storefront_recomputes')
    .set({ done_generation: sql<number>`greatest(done_generation, ${generation}::int)`, attempts: sql.lit(0), last_error: null, next_attempt_at: sql<Date>`now()` })
    .where('shop_id', '=', shopId).where('variant_id', '=', variantId));
}

/** A failed recompute: attempts + 1, the message, due again after min(maxMs, baseMs × 2^attempts). One statement. */
export async function markStorefrontRecomputeFailed(
  em: Em, shopId: string, variantId: string, failure: { error: string; retryBaseMs: number; retryMaxMs: number },
): Promise<void> {
  await runSqlWrite(em, recipesSql.updateTable('storefront_recomputes')
    .set((eb) => ({
      attempts: eb('attempts', '+', sql.lit(1)), last_error: failure.error.slice(0, MAX_ERROR_LENGTH),
      next_attempt_at: sql<Date>`now() + (least(${failure.retryMaxMs}::double precision, ${failure.retryBaseMs}::double precision * power(2, least(attempts, 30))) * interval '1 millisecond')`,
    }))
    .where('shop_id', '=', shopId).where('variant_id', '=', variantId));
}

/** A BOM whose finished good's storefront level bomcore sets. */
export interface StorefrontBom { bomId: string; variantId: string; mode: Exclude<StorefrontStockMode, 'manual'> }

/**
 * The BOMs (not archived, not `manual`) selling these finished goods; where two BOMs sell one
 * variant, the first by id decides. One statement.
 */
export async function storefrontBoms(em: Em, shopId: string, variantIds: readonly string[]): Promise<Map<string, StorefrontBom>> {
  const found = new Map<string, StorefrontBom>();
  if (variantIds.length === 0) return found;
  const rows = await runSql(em, recipesSql.selectFrom('boms').select(['bom_id', 'variant_id', 'storefront_stock'])
    .where('shop_id', '=', shopId).where('variant_id', 'in', [...new Set(variantIds)]).where('storefront_stock', '<>', sql.lit('manual'))
    .where('archived_at', 'is', null).orderBy('bom_id'));
  for (const r of rows) {
    if (r.variant_id === null || found.has(r.variant_id)) continue;
    found.set(r.variant_id, { bomId: r.bom_id, variantId: r.variant_id, mode: r.storefront_stock as StorefrontBom['mode'] });
  }
  return found;
}

/** How many markers of the shop are pending (tests, `bomcore shop status`). One statement. */
export async function pendingStorefrontRecomputes(em: Em, shopId: string): Promise<number> {
  const [row] = await runSql(em, recipesSql.selectFrom('storefront_recomputes').select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('shop_id', '=', shopId).where(sql<boolean>`generation > done_generation`));
  return Number(row?.n ?? 0);
}
