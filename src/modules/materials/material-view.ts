import { sql, type Expression, type ExpressionBuilder } from 'kysely';
import { exact } from '../../kernel/numbers/index.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { virtualLevelTotal } from '../stock/for-materials.ts';
import { materialsSql, type MaterialsTables } from './tables.ts';

/** A query source over `materials` aliased `m` (the table itself, or a CTE or derived table of its rows). */
type OverMaterials = ExpressionBuilder<{ m: MaterialsTables['materials'] }, 'm'>;
const over = (eb: ExpressionBuilder<any, any>) => eb as unknown as OverMaterials;

/**
 * A material's inventory quantity (docs/datasets.md), the one place it is derived: the cached
 * platform total for platform-linked materials, the sum of the service's own levels for virtual
 * ones. `levelTotal` is that sum for the row `m` (a correlated sum, or a pre-aggregated column).
 */
export function inventoryQuantity(levelTotal: Expression<string | null>) {
  return sql<string>`case when m.origin = 'platform' then coalesce(m.cached_quantity, 0) else coalesce(${levelTotal}, 0) end`;
}

/** The columns of a material as every read returns it, over a source aliased `m`. */
export function materialColumns(source: ExpressionBuilder<any, any>) {
  const eb = over(source);
  return [
    eb.ref('m.variant_id').as('variantId'), eb.ref('m.origin').as('origin'), eb.ref('m.product_id').as('productId'),
    eb.ref('m.inventory_item_id').as('inventoryItemId'), eb.ref('m.product_name').as('productName'), eb.ref('m.variant_name').as('variantName'),
    eb.ref('m.sku').as('sku'), eb.ref('m.vendor').as('vendor'), eb.ref('m.unit').as('unit'), eb.ref('m.unit_cost').as('unitCost'),
    eb.ref('m.unit_price').as('unitPrice'),
    inventoryQuantity(virtualLevelTotal(eb.ref('m.shop_id'), eb.ref('m.variant_id'))).as('inventoryQuantity'),
    eb.ref('m.specifications').as('specifications'), eb.ref('m.image_url').as('imageUrl'),
    eb.ref('m.is_non_essential_material').as('isNonEssentialMaterial'), eb.ref('m.weight_value').as('weightValue'),
    eb.ref('m.weight_unit_id').as('weightUnitId'), eb.ref('m.product_type').as('productType'), eb.ref('m.product_category').as('productCategory'),
    eb.ref('m.lead_time_days').as('leadTimeDays'), eb.ref('m.minimum_order_quantity').as('minimumOrderQuantity'), eb.ref('m.order_multiple').as('orderMultiple'),
  ] as const;
}

/** One material of the shop by id, with `materialColumns` (callers may add columns and a lock). */
export function materialById(shopId: string, variantId: string) {
  return materialsSql.selectFrom('materials as m').select(materialColumns).where('m.shop_id', '=', shopId).where('m.variant_id', '=', variantId);
}

/** A material row as `materialColumns` reads it (decimals as the database prints them). */
export type MaterialRow = Awaited<ReturnType<typeof findMaterialRow>>;

const dec = (v: string | number): string => exact(v).toFixed();
const decOrNull = (v: string | number | null): string | null => (v === null ? null : dec(v));

/**
 * A raw material as every read returns it: the row's decimals as exact strings, and `cachedQuantity`
 * (the inventory-quantity row figure the inventory views repeat). Other columns of the row are left out.
 */
export function toMaterialView(r: MaterialRow) {
  return {
    variantId: r.variantId, origin: r.origin, productId: r.productId, inventoryItemId: r.inventoryItemId, productName: r.productName,
    variantName: r.variantName, sku: r.sku, vendor: r.vendor, unit: r.unit, unitCost: decOrNull(r.unitCost), unitPrice: decOrNull(r.unitPrice),
    inventoryQuantity: dec(r.inventoryQuantity), specifications: r.specifications, imageUrl: r.imageUrl,
    isNonEssentialMaterial: Boolean(r.isNonEssentialMaterial), weightValue: decOrNull(r.weightValue), weightUnitId: r.weightUnitId,
    productType: r.productType, productCategory: r.productCategory,
    leadTimeDays: Number(r.leadTimeDays ?? 0), minimumOrderQuantity: dec(r.minimumOrderQuantity ?? 0), orderMultiple: decOrNull(r.orderMultiple),
    /** Platform: the last known platform total. Virtual: the sum of its levels. */
    cachedQuantity: dec(r.inventoryQuantity),
  };
}

/** A raw material as every read returns it (decimals as exact strings). */
export type MaterialView = ReturnType<typeof toMaterialView>;

/** The row of a read, or 404 (an unknown id and another shop's id look the same). */
export function foundOr404<T>(row: T | undefined, variantId: string): T {
  if (!row) throw DomainError.notFound('raw material', variantId);
  return row;
}

/** The material row, or 404 (an unknown id and another shop's id look the same). One query. */
export async function findMaterialRow(ctx: ShopContext, variantId: string) {
  const [row] = await runSql(ctx.em, materialById(ctx.shopId, variantId));
  return foundOr404(row, variantId);
}

/**
 * Material PATCH routes take virtual materials only (docs/contract.md). Raised for a material that
 * exists and is platform-linked: an unknown id, numeric or not, is 404.
 */
export function readOnlyError(variantId: string): DomainError {
  return new DomainError(
    'INVALID_INPUT',
    `raw material ${variantId} is platform-linked: its fields and levels are read-only in API v1 (they are mirrored from the platform); only virtual (VMAT-…) materials can be changed`,
    { errors: [{ field: 'variantId', message: 'platform-linked materials are read-only in API v1' }] },
  );
}

export interface MaterialSummary { variantId: string; name: string; unit: string | null; unitCost: string | null; nonEssential: boolean }

/** Name (`product - variant`), unit, unit cost and the non-essential flag of materials, in one query. */
export async function materialSummaries(ctx: ShopContext, variantIds: readonly string[]): Promise<Map<string, MaterialSummary>> {
  if (variantIds.length === 0) return new Map();
  const rows = await runSql(ctx.em, materialsSql.selectFrom('materials')
    .select(['variant_id as variantId', sql<string>`concat_ws(' - ', product_name, variant_name)`.as('name'), 'unit', 'unit_cost as unitCost',
      'is_non_essential_material as nonEssential'])
    .where('shop_id', '=', ctx.shopId).where('variant_id', 'in', variantIds));
  return new Map(rows.map((r) => [r.variantId, r]));
}

/** The catalogue fields of materials an order breakdown shows, in one query. */
export async function materialCatalogue(ctx: ShopContext, variantIds: readonly string[]) {
  if (variantIds.length === 0) return [];
  return runSql(ctx.em, materialsSql.selectFrom('materials')
    .select(['variant_id', 'origin', 'product_id', 'sku', 'product_name', 'variant_name', 'specifications', 'image_url', 'unit_cost'])
    .where('shop_id', '=', ctx.shopId).where('variant_id', 'in', variantIds));
}
