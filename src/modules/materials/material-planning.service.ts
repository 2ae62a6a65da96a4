import { sql, type Updateable } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { InputErrors } from '../boms/catalog-input.ts';
import { recordMaterialUpdated } from './material-events.ts';
import { findMaterialRow, toMaterialView, type MaterialView } from './material-view.ts';
import { materialsSql, type MaterialsTables } from './tables.ts';

// A material's planning fields (docs/planning.md): how buy suggestions are shaped. They are
// bomcore's own, not mirrored from the platform, so platform-linked materials take them too.

/** Absent = unchanged; `orderMultiple` null = any quantity; the others refuse null (they have defaults). */
export interface MaterialPlanningInput {
  leadTimeDays?: number | null;
  minimumOrderQuantity?: string | null;
  orderMultiple?: string | null;
}

type PlanningColumns = Pick<Updateable<MaterialsTables['materials']>, 'lead_time_days' | 'minimum_order_quantity' | 'order_multiple'>;

/** The planning fields sent as column assignments; errors name the field. */
export function planningColumns(errors: InputErrors, input: MaterialPlanningInput): PlanningColumns {
  const sets: PlanningColumns = {};
  const lead = errors.leadTimeDays('leadTimeDays', input.leadTimeDays);
  if (lead !== undefined) sets.lead_time_days = lead;
  if (input.minimumOrderQuantity === null) errors.add('minimumOrderQuantity', 'must not be null (0 = no minimum)');
  else if (input.minimumOrderQuantity !== undefined) {
    const moq = errors.decimal('minimumOrderQuantity', input.minimumOrderQuantity, 'nonNegative');
    if (moq !== null) sets.minimum_order_quantity = moq;
  }
  if (input.orderMultiple === null) sets.order_multiple = null;
  else if (input.orderMultiple !== undefined) {
    const multiple = errors.decimal('orderMultiple', input.orderMultiple, 'positive');
    if (multiple !== null) sets.order_multiple = multiple;
  }
  return sets;
}

/**
 * Changes the planning fields sent on a material of either origin and returns the material, in one
 * transaction (update, its event, read back). Unknown id: NOT_FOUND.
 */
export async function updateMaterialPlanning(ctx: ShopContext, variantId: string, input: MaterialPlanningInput): Promise<MaterialView> {
  const errors = new InputErrors();
  const sets = planningColumns(errors, input);
  errors.throwIfAny();
  return inShopTransaction(ctx, async (tx) => {
    const fields = Object.keys(input).filter((f) => input[f as keyof MaterialPlanningInput] !== undefined);
    const updated = await runSql(tx.em, materialsSql.updateTable('materials').set({ ...sets, updated_at: sql<Date>`now()` })
      .where('shop_id', '=', tx.shopId).where('variant_id', '=', variantId).returning('variant_id'));
    if (updated.length === 0) throw DomainError.notFound('raw material', variantId);
    if (fields.length > 0) await recordMaterialUpdated(tx, variantId, { change: 'updated', fields });
    return toMaterialView(await findMaterialRow(tx, variantId));
  });
}
