import type { WorkOrderRow } from './work-order.repository.ts';

/** The flat header of a work order, as list rows and the whole read give it. */
export interface WorkOrderHeaderView {
  workOrderId: string;
  shortId: string;
  name: string;
  description: string | null;
  notes: string | null;
  status: WorkOrderRow['status'];
  priority: WorkOrderRow['priority'];
  dueDate: string | null;
  assigneeId: string | null;
  assigneeName: string | null;
  productionLocationId: string | null;
  productionLocationName: string | null;
  defaultConsumptionLocationId: string | null;
  sourceType: WorkOrderRow['source_type'];
  sourceFlowId: string | null;
  sourceTodoId: string | null;
  sourceOrderIds: string[];
  tags: string[];
  plannedLaborCost: string | null;
  actualLaborCost: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function headerView(row: WorkOrderRow, locationNames: ReadonlyMap<string, string>): WorkOrderHeaderView {
  return {
    workOrderId: row.work_order_id, shortId: row.short_id, name: row.name, description: row.description, notes: row.notes, status: row.status,
    priority: row.priority, dueDate: row.due_date, assigneeId: row.assignee_id, assigneeName: row.assignee_name,
    productionLocationId: row.production_location_id,
    productionLocationName: row.production_location_id ? locationNames.get(row.production_location_id) ?? null : null,
    defaultConsumptionLocationId: row.default_consumption_location_id, sourceType: row.source_type, sourceFlowId: row.source_flow_id,
    sourceTodoId: row.source_todo_id, sourceOrderIds: row.source_order_ids, tags: row.tags, plannedLaborCost: row.planned_labor_cost,
    actualLaborCost: row.actual_labor_cost, createdAt: row.created_at, updatedAt: row.updated_at,
  };
}
