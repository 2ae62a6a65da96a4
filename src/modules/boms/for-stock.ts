import { expressionBuilder, sql, type Expression, type InferResult, type RawBuilder, type SqlBool } from 'kysely';
import { materialParents } from './material-parents.ts';
import type { RecipesTables } from './tables.ts';

// What the stock module reads of recipes, as SQL fragments its statements embed (stock sits above
// recipes and names none of their tables itself). Each costs no round trip of its own.

/** "A BOM of the shop sells `variantId`" (a finished good is stocked under its variant id). */
export function bomSellsVariantSql(shopId: string, variantId: string): Expression<SqlBool> {
  const eb = expressionBuilder<RecipesTables, never>();
  return eb.exists(eb.selectFrom('boms').select(eb.lit(1).as('one')).where('shop_id', '=', shopId).where('variant_id', '=', variantId));
}

/** "The shop has assembly bill `assemblyId`". */
export function assemblyBillExistsSql(shopId: string, assemblyId: string): Expression<SqlBool> {
  const eb = expressionBuilder<RecipesTables, never>();
  return eb.exists(eb.selectFrom('assembly_bills').select(eb.lit(1).as('one')).where('shop_id', '=', shopId).where('assembly_id', '=', assemblyId));
}

/**
 * The name of the bill a holder names (`ownerType` 'bom' or 'sub_assembly', `ownerId`), null when
 * the shop has no such bill: one primary-key lookup per row.
 */
export function billNameSql(shopId: string, ownerType: Expression<string>, ownerId: Expression<string>): RawBuilder<string | null> {
  const eb = expressionBuilder<RecipesTables, never>();
  return sql<string | null>`coalesce(${eb.selectFrom('boms').select('name').where('shop_id', '=', shopId).where(sql<SqlBool>`${ownerType} = 'bom'`).where('bom_id', '=', ownerId)},
    ${eb.selectFrom('assembly_bills').select('name').where('shop_id', '=', shopId).where(sql<SqlBool>`${ownerType} = 'sub_assembly'`).where('assembly_id', '=', ownerId)})`;
}

/**
 * Every bill that consumes `variantId` at any depth (materialParents), with its name and its shelf
 * item id (a BOM's variant, an assembly bill's own id), as a query for a CTE of the caller's.
 */
export function shelfParentsSql(shopId: string, variantId: string) {
  return materialParents(shopId, variantId).selectFrom('parents as p')
    .leftJoin('boms as b', (j) => j.on('p.owner_type', '=', sql.lit('bom')).on('b.shop_id', '=', shopId).onRef('b.bom_id', '=', 'p.owner_id'))
    .leftJoin('assembly_bills as a', (j) => j.on('p.owner_type', '=', sql.lit('sub_assembly')).on('a.shop_id', '=', shopId).onRef('a.assembly_id', '=', 'p.owner_id'))
    .select([
      'p.owner_type', 'p.owner_id', sql<string>`coalesce(b.name, a.name, p.owner_id)`.as('name'),
      sql<string | null>`case when p.owner_type = 'bom' then b.variant_id else p.owner_id end`.as('item_id'),
    ]);
}

/** A bill that consumes a material, with its name and the id its shelf stock is kept under. */
export type ShelfParent = InferResult<ReturnType<typeof shelfParentsSql>>[number];

// The storefront markers: stock's writers mark what they change, and the outbox drainer (stock) claims and settles them.
export {
  claimDueStorefrontRecomputes, enqueueStorefrontRecomputes, markStorefrontRecomputeDone, markStorefrontRecomputeFailed, pendingStorefrontRecomputes,
  storefrontBoms, storefrontRecomputesInsert, type ClaimedStorefrontRecompute, type StorefrontBom, type StorefrontChange,
} from './storefront-recomputes.repository.ts';
