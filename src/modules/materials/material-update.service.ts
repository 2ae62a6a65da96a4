import { Decimal } from 'decimal.js';
import { sql, type Updateable } from 'kysely';
import { DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { recordMaterialUpdated } from './material-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { refreshCostRollup } from '../boms/cost-rollup.repository.ts';
import { applyInventoryUpdates } from './inventory-batch.service.ts';
import { runSql } from '../../db/typed-sql.ts';
import { shopAllowsNegativeInventory } from '../shops/for-materials.ts';
import { virtualLevelLocations } from '../stock/for-materials.ts';
import { materialsSql, type MaterialsTables } from './tables.ts';
import { findMaterialRow, foundOr404, materialById, readOnlyError, toMaterialView, type MaterialView } from './material-view.ts';
import { parseDecimalInput } from '../../kernel/decimals.ts';

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

type MaterialChanges = Updateable<MaterialsTables['materials']>;

const TEXT_COLUMNS = {
  productName: 'product_name', variantName: 'variant_name', sku: 'sku', unit: 'unit', vendor: 'vendor',
  specifications: 'specifications', imageUrl: 'image_url', weightUnitId: 'weight_unit_id', productType: 'product_type',
  productCategory: 'product_category',
} as const satisfies Record<string, keyof MaterialChanges>;
const DECIMAL_COLUMNS = { unitCost: 'unit_cost', unitPrice: 'unit_price', weightValue: 'weight_value' } as const satisfies Record<string, keyof MaterialChanges>;
const NOT_NULL = new Set(['productName', 'isNonEssentialMaterial', 'inventoryQuantity']);

function nonNegativeDecimal(field: string, value: string, errors: FieldError[]): string | null {
  return parseDecimalInput(value, field, errors, { nonNegative: true })?.toFixed() ?? null;
}

/** Each field sent as a column assignment, or the errors of those that are not acceptable. */
function columnChanges(patch: MaterialPatch): { changes: MaterialChanges; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null && NOT_NULL.has(field)) {
      errors.push({ field, message: 'must not be null' });
      continue;
    }
    if (field in TEXT_COLUMNS) {
      if (field === 'productName' && (value as string).trim() === '') errors.push({ field, message: 'must not be empty' });
      changes[TEXT_COLUMNS[field as keyof typeof TEXT_COLUMNS]] = value;
    } else if (field in DECIMAL_COLUMNS) {
      changes[DECIMAL_COLUMNS[field as keyof typeof DECIMAL_COLUMNS]] = value === null ? null : nonNegativeDecimal(field, value as string, errors);
    } else if (field === 'isNonEssentialMaterial') {
      changes.is_non_essential_material = value;
    } else if (field === 'inventoryQuantity') {
      nonNegativeDecimal(field, value as string, errors);
    }
  }
  return { changes: changes as MaterialChanges, errors };
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
  const { changes, errors } = columnChanges(patch);
  const changed = Object.keys(changes).length > 0;
  return inShopTransaction(ctx, async (tx) => {
    // Update-locked: the level count below holds until commit (an inventory batch share-locks it).
    const [row] = await runSql(tx.em, materialById(tx.shopId, variantId)
      .select((eb) => [
        virtualLevelLocations(eb.ref('m.shop_id'), eb.ref('m.variant_id')).as('levelLocations'),
        shopAllowsNegativeInventory(eb.ref('m.shop_id')).as('allowNegative'),
      ])
      .forNoKeyUpdate('m'));
    const current = foundOr404(row, variantId);
    if (current.origin === 'platform') throw readOnlyError(variantId);
    if (errors.length > 0) throw DomainError.invalidFields(errors);
    const quantity = patch.inventoryQuantity;
    let levelLocation: string | undefined;
    if (quantity !== undefined && quantity !== null) {
      const levels = (typeof current.levelLocations === 'string' ? JSON.parse(current.levelLocations) : current.levelLocations) as string[];
      if (levels.length !== 1 && !new Decimal(quantity).eq(current.inventoryQuantity)) {
        throw DomainError.invalid('inventoryQuantity',
          `is the sum of the material's per-location levels (${levels.length} locations); change the levels with PATCH /raw-materials/${variantId}/inventory`);
      }
      if (levels.length === 1) levelLocation = levels[0];
    }
    if (!changed && levelLocation === undefined) return toMaterialView(current);
    if (changed) {
      await runSql(tx.em, materialsSql.updateTable('materials').set({ ...changes, updated_at: sql<Date>`now()` })
        .where('shop_id', '=', tx.shopId).where('variant_id', '=', variantId));
      // The stored BOM cost roll-up changes with the unit cost.
      if (patch.unitCost !== undefined) await refreshCostRollup(tx, { materials: [variantId] });
      await recordMaterialUpdated(tx, variantId, { change: 'updated', fields: Object.keys(patch).filter((f) => f !== 'inventoryQuantity' && patch[f as keyof MaterialPatch] !== undefined) });
    }
    if (levelLocation !== undefined) {
      await applyInventoryUpdates(tx, variantId, [{ locationId: levelLocation, absolute: quantity! }], current.allowNegative === true);
    }
    return toMaterialView(await findMaterialRow(tx, variantId));
  });
}
