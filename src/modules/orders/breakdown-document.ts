import { toDecimalString } from '../../kernel/decimals.ts';
import type { Exact } from '../../kernel/numbers/index.ts';
import type { OrderBreakdown } from './breakdown.service.ts';

const num = (d: Exact | null): number | null => (d === null ? null : Number(toDecimalString(d)));

/**
 * The `boms` + `totalMaterials` document, in the same shape as the REST breakdown's parts: the
 * value of the order metafield `<namespace>.material_requirements_json`.
 */
export function materialRequirementsDocument(b: OrderBreakdown) {
  return {
    boms: b.boms.map((bom) => ({
      bomId: bom.bomId, bomName: bom.bomName, bomImageUrl: bom.bomImageUrl, bomProductId: bom.bomProductId, bomVariantId: bom.bomVariantId,
      bomSku: bom.bomSku, orderQuantity: num(bom.orderQuantity),
      materials: bom.materials.map((m) => ({
        productId: m.productId, variantId: m.variantId, sku: m.sku, title: m.title, productName: m.productName, variantName: m.variantName,
        specifications: m.specifications, notes: m.notes, quantity: num(m.quantity),
      })),
    })),
    totalMaterials: b.totalMaterials.map((t) => ({
      variantId: t.variantId, productId: t.productId, sku: t.sku, title: t.title, productName: t.productName, variantName: t.variantName,
      specifications: t.specifications, notes: t.notes, totalQuantity: num(t.totalQuantity), imageUrl: t.imageUrl, isVirtual: t.isVirtual,
      unitCost: num(t.unitCost),
    })),
  };
}
