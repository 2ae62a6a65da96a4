import { datasetTables } from '../modules/entities.ts';
import { enqueueStorefrontRecomputes } from '../modules/boms/for-stock.ts';
import type { QueryResult } from '@mikro-orm/core';
import type { Em } from '../db/orm.ts';
import { recipeCatalogSources } from '../modules/materials/for-recipes.ts';
import { rebuildShopCostRollup } from '../modules/boms/cost-rollup.repository.ts';
import { datasetSections, insertRows, rowBatches, tableOf, workOrderShortIds } from './dataset-rows.ts';
import { fileSections, type DatasetFile } from './dataset-file.ts';
import type { Dataset } from './types.ts';
import { analyzeTables } from '../db/analyze.ts';

export interface LoadReport {
  shopId: string;
  /** Rows inserted per table. */
  rows: Record<string, number>;
  /** The tables analyzed after the commit: those the load changed. */
  analyzed: string[];
  /**
   * Why the ANALYZE after the commit failed, if it did (a lock held by another session's ANALYZE, a
   * timeout). The data is loaded either way; only the planner statistics wait for autovacuum.
   */
  analyzeError?: string;
}

/**
 * Replaces everything one shop owns with the dataset, in one transaction: a failure leaves the
 * previous state untouched. API keys and the inventory adjustment history are kept (they are not
 * part of a dataset). Loading the same dataset twice gives the same state.
 *
 * The dataset is a validated one in memory, or a validated file (validateDatasetFile), which is
 * read again section by section: rows go to the database in bounded batches as they are made.
 * After the commit the tables it changed are analyzed (see analyzeTables).
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
  const report: LoadReport = { shopId, rows: {}, analyzed: [] };
  // Tables whose contents changed: the shop row, the cost roll-up rebuilt at the end, and every
  // dataset table that lost or gained rows of the shop.
  const changed = new Set<string>(['shops', ...COST_ROLLUP_TABLES]);
  await rootEm.fork().transactional(async (em) => {
    await em.execute(
      `insert into shops (id, name, plan, allow_negative_inventory, material_requirements_metafield, created_at, updated_at)
       values (?, ?, ?, ?, ?, now(), now())
       on conflict (id) do update set name = excluded.name, plan = excluded.plan, allow_negative_inventory = excluded.allow_negative_inventory,
         material_requirements_metafield = excluded.material_requirements_metafield, updated_at = now()`,
      [shopId, dataset.shop.name, dataset.shop.plan, dataset.shop.settings.allowNegativeInventory, dataset.shop.settings.materialRequirementsMetafield],
      'run',
    );
    for (const table of datasetTables) {
      const deleted = await em.execute<QueryResult>(`delete from "${table}" where shop_id = ?`, [shopId], 'run');
      if (deleted.affectedRows > 0) changed.add(table);
    }
    onProgress(`cleared shop ${shopId}`);
    for (const batch of batches) {
      await insertRows(em, batch);
      const table = tableOf(batch.target);
      report.rows[table] = (report.rows[table] ?? 0) + batch.rows.length;
      changed.add(table);
    }
    await rebuildShopCostRollup(em, shopId, recipeCatalogSources);
    // Finished goods whose BOMs set their storefront level: their levels follow the loaded shelves on the next drain.
    await enqueueStorefrontRecomputes(em, shopId, { all: true });
  });
  // The materials' quantity rows follow their materials and levels (triggers): analyzed with them.
  if (changed.has('materials') || changed.has('material_levels')) changed.add('material_quantities');
  report.analyzed = [...changed];
  const started = Date.now();
  // The load has committed: a failed ANALYZE must not report the load itself as failed.
  try {
    await analyzeTables(rootEm, report.analyzed);
    onProgress(`analyzed ${report.analyzed.length} tables in ${Date.now() - started} ms`);
  } catch (error) {
    report.analyzeError = (error as Error).message;
    onProgress(`loaded, but ANALYZE failed (${report.analyzeError}): statistics wait for autovacuum; run ANALYZE to plan on them now`);
  }
  return report;
}

/** The tables of the BOM cost roll-up, which rebuildShopCostRollup rewrites for the shop. */
const COST_ROLLUP_TABLES = ['bill_costs', 'bom_list_entries'];

