import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { materialsSql } from './tables.ts';

// What the planning module (a higher tier) reads of the materials: each material's origin, its
// essential flag and its planning fields, in one statement.

export interface PlanningMaterialRow {
  variantId: string;
  platformLinked: boolean;
  essential: boolean;
  leadTimeDays: number;
  minimumOrderQuantity: string;
  orderMultiple: string | null;
}

/** Every material of the shop (archived ones too: recipes that name them still consume them). */
export async function planningMaterials(ctx: ShopContext): Promise<PlanningMaterialRow[]> {
  const rows = await runSql(ctx.em, materialsSql.selectFrom('materials')
    .select(['variant_id', 'origin', 'is_non_essential_material', 'lead_time_days', 'minimum_order_quantity', 'order_multiple'])
    .where('shop_id', '=', ctx.shopId));
  return rows.map((r) => ({
    variantId: r.variant_id, platformLinked: r.origin === 'platform', essential: !r.is_non_essential_material,
    leadTimeDays: Number(r.lead_time_days), minimumOrderQuantity: String(r.minimum_order_quantity), orderMultiple: r.order_multiple === null ? null : String(r.order_multiple),
  }));
}
