import { DomainError } from '../../kernel/domain-error.ts';
import { exact, type Exact } from '../../kernel/numbers/index.ts';
import type { PlatformOrderInfo } from '../../kernel/platform-port/gateway.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { materialCatalogue } from '../materials/material-view.ts';
import { bomsOfVariants } from '../boms/for-orders.ts';
import { leafExpander, loadRecipeForest, type BillKey } from '../boms/engine/index.ts';
import { parseOrderId } from './order-ids.ts';
import { TimeSlice, yieldToLoop } from '../../kernel/cooperative.ts';

export interface BreakdownMaterial {
  productId: string | null; variantId: string; sku: string | null; title: string; productName: string | null;
  variantName: string | null; specifications: string | null; notes: string | null; quantity: Exact;
}
export interface BreakdownBom {
  bomId: string; bomName: string; bomImageUrl: string | null; bomProductId: string | null; bomVariantId: string;
  bomSku: string | null; orderQuantity: Exact; materials: BreakdownMaterial[];
}
export interface BreakdownTotal extends Omit<BreakdownMaterial, 'quantity'> {
  totalQuantity: Exact; imageUrl: string | null; isVirtual: boolean; unitCost: Exact | null;
}
export interface BreakdownOtherItem { variantId: string | null; productId: string | null; sku: string | null; title: string; quantity: Exact }
export interface OrderBreakdown {
  orderId: string; orderName: string;
  /** The order's note (the platform's free text on the order; null: none), also every material's `notes`. */
  note: string | null;
  generatedAt: Date; boms: BreakdownBom[]; totalMaterials: BreakdownTotal[]; otherItems: BreakdownOtherItem[];
}

type CatalogueMaterial = Awaited<ReturnType<typeof materialCatalogue>>[number];

/** A leaf material's fields, the same in every order and line (notes and quantities are the order's). */
type Leaf = Omit<BreakdownTotal, 'notes' | 'totalQuantity'>;

function materialTitle(m: CatalogueMaterial | undefined, variantId: string): string {
  if (!m?.product_name) return variantId;
  return m.variant_name && m.variant_name !== 'Default Title' ? `${m.product_name} - ${m.variant_name}` : m.product_name;
}

/**
 * What the warehouse must pack for each order: every BOM line's recipe expanded to leaf raw
 * materials (waste included, the location's rules applied when a location is given) multiplied
 * by the ordered quantity, the same totals de-duplicated by material, and the lines that are not
 * BOM products. A fixed number of SQL round trips for any number of orders and lines.
 */
