import { exact } from '../../numbers/index.ts';
import { DomainError } from '../../domain-error.ts';
import type { ShopContext } from '../../shop-context.ts';
import type { MaterialOrigin } from './material-vocabulary.ts';

/** A raw material as every read returns it (decimals as exact strings). */
export interface MaterialView {
  variantId: string;
  origin: MaterialOrigin;
  productId: string;
  inventoryItemId: string;
  productName: string;
  variantName: string | null;
  sku: string | null;
  vendor: string | null;
  unit: string | null;
  unitCost: string | null;
  unitPrice: string | null;
  inventoryQuantity: string;
  specifications: string | null;
  imageUrl: string | null;
  isNonEssentialMaterial: boolean;
  weightValue: string | null;
  weightUnitId: string | null;
  productType: string | null;
  productCategory: string | null;
  /** Platform: the last known platform total. Virtual: the sum of its levels. */
  cachedQuantity: string;
}

export type MaterialRow = Record<string, any>;

/**
 * The columns of a material row. `inventory_quantity` follows docs/datasets.md: the cached platform total
 * for platform-linked materials, the sum of the service's own levels for virtual ones.
 */
export const MATERIAL_COLUMNS = `m.shop_id, m.variant_id, m.origin, m.product_id, m.inventory_item_id, m.product_name, m.variant_name, m.sku,
  m.vendor, m.unit, m.unit_cost, m.unit_price, m.specifications, m.image_url, m.is_non_essential_material, m.weight_value,
  m.weight_unit_id, m.product_type, m.product_category, m.cached_quantity,
  case when m.origin = 'platform' then coalesce(m.cached_quantity, 0)
       else coalesce((select sum(l.available) from material_levels l where l.shop_id = m.shop_id and l.variant_id = m.variant_id), 0)
  end as inventory_quantity`;

const dec = (v: string | number): string => exact(v).toFixed();
const decOrNull = (v: string | number | null | undefined): string | null => (v === null || v === undefined ? null : dec(v));

export function toMaterialView(r: MaterialRow): MaterialView {
  return {
    variantId: r.variant_id, origin: r.origin, productId: r.product_id, inventoryItemId: r.inventory_item_id,
    productName: r.product_name, variantName: r.variant_name, sku: r.sku, vendor: r.vendor, unit: r.unit,
    unitCost: decOrNull(r.unit_cost), unitPrice: decOrNull(r.unit_price), inventoryQuantity: dec(r.inventory_quantity),
    specifications: r.specifications, imageUrl: r.image_url, isNonEssentialMaterial: Boolean(r.is_non_essential_material),
    weightValue: decOrNull(r.weight_value), weightUnitId: r.weight_unit_id, productType: r.product_type,
    productCategory: r.product_category, cachedQuantity: dec(r.inventory_quantity),
  };
}

/**
 * The material row, or 404 (an unknown id and another shop's id look the same). One query. Inside
 * a transaction, `lock` row-locks it until the transaction ends: `share` for writers of its levels,
 * `update` for a writer of its fields (never `for update`, so key-share locks are not blocked).
 */
export async function findMaterialRow(ctx: ShopContext, variantId: string, extraColumns = '', lock?: 'share' | 'update'): Promise<MaterialRow> {
  const locking = lock === undefined ? '' : lock === 'share' ? ' for share of m' : ' for no key update of m';
  const [row] = await ctx.em.execute<MaterialRow[]>(
    `select ${MATERIAL_COLUMNS}${extraColumns} from materials m where m.shop_id = ? and m.variant_id = ?${locking}`,
    [ctx.shopId, variantId],
  );
  if (!row) throw DomainError.notFound('raw material', variantId);
  return row;
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
  const rows = await ctx.em.execute<{ variant_id: string; name: string; unit: string | null; unit_cost: string | null; non_essential: boolean }[]>(
    `select variant_id, concat_ws(' - ', product_name, variant_name) as name, unit, unit_cost, is_non_essential_material as non_essential
       from materials where shop_id = ? and variant_id in (?)`,
    [ctx.shopId, [...variantIds]],
  );
  return new Map(rows.map((r) => [r.variant_id, { variantId: r.variant_id, name: r.name, unit: r.unit, unitCost: r.unit_cost, nonEssential: r.non_essential }]));
}
