import { DomainError } from '../../domain-error.ts';
import type { ShopContext } from '../../shop-context.ts';
import type { BillOwnerType, BillVersionState } from './recipe-vocabulary.ts';

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
export async function listBillVersions(ctx: ShopContext, input: { ownerType: BillOwnerType; ownerId: string; limit: number; offset: number }): Promise<BillVersionPage> {
  const ownerTable = input.ownerType === 'bom' ? 'boms where shop_id = ? and bom_id = ?' : 'assembly_bills where shop_id = ? and assembly_id = ?';
  const [head] = await ctx.em.execute<{ owner: boolean; ready: string; pending: string }[]>(
    `select exists (select 1 from ${ownerTable}) as owner,
            count(*) filter (where state = 'ready') as ready, count(*) filter (where state = 'pending') as pending
       from bill_versions where shop_id = ? and owner_type = ? and owner_id = ?`,
    [ctx.shopId, input.ownerId, ctx.shopId, input.ownerType, input.ownerId],
  );
  if (!head?.owner) throw DomainError.notFound(input.ownerType === 'bom' ? 'bom' : 'assembly bill', input.ownerId);
  const total = Number(head.ready);
  const rows = total <= input.offset ? [] : await ctx.em.execute<{
    version: number; saved_at: Date | string; saved_by: string | null; trigger: string; content_hash: string | null;
    changed_recipe_fields: number; changed_materials: number; changed_location_rules: number; changed_overrides: number;
  }[]>(
    `select version, saved_at, saved_by, trigger, content_hash, changed_recipe_fields, changed_materials, changed_location_rules, changed_overrides
       from bill_versions where shop_id = ? and owner_type = ? and owner_id = ? and state = 'ready'
      order by version desc limit ? offset ?`,
    [ctx.shopId, input.ownerType, input.ownerId, input.limit, input.offset],
  );
  return {
    ownerType: input.ownerType, ownerId: input.ownerId, total, limit: input.limit, offset: input.offset,
    hasMore: input.offset + rows.length < total, pending: Number(head.pending),
    versions: rows.map((r) => ({
      version: Number(r.version), state: 'ready', savedAt: new Date(r.saved_at), savedBy: r.saved_by, trigger: r.trigger, contentHash: r.content_hash,
      changes: { recipeFields: Number(r.changed_recipe_fields), materials: Number(r.changed_materials), locationRules: Number(r.changed_location_rules), overrides: Number(r.changed_overrides) },
    })),
  };
}
