import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { materialsSql } from './tables.ts';

/** What a platform-linked material takes from its platform variant (exact decimal text). */
export interface MirroredMaterialFields {
  variantId: string; productId: string; inventoryItemId: string; productName: string; variantName: string | null; sku: string | null;
  vendor: string | null; price: string | null; cost: string | null; imageUrl: string | null; productType: string | null; productCategory: string | null;
  weightValue: string | null; weightUnitId: string | null; tracked: boolean; totalAvailable: string;
}

/**
 * Platform-linked materials follow their platform variants after a sync: name, sku, vendor,
 * price, cost, image and whether the platform counts their stock, "mirrored from the platform",
 * and the cached quantity (the sum of the variant's levels, the list's `inventoryQuantity`). One
 * statement per page of variants; only rows that differ are written (and get a new `updatedAt`).
 * Returns how many changed and the materials whose unit cost changed (the BOM cost roll-up of the
 * bills that use them follows, in the caller's transaction).
 */
export async function mirrorPlatformMaterials(em: Em, shopId: string, pages: AsyncIterable<readonly MirroredMaterialFields[]>): Promise<{ changed: number; costChanged: string[] }> {
  let changed = 0;
  const costChanged: string[] = [];
  for await (const page of pages) {
    if (page.length === 0) continue;
    const input = JSON.stringify(page.map((v) => ({
      variant_id: v.variantId, product_id: v.productId, inventory_item_id: v.inventoryItemId, product_name: v.productName, variant_name: v.variantName,
      sku: v.sku, vendor: v.vendor, unit_price: v.price, unit_cost: v.cost, image_url: v.imageUrl, cached_quantity: v.totalAvailable,
      product_type: v.productType, product_category: v.productCategory, weight_value: v.weightValue, weight_unit_id: v.weightUnitId, tracked: v.tracked,
    })));
    // The page with each material's unit cost as it was (the subquery reads the statement's
    // snapshot, before the update): the returning clause tells a cost change from any other.
    const source = sql<Record<'variant_id', string>>`(select p.*, o.unit_cost as old_cost from jsonb_to_recordset(${input}::jsonb)
        as p(variant_id text, product_id text, inventory_item_id text, product_name text, variant_name text, sku text, vendor text, unit_price numeric, unit_cost numeric,
          image_url text, cached_quantity numeric, product_type text, product_category text, weight_value numeric, weight_unit_id text, tracked boolean)
        join materials o on o.shop_id = ${shopId} and o.variant_id = p.variant_id)`.as<'v'>('v');
    const rows = await runSql(em, materialsSql.updateTable('materials as m').from(source)
      .set({
        product_id: sql`v.product_id`, inventory_item_id: sql`v.inventory_item_id`, product_name: sql`v.product_name`, variant_name: sql`v.variant_name`,
        sku: sql`v.sku`, vendor: sql`v.vendor`, unit_price: sql`v.unit_price`, unit_cost: sql`v.unit_cost`, image_url: sql`v.image_url`,
        cached_quantity: sql`v.cached_quantity`, product_type: sql`v.product_type`, product_category: sql`v.product_category`, weight_value: sql`v.weight_value`,
        weight_unit_id: sql`v.weight_unit_id`, tracked: sql`v.tracked`, updated_at: sql`now()`,
      })
      .where('m.shop_id', '=', shopId).where('m.origin', '=', sql.lit('platform')).whereRef('m.variant_id', '=', 'v.variant_id')
      .where(sql<boolean>`(m.product_id, m.inventory_item_id, m.product_name, m.variant_name, m.sku, m.vendor, m.unit_price, m.unit_cost, m.image_url, m.cached_quantity,
          m.product_type, m.product_category, m.weight_value, m.weight_unit_id, m.tracked)
        is distinct from (v.product_id, v.inventory_item_id, v.product_name, v.variant_name, v.sku, v.vendor, v.unit_price, v.unit_cost, v.image_url, v.cached_quantity,
          v.product_type, v.product_category, v.weight_value, v.weight_unit_id, v.tracked)`)
      .returning(['m.variant_id', sql<boolean>`v.old_cost is distinct from v.unit_cost`.as('cost_changed')]));
    changed += rows.length;
    for (const r of rows) if (r.cost_changed) costChanged.push(r.variant_id);
  }
  return { changed, costChanged };
}

/** Which of `variantIds` are the shop's platform-linked materials (archived ones left out). One statement. */
export async function platformMaterialIds(em: Em, shopId: string, variantIds: readonly string[]): Promise<Set<string>> {
  if (variantIds.length === 0) return new Set();
  const rows = await runSql(em, materialsSql.selectFrom('materials').select('variant_id')
    .where('shop_id', '=', shopId).where('origin', '=', sql.lit('platform')).where('archived_at', 'is', null)
    .where('variant_id', 'in', [...new Set(variantIds)]));
  return new Set(rows.map((r) => r.variant_id));
}
