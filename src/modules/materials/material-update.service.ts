import { Decimal } from 'decimal.js';
import { DomainError, type FieldError } from '../../domain-error.ts';
import { inShopTransaction, type ShopContext } from '../../shop-context.ts';
import { refreshCostRollup } from '../recipes/cost-rollup.repository.ts';
import { applyInventoryUpdates } from './inventory-batch.service.ts';
import { findMaterialRow, readOnlyError, toMaterialView, type MaterialRow, type MaterialView } from './material-view.ts';
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

/** Each field sent as a column assignment, or the errors of those that are not acceptable. */
function columnChanges(patch: MaterialPatch): { sets: string[]; args: unknown[]; errors: FieldError[] } {
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
  return { sets, args, errors };
}

/**
 * Changes the fields sent on a virtual material and returns the full row, all in one transaction:
 * a failure anywhere (a field, the level, the cost roll-up) leaves nothing written. An unknown id is
 * 404; a platform-linked material is read-only in API v1 (400 before anything changes).
 * `inventoryQuantity` of a virtual material is the sum of its levels, so it can be set only when the
 * material is stocked at exactly one location: that level becomes the value, through the stock
 * ledger (so it is recorded in the adjustment history); otherwise 400 pointing at PATCH …/inventory
 * (unless the value equals the current sum, which changes nothing).
 */
export async function updateMaterial(ctx: ShopContext, variantId: string, patch: MaterialPatch): Promise<MaterialView> {
  const { sets, args, errors } = columnChanges(patch);
  return inShopTransaction(ctx, async (tx) => {
    // Update-locked: the level count below holds until commit (an inventory batch share-locks it).
    const current = await findMaterialRow(tx, variantId, `,
      (select coalesce(json_agg(l.location_id), '[]'::json) from material_levels l where l.shop_id = m.shop_id and l.variant_id = m.variant_id) as level_locations,
      (select allow_negative_inventory from shops s where s.id = m.shop_id) as allow_negative_inventory`, 'update');
    if (current.origin === 'platform') throw readOnlyError(variantId);
    if (errors.length > 0) throw DomainError.invalidFields(errors);
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
      await tx.em.execute(`update materials set ${sets.join(', ')}, updated_at = now() where shop_id = ? and variant_id = ?`, [...args, tx.shopId, variantId], 'run');
      // The stored BOM cost roll-up changes with the unit cost.
      if (patch.unitCost !== undefined) await refreshCostRollup(tx, { materials: [variantId] });
    }
    if (levelLocation !== undefined) {
      await applyInventoryUpdates(tx, variantId, [{ locationId: levelLocation, absolute: quantity! }], current.allow_negative_inventory === true);
    }
    return toMaterialView(await findMaterialRow(tx, variantId) as MaterialRow);
  });
}
