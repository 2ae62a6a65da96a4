import type { Expression, SqlBool } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { ZERO, type Exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { bomSellsVariantSql } from '../boms/for-stock.ts';
import { stockSql } from './tables.ts';

/** Holder lists of the per-location reads are capped at this many entries (docs/contract.md: limits). */
export const HOLDER_CAP = 20;

export interface CappedHolders<T> { holders: T[]; otherHoldersCount: number; otherHoldersQuantity: Exact }

/**
 * The 20 largest holders (by `quantity`, ties by type then id) and a count and sum of the rest;
 * the level's own sums are computed from every holder, never from the capped list.
 */
export function capHolders<T extends { holderType: string; holderId: string; quantity: Exact }>(all: readonly T[], cap = HOLDER_CAP): CappedHolders<T> {
  const sorted = [...all].sort((a, b) => b.quantity.comparedTo(a.quantity) || cmp(a.holderType, b.holderType) || cmp(a.holderId, b.holderId));
  const rest = sorted.slice(cap);
  return { holders: sorted.slice(0, cap), otherHoldersCount: rest.length, otherHoldersQuantity: rest.reduce((s, h) => s.plus(h.quantity), ZERO) };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * "The shop has raw material `variantId`", as an SQL condition: the materials module's
 * `materialExistsSql` (src/modules/materials/for-stock.ts), handed in by the caller (stock sits
 * below materials and imports nothing of them; .dependency-cruiser.cjs).
 */
export type MaterialExistsSql = (shopId: string, variantId: string) => Expression<SqlBool>;

/**
 * Stock items read under /raw-materials/{variantId}/…: a material, or a finished good (the platform
 * variant a BOM sells as). Anything else, or another shop's id, is 404. One query.
 */
export async function assertStockItem(ctx: ShopContext, variantId: string, materialExists: MaterialExistsSql): Promise<void> {
  const [row] = await runSql(ctx.em, stockSql.selectNoFrom((eb) => eb.or([
    materialExists(ctx.shopId, variantId), bomSellsVariantSql(ctx.shopId, variantId),
  ]).as('found')));
  if (row?.found !== true) throw DomainError.notFound('raw material', variantId);
}

/** Location names for the levels of a read (one gateway call). */
export async function locationNames(ctx: ShopContext): Promise<Map<string, string>> {
  const locations = await ctx.platform.listLocations();
  return new Map(locations.map((l) => [l.locationId, l.name]));
}
