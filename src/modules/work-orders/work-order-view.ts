import type { WorkOrderHeader } from './work-order.repository.ts';

/**
 * The flat header of a work order, as list rows and the whole read give it: the header query's
 * fields (work-order.repository.ts names them as the API does) and the production location's name.
 */
export type WorkOrderHeaderView = Omit<WorkOrderHeader, 'assigneeActive'> & { productionLocationName: string | null };

export function headerView(row: WorkOrderHeader, locationNames: ReadonlyMap<string, string>): WorkOrderHeaderView {
  const { assigneeActive: _assigneeActive, ...header } = row;
  return { ...header, productionLocationName: row.productionLocationId ? locationNames.get(row.productionLocationId) ?? null : null };
}
