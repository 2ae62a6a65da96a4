import { datasetTables } from '../entities.ts';
import type { Em } from '../../db/orm.ts';
import { rebuildShopCostRollup } from '../recipes/cost-rollup.repository.ts';
import { datasetSections, insertRows, rowBatches, tableOf, workOrderShortIds } from './dataset-rows.ts';
import { fileSections, type DatasetFile } from './dataset-file.ts';
import type { Dataset } from './types.ts';

export interface LoadReport { shopId: string; rows: Record<string, number> }

/**
 * Replaces everything one shop owns with the dataset, in one transaction: a failure leaves the
 * previous state untouched. API keys and the inventory adjustment history are kept (they are not
 * part of a dataset). Loading the same dataset twice gives the same state.
 *
 * The dataset is a validated one in memory, or a validated file (validateDatasetFile), which is
 * read again section by section: rows go to the database in bounded batches as they are made.
 */
export async function loadDataset(
  rootEm: Em,
  dataset: Dataset | DatasetFile,
  onProgress: (message: string) => void = () => {},
): Promise<LoadReport> {
  const shopId = dataset.shop.id;
  const batches = rowBatches(
    'file' in dataset ? fileSections(dataset, onProgress) : datasetSections(dataset),
    {
      shopId,
      loadedAt: new Date(),
      workOrderShortIds: 'file' in dataset ? dataset.workOrderShortIds : workOrderShortIds(dataset.workOrders.map((w) => [w.createdAt, w.workOrderId])),
      cachedQuantityDefaults: 'file' in dataset ? dataset.cachedQuantityDefaults : new Map(),
    },
  );
  const report: LoadReport = { shopId, rows: {} };
  await rootEm.fork().transactional(async (em) => {
    await em.execute(
      `insert into shops (id, name, allow_negative_inventory, material_requirements_metafield, created_at, updated_at)
       values (?, ?, ?, ?, now(), now())
       on conflict (id) do update set name = excluded.name, allow_negative_inventory = excluded.allow_negative_inventory,
         material_requirements_metafield = excluded.material_requirements_metafield, updated_at = now()`,
      [shopId, dataset.shop.name, dataset.shop.settings.allowNegativeInventory, dataset.shop.settings.materialRequirementsMetafield],
      'run',
    );
    for (const table of datasetTables) {
      await em.execute(`delete from "${table}" where shop_id = ?`, [shopId], 'run');
    }
    onProgress(`cleared shop ${shopId}`);
    for (const batch of batches) {
      await insertRows(em, batch);
      const table = tableOf(batch.target);
      report.rows[table] = (report.rows[table] ?? 0) + batch.rows.length;
    }
    await rebuildShopCostRollup(em, shopId);
  });
  return report;
}
