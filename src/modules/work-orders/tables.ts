import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import {
  LifecycleEvent, QcReview, QcReviewItem, ReworkItem, WorkOrderDocument, WorkOrderMessage,
} from './work-order-records.entity.ts';
import { BuildRun, BuildRunItem, BuildRunPick, WorkOrder, WorkOrderFacetCount, WorkOrderItem, WorkOrderManualMaterial } from './work-order.entity.ts';

/** The work-order module's tables, typed from their entity definitions: its queries can name no other module's table. */
export type WorkOrdersTables = InferKyselyDB<
  | typeof WorkOrder | typeof WorkOrderFacetCount | typeof WorkOrderItem | typeof WorkOrderManualMaterial | typeof BuildRun | typeof BuildRunItem | typeof BuildRunPick
  | typeof QcReview | typeof QcReviewItem | typeof ReworkItem | typeof WorkOrderDocument | typeof WorkOrderMessage | typeof LifecycleEvent
>;

/** Builds the work-order module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const workOrdersSql = sqlBuilder<WorkOrdersTables>();
