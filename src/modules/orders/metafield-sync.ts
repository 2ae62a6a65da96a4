import type { ShopContext } from '../../kernel/shop-context.ts';
import { writesMaterialRequirementsMetafield } from '../shops/for-orders.ts';
import { buildBreakdowns } from './breakdown.service.ts';
import { materialRequirementsDocument } from './breakdown-document.ts';

export const MATERIAL_REQUIREMENTS_KEY = 'material_requirements_json';
/** Orders per batch: each batch is a fixed number of round trips, memory stays bounded. */
const BATCH = 250;

export interface MetafieldSyncResult { enabled: boolean; written: number; namespace: string; key: string }

/**
 * Writes the material-requirements document of the given orders (null = every order) to the order
 * metafield through the platform gateway, when the shop has opted in. The breakdown endpoint never
 * reads it; this is the platform-side copy for storefront and fulfilment apps.
 */
export async function syncMaterialRequirements(ctx: ShopContext, orderIds: readonly string[] | null): Promise<MetafieldSyncResult> {
  const namespace = ctx.config.metafieldNamespace;
  const result: MetafieldSyncResult = { enabled: false, written: 0, namespace, key: MATERIAL_REQUIREMENTS_KEY };
  if (!await writesMaterialRequirementsMetafield(ctx.em, ctx.shopId)) return result;
  result.enabled = true;
  const orders = await ctx.platform.getOrders(orderIds);
  for (let start = 0; start < orders.length; start += BATCH) {
    const breakdowns = await buildBreakdowns(ctx, orders.slice(start, start + BATCH), null);
    await ctx.platform.writeOrderMetafields(breakdowns.map((b) => ({
      orderId: b.orderId, namespace, key: MATERIAL_REQUIREMENTS_KEY, value: materialRequirementsDocument(b),
    })));
    result.written += breakdowns.length;
  }
  return result;
}