export async function buildBreakdowns(ctx: ShopContext, orders: readonly PlatformOrderInfo[], locationId: string | null): Promise<OrderBreakdown[]> {
  const lineVariants = [...new Set(orders.flatMap((o) => o.lineItems.map((l) => l.variantId).filter((v): v is string => v !== null)))];
  const boms = await bomsOfVariants(ctx, lineVariants);
  const bomByVariant = new Map(boms.map((b) => [b.variant_id, b]));
  const bomKeys: BillKey[] = boms.map((b) => ({ ownerType: 'bom', ownerId: b.bom_id }));
  const [forest, finishedGoods] = await Promise.all([
    loadRecipeForest(ctx, bomKeys),
    ctx.platform.getVariants(boms.map((b) => b.variant_id)),
  ]);
  // CPU work from here on (expansion, then each order): other requests get turns in between (src/kernel/cooperative.ts).
  await yieldToLoop();
  const leavesOf = leafExpander(forest, locationId); // one memo for every BOM: shared assemblies are expanded once
  const perUnit = new Map(boms.map((b) => [b.bom_id, leavesOf({ ownerType: 'bom', ownerId: b.bom_id })]));
  const leafIds = [...new Set([...perUnit.values()].flatMap((m) => [...m.keys()]))];
  const materials = await materialCatalogue(ctx, leafIds);
  const materialById = new Map(materials.map((m) => [m.variant_id, m]));
  const goodById = new Map(finishedGoods.map((v) => [v.variantId, v]));
  const generatedAt = new Date();

  // What does not depend on the order, computed once: each material's identity and total fields,
  // and each BOM's rows (material, need per unit at the location), however many lines name it.
  const leafOf = new Map<string, Leaf>();
  const leaf = (variantId: string): Leaf => {
    let known = leafOf.get(variantId);
    if (!known) {
      const m = materialById.get(variantId);
      known = {
        productId: m?.product_id ?? null, variantId, sku: m?.sku ?? null, title: materialTitle(m, variantId), productName: m?.product_name ?? null,
        variantName: m?.variant_name ?? null, specifications: m?.specifications ?? null,
        imageUrl: m?.image_url ?? null, isVirtual: m?.origin === 'virtual', unitCost: m?.unit_cost == null ? null : exact(m.unit_cost),
      };
      leafOf.set(variantId, known);
    }
    return known;
  };
  const rowsOf = new Map<string, { leaf: Leaf; need: Exact }[]>();
  const bomRows = (bomId: string) => {
    let rows = rowsOf.get(bomId);
    if (!rows) {
      rows = [...(perUnit.get(bomId) ?? new Map<string, Exact>())].map(([variantId, need]) => ({ leaf: leaf(variantId), need }));
      rowsOf.set(bomId, rows);
    }
    return rows;
  };

  const breakdownOf = (order: PlatformOrderInfo): OrderBreakdown => {
    const result: OrderBreakdown = { orderId: order.orderId, orderName: order.name, note: order.note, generatedAt, boms: [], totalMaterials: [], otherItems: [] };
    // The order's note rides on each material: what the packer reads beside what to pack (REST has no order-level field for it).
    const notes = order.note ?? null;
    const totals = new Map<string, BreakdownTotal>();
    for (const line of order.lineItems) {
      const bom = line.variantId ? bomByVariant.get(line.variantId) : undefined;
      const orderQuantity = exact(line.quantity);
      if (!bom) {
        result.otherItems.push({ variantId: line.variantId, productId: line.productId, sku: line.sku, title: line.title, quantity: orderQuantity });
        continue;
      }
      const good = goodById.get(bom.variant_id);
      const lineMaterials: BreakdownMaterial[] = [];
      for (const { leaf: l, need } of bomRows(bom.bom_id)) {
        const quantity = need.times(orderQuantity);
        lineMaterials.push({
          productId: l.productId, variantId: l.variantId, sku: l.sku, title: l.title, productName: l.productName, variantName: l.variantName,
          specifications: l.specifications, notes, quantity,
        });
        const total = totals.get(l.variantId);
        if (total) total.totalQuantity = total.totalQuantity.plus(quantity);
        else {
          totals.set(l.variantId, {
            productId: l.productId, variantId: l.variantId, sku: l.sku, title: l.title, productName: l.productName, variantName: l.variantName,
            specifications: l.specifications, notes, totalQuantity: quantity, imageUrl: l.imageUrl, isVirtual: l.isVirtual, unitCost: l.unitCost,
          });
        }
      }
      result.boms.push({
        bomId: bom.bom_id, bomName: bom.name, bomImageUrl: good?.imageUrl ?? null, bomProductId: good?.productId ?? null,
        bomVariantId: bom.variant_id, bomSku: good?.sku ?? null, orderQuantity, materials: lineMaterials,
      });
    }
    result.totalMaterials = [...totals.values()];
    return result;
  };
  const slice = new TimeSlice();
  const results: OrderBreakdown[] = [];
  for (const order of orders) {
    await slice.pause();
    results.push(breakdownOf(order));
  }
  return results;
}

async function assertLocation(ctx: ShopContext, locationId: string | null): Promise<void> {
  if (locationId === null) return;
  const known = await ctx.platform.listLocations();
  if (!known.some((l) => l.locationId === locationId)) throw DomainError.notFound('location', locationId);
}

/** One order by bare or global id; 404 when it does not resolve. */
export async function orderBreakdown(ctx: ShopContext, rawId: string, locationId: string | null): Promise<OrderBreakdown> {
  const orderId = parseOrderId(rawId, ctx.config.platformName);
  if (!orderId) throw DomainError.notFound('order', rawId);
  await assertLocation(ctx, locationId);
  const [order] = await ctx.platform.getOrders([orderId]);
  if (!order) throw DomainError.notFound('order', rawId);
  return (await buildBreakdowns(ctx, [order], locationId))[0]!;
}

export const MAX_BATCH_IDS = 50;

/** Many orders: partial success, ids that do not resolve listed in `notFound` as sent. */
export async function orderBreakdowns(ctx: ShopContext, rawIds: readonly string[], locationId: string | null) {
  if (rawIds.length < 1 || rawIds.length > MAX_BATCH_IDS) {
    throw DomainError.invalid('ids', `must name between 1 and ${MAX_BATCH_IDS} orders (got ${rawIds.length})`);
  }
  await assertLocation(ctx, locationId);
  const parsed = rawIds.map((raw) => ({ raw, orderId: parseOrderId(raw, ctx.config.platformName) }));
  const wanted = [...new Set(parsed.map((p) => p.orderId).filter((id): id is string => id !== null))];
  const orders = wanted.length ? await ctx.platform.getOrders(wanted) : [];
  const found = new Map(orders.map((o) => [o.orderId, o]));
  const notFound = [...new Set(parsed.filter((p) => !p.orderId || !found.has(p.orderId)).map((p) => p.raw))];
  const inRequestOrder = wanted.filter((id) => found.has(id)).map((id) => found.get(id)!);
  return { items: await buildBreakdowns(ctx, inRequestOrder, locationId), notFound };
}
