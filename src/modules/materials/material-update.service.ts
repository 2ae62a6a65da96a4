import { Decimal } from 'decimal.js';
import { DomainError, type FieldError } from '../../domain-error.ts';
import { inShopTransaction, type ShopContext } from '../../shop-context.ts';
import { refreshCostRollup } from '../recipes/cost-rollup.repository.ts';
import { adjustMaterialInventory } from './inventory-batch.service.ts';
import { findMaterialRow, isPlatformVariantId, readOnlyError, toMaterialView, type MaterialRow, type MaterialView } from './material-view.ts';
import { parseDecimalInput } from '../../decimals.ts';

/** The editable fields of a virtual material; absent = unchanged, null = cleared (where allowed). */
export interface MaterialPatch {
  productName?: string | null;
  variantName?: string | null;
  sku?: string | null;
  unit?: string | null;
  vendor?: string | null;
  specifications?: string | null;
  imageUrl?: string | null;
  weightUnitId?: string | null;
  productType?: string | null;
  productCategory?: string | null;
  unitCost?: string | null;
  unitPrice?: string | null;
  weightValue?: string | null;
  inventoryQuantity?: string | null;
  isNonEssentialMaterial?: boolean | null;
}

const TEXT_COLUMNS: Record<string, string> = {
  productName: 'product_name', variantName: 'variant_name', sku: 'sku', unit: 'unit', vendor: 'vendor',
  specifications: 'specifications', imageUrl: 'image_url', weightUnitId: 'weight_unit_id', productType: 'product_type',
  productCategory: 'product_category',
};
const DECIMAL_COLUMNS: Record<string, string> = { unitCost: 'unit_cost', unitPrice: 'unit_price', weightValue: 'weight_value' };
const NOT_NULL = new Set(['productName', 'isNonEssentialMaterial', 'inventoryQuantity']);

function nonNegativeDecimal(field: string, value: string, errors: FieldError[]): string | null {
  return parseDecimalInput(value, field, errors, { nonNegative: true })?.toFixed() ?? null;
}

/**
 * Changes the fields sent on a virtual material and returns the full row. Platform-linked materials
 * are read-only in API v1 (400 before anything changes). `inventoryQuantity` of a virtual material
 * is the sum of its levels, so it can be set only when the material is stocked at exactly one
 * location: that level becomes the value, through the inventory batch (so it is recorded in the
 * adjustment history); otherwise 400 pointing at PATCH …/inventory.
 */
export async function updateMaterial(ctx: ShopContext, variantId: string, patch: MaterialPatch): Promise<MaterialView> {
  if (isPlatformVariantId(variantId)) throw readOnlyError(variantId);
  const errors: FieldError[] = [];
  const sets: string[] = [];
  const args: unknown[] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null && NOT_NULL.has(field)) {
      errors.push({ field, message: 'must not be null' });
      continue;
    }
    if (field in TEXT_COLUMNS) {
      if (field === 'productName' && (value as string).trim() === '') errors.push({ field, message: 'must not be empty' });
      sets.push(`${TEXT_COLUMNS[field]} = ?`);
      args.push(value);
    } else if (field in DECIMAL_COLUMNS) {
      sets.push(`${DECIMAL_COLUMNS[field]} = ?`);
      args.push(value === null ? null : nonNegativeDecimal(field, value as string, errors));
    } else if (field === 'isNonEssentialMaterial') {
      sets.push('is_non_essential_material = ?');
      args.push(value);
    } else if (field === 'inventoryQuantity') {
      nonNegativeDecimal(field, value as string, errors);
    }
  }
  if (errors.length > 0) throw DomainError.invalidFields(errors);

  const current = await findMaterialRow(ctx, variantId, `,
    (select coalesce(json_agg(l.location_id), '[]'::json) from material_levels l where l.shop_id = m.shop_id and l.variant_id = m.variant_id) as level_locations`);
  if (current.origin === 'platform') throw readOnlyError(variantId);
  const quantity = patch.inventoryQuantity;
  let levelLocation: string | undefined;
  if (quantity !== undefined && quantity !== null) {
    const levels = (typeof current.level_locations === 'string' ? JSON.parse(current.level_locations) : current.level_locations) as string[];
    if (levels.length !== 1 && !new Decimal(quantity).eq(current.inventory_quantity)) {
      throw DomainError.invalid('inventoryQuantity',
        `is the sum of the material's per-location levels (${levels.length} locations); change the levels with PATCH /raw-materials/${variantId}/inventory`);
    }
    if (levels.length === 1) levelLocation = levels[0];
  }
  if (sets.length === 0 && levelLocation === undefined) return toMaterialView(current);
  if (sets.length > 0) {
    await inShopTransaction(ctx, async (tx) => {
      await tx.em.execute(`update materials set ${sets.join(', ')}, updated_at = now() where shop_id = ? and variant_id = ?`, [...args, tx.shopId, variantId], 'run');
      // The stored BOM cost roll-up changes with the unit cost, in the same transaction.
      if (patch.unitCost !== undefined) await refreshCostRollup(tx, { materials: [variantId] });
    });
  }
  if (levelLocation !== undefined) {
    await adjustMaterialInventory(ctx, variantId, [{ locationId: levelLocation, absolute: quantity! }]);
  }
  return toMaterialView(await findMaterialRow(ctx, variantId) as MaterialRow);
}
