import DataLoader from 'dataloader';
import type { Connection } from '../../../src/db/keyset.ts';
import { bomWorkOrderConnections, type WorkOrderConnectionParams } from '../../../src/modules/work-orders/work-order-cursor.ts';
import { wholeWorkOrders, type WholeWorkOrder } from '../../../src/modules/work-orders/work-order-read.service.ts';
import type { WorkOrderHeaderView } from '../../../src/modules/work-orders/work-order-view.ts';
import { inKeyOrder, perArguments, type LoaderFactory } from '../common/loader-part.ts';

export interface WorkOrderLoaders {
  /** Whole work orders by workOrderId (what `workOrder(workOrderId)` returns). */
  workOrder: DataLoader<string, WholeWorkOrder | null>;
  /** One cursor page of the work orders that build each BOM, by bomId, for one set of page arguments and filters. */
  bomWorkOrders(params: WorkOrderConnectionParams): DataLoader<string, Connection<WorkOrderHeaderView>>;
}

export const workOrderLoaders: LoaderFactory<WorkOrderLoaders> = (ctx) => {
  // Whole work orders in the statements of one (headers, parts, plans and stuck pushes batched).
  const workOrder = new DataLoader<string, WholeWorkOrder | null>(async (ids) => inKeyOrder(ids, await wholeWorkOrders(ctx, ids)));
  // Per set of arguments: the BOMs of one selection share them, so their pages are one statement.
  const bomPages = perArguments(
    (params: WorkOrderConnectionParams) => new DataLoader<string, Connection<WorkOrderHeaderView>>((bomIds) => bomWorkOrderConnections(ctx, bomIds, params)),
    (params) => JSON.stringify(params),
  );
  return {
    loaders: { workOrder, bomWorkOrders: bomPages.get },
    clear: () => {
      workOrder.clearAll();
      bomPages.clear();
    },
  };
};
