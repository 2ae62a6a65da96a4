import { randomUUID } from 'node:crypto';
import { shopContextFor, type ContextDeps } from '../kernel/shop-context.ts';
import { syncMaterialRequirements, type MetafieldSyncResult } from '../modules/orders/metafield-sync.ts';
import type { DatasetFile } from './dataset-file.ts';
import { analyzeTables } from '../db/analyze.ts';
import { loadDataset, type LoadReport } from './load.ts';
import type { Dataset } from './types.ts';

/**
 * `bomcore load`: replace the shop's data, then — the order lines having been (re)loaded — write the
 * material-requirements metafield of every order when the shop has opted in. Every table written
 * is analyzed afterwards, so the first requests are planned on real statistics.
 */
export async function importDataset(
  deps: ContextDeps,
  dataset: Dataset | DatasetFile,
  onProgress: (message: string) => void = () => {},
): Promise<LoadReport & { metafields: MetafieldSyncResult }> {
  const report = await loadDataset(deps.orm.em, dataset, onProgress);
  const ctx = shopContextFor(deps, dataset.shop.id, { requestId: `load-${randomUUID()}`, apiKeyId: null, scopes: ['read', 'write'] });
  const metafields = await syncMaterialRequirements(ctx, null);
  if (metafields.enabled) onProgress(`wrote ${metafields.namespace}.${metafields.key} on ${metafields.written} orders`);
  // loadDataset analyzed the tables it wrote; these rows came after.
  if (metafields.written > 0) {
    await analyzeTables(deps.orm.em, ['platform_order_metafields']);
    if (!report.analyzed.includes('platform_order_metafields')) report.analyzed.push('platform_order_metafields');
  }
  return { ...report, metafields };
}
