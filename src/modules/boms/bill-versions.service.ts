import { sql } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { windowOf } from '../../kernel/limits.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { BillOwnerType, BillVersionState } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

export interface BillVersionView {
  version: number; state: Extract<BillVersionState, 'ready'>; savedAt: Date; savedBy: string | null; trigger: string; contentHash: string | null;
  changes: { recipeFields: number; materials: number; locationRules: number; overrides: number };
}
export interface BillVersionPage {
  ownerType: BillOwnerType; ownerId: string; versions: BillVersionView[]; total: number; limit: number; offset: number; hasMore: boolean; pending: number;
}

/**
 * Saved versions of a bill, newest first. Only `ready` versions are listed; `pending` counts the
 * ones allocated but not yet readable; `hasMore` = offset + rows < total ready. Unknown owner → 404.
 * Two round trips (owner and counts, then the page).
 */
export async function listBillVersions(ctx: ShopContext, input: { ownerType: BillOwnerType; ownerId: string; limit?: number | null; offset?: number | null }): Promise<BillVersionPage> {
  const { limit, offset } = windowOf(input, 'billVersions');
  const owner = input.ownerType === 'bom'
    ? recipesSql.selectFrom('boms').select(sql<number>`1`.as('one')).where('shop_id', '=', ctx.shopId).where('bom_id', '=', input.ownerId)
    : recipesSql.selectFrom('assembly_bills').select(sql<number>`1`.as('one')).where('shop_id', '=', ctx.shopId).where('assembly_id', '=', input.ownerId);
  const [head] = await runSql(ctx.em, recipesSql.selectFrom('bill_versions')
    .select((eb) => [
      eb.exists(owner).as('owner'),
      sql<string>`count(*) filter (where state = 'ready')`.as('ready'), sql<string>`count(*) filter (where state = 'pending')`.as('pending'),
    ])
    .where('shop_id', '=', ctx.shopId).where('owner_type', '=', input.ownerType).where('owner_id', '=', input.ownerId));
  if (!head?.owner) throw DomainError.notFound(input.ownerType === 'bom' ? 'bom' : 'assembly bill', input.ownerId);
  const total = Number(head.ready);
  const rows = total <= offset ? [] : await runSql(ctx.em, recipesSql.selectFrom('bill_versions')
    .select(['version', 'saved_at', 'saved_by', 'trigger', 'content_hash', 'changed_recipe_fields', 'changed_materials', 'changed_location_rules', 'changed_overrides'])
    .where('shop_id', '=', ctx.shopId).where('owner_type', '=', input.ownerType).where('owner_id', '=', input.ownerId).where('state', '=', 'ready')
    .orderBy('version', 'desc').limit(limit).offset(offset));
  return {
    ownerType: input.ownerType, ownerId: input.ownerId, total, limit, offset,
    hasMore: offset + rows.length < total, pending: Number(head.pending),
    versions: rows.map((r) => ({
      version: Number(r.version), state: 'ready', savedAt: new Date(r.saved_at), savedBy: r.saved_by, trigger: r.trigger, contentHash: r.content_hash,
      changes: { recipeFields: Number(r.changed_recipe_fields), materials: Number(r.changed_materials), locationRules: Number(r.changed_location_rules), overrides: Number(r.changed_overrides) },
    })),
  };
}
