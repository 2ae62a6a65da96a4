import { datasetTables } from '../entities.ts';
import { bulkInsert } from '../../db/bulk-insert.ts';
import type { Em } from '../../db/orm.ts';
import { rebuildShopCostRollup } from '../recipes/cost-rollup.repository.ts';
import { datasetToRows } from './dataset-rows.ts';
import type { Dataset } from './types.ts';

export interface LoadReport { shopId: string; rows: Record<string, number> }

/**
 * Replaces everything one shop owns with the dataset, in one transaction: a failure leaves the
 * previous state untouched. API keys and the inventory adjustment history are kept (they are not
 * part of a dataset). Loading the same dataset twice gives the same state.
 */
export async function loadDataset(
  rootEm: Em,
  dataset: Dataset,
  onProgress: (message: string) => void = () => {},
): Promise<LoadReport> {
  const shopId = dataset.shop.id;
  const tables = datasetToRows(dataset);
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
    for (const { table, columns, rows } of tables) {
      await bulkInsert(em, table, ['shop_id', ...columns], rows.map((r) => [shopId, ...r]));
      report.rows[table] = rows.length;
      if (rows.length > 0) onProgress(`${table}: ${rows.length} rows`);
    }
    await rebuildShopCostRollup(em, shopId);
  });
  return report;
}
