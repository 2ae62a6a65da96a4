import { randomUUID } from 'node:crypto';
import { sql, type Insertable } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { recordMaterialUpdated } from './material-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { InputErrors } from '../boms/catalog-input.ts';
import { refuseArchiveWhileUsed } from '../boms/recipe-references.ts';
import type { MaterialPatch } from './material-update.service.ts';
import { planningColumns, type MaterialPlanningInput } from './material-planning.service.ts';
import { findMaterialRow, readOnlyError, toMaterialView, type MaterialView } from './material-view.ts';
import { materialsSql, type MaterialsTables } from './tables.ts';

// Create and archive virtual materials (edits go through updateMaterial, the PATCH's service).
// Platform-linked materials mirror the platform and are read-only here: they are created and
// retired on the platform.

/** The fields of a new virtual material (those of an edit but the quantity); only productName is required. */
export type NewMaterialInput = Omit<MaterialPatch, 'inventoryQuantity'> & MaterialPlanningInput;

const TEXT_FIELDS = [
  ['variantName', 'variant_name'], ['sku', 'sku'], ['unit', 'unit'], ['vendor', 'vendor'], ['specifications', 'specifications'],
  ['imageUrl', 'image_url'], ['weightUnitId', 'weight_unit_id'], ['productType', 'product_type'], ['productCategory', 'product_category'],
] as const;
const DECIMAL_FIELDS = [['unitCost', 'unit_cost'], ['unitPrice', 'unit_price'], ['weightValue', 'weight_value']] as const;

/**
 * Creates a virtual material (`VMAT-VAR-<uuid>`, with its product and inventory-item ids of the same
 * uuid) with no stock: levels are set through the inventory adjustment, which records them. Nothing
 * uses it yet, so no cost changes. Three statements (insert, its event, read back) in one transaction.
 */
export async function createVirtualMaterial(ctx: ShopContext, input: NewMaterialInput): Promise<MaterialView> {
  const errors = new InputErrors();
  if (input.productName === null || input.productName === undefined) errors.add('productName', 'is required');
  else errors.text('productName', input.productName, { required: true });
  const fields: Record<string, unknown> = {};
  for (const [field, column] of TEXT_FIELDS) fields[column] = errors.text(field, input[field]) ?? null;
  for (const [field, column] of DECIMAL_FIELDS) {
    const value = input[field];
    fields[column] = typeof value === 'string' ? errors.decimal(field, value, 'nonNegative') : null;
  }
  const planning = planningColumns(errors, { leadTimeDays: input.leadTimeDays, minimumOrderQuantity: input.minimumOrderQuantity, orderMultiple: input.orderMultiple });
  errors.throwIfAny();
  const uuid = randomUUID();
  const variantId = `VMAT-VAR-${uuid}`;
  return inShopTransaction(ctx, async (tx) => {
    await Promise.all([
      runSql(tx.em, materialsSql.insertInto('materials').values({
        shop_id: tx.shopId, variant_id: variantId, origin: sql.lit('virtual'), product_id: `VMAT-PROD-${uuid}`, inventory_item_id: `VMAT-INV-${uuid}`,
        updated_at: sql<Date>`now()`, product_name: input.productName!, is_non_essential_material: input.isNonEssentialMaterial ?? false,
        ...(fields as Partial<Insertable<MaterialsTables['materials']>>), ...planning,
      })),
      recordMaterialUpdated(tx, variantId, { change: 'created' }),
    ]);
    return toMaterialView(await findMaterialRow(tx, variantId));
  });
}

/**
 * Archives or restores a virtual material (unknown: NOT_FOUND; platform-linked: INVALID_INPUT, read-only). One still
 * reached by an active BOM cannot be archived (CONFLICT naming the BOMs); its stock and existing
 * recipe lines are untouched. Returns whether it is now archived.
 */
export async function setMaterialArchived(ctx: ShopContext, variantId: string, archived: boolean): Promise<boolean> {
  return inShopTransaction(ctx, async (tx) => {
    const [row] = await runSql(tx.em, materialsSql.selectFrom('materials')
      .select(['origin', sql<boolean>`archived_at is not null`.as('archived')])
      .where('shop_id', '=', tx.shopId).where('variant_id', '=', variantId).forUpdate());
    if (!row) throw DomainError.notFound('raw material', variantId);
    if (row.origin === 'platform') throw readOnlyError(variantId);
    if (Boolean(row.archived) === archived) return archived;
    if (archived) await refuseArchiveWhileUsed(tx, 'raw', variantId, 'raw material');
    await Promise.all([
      runSql(tx.em, materialsSql.updateTable('materials').set({ archived_at: archived ? new Date() : null, updated_at: sql<Date>`now()` })
        .where('shop_id', '=', tx.shopId).where('variant_id', '=', variantId)),
      recordMaterialUpdated(tx, variantId, { change: archived ? 'archived' : 'restored' }),
    ]);
    return archived;
  });
}
