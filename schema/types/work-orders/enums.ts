import {
  BUILD_RUN_MODES, BUILD_RUN_STATUSES, BUILD_RUN_TYPES, TRANSITION_DIRECTIONS, WORK_ORDER_PRIORITIES, WORK_ORDER_SOURCE_TYPES, WORK_ORDER_STATUSES,
} from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { WORK_ORDER_SORTS } from '../../../src/modules/work-orders/work-order-list.service.ts';
import { builder } from '../../builder.ts';

// The work-order vocabulary as GraphQL enums (values from the one vocabulary module).
export const WorkOrderStatusEnum = builder.enumType('WorkOrderStatus', { values: WORK_ORDER_STATUSES });
export const WorkOrderPriorityEnum = builder.enumType('WorkOrderPriority', { values: WORK_ORDER_PRIORITIES });
export const WorkOrderSourceTypeEnum = builder.enumType('WorkOrderSourceType', { values: WORK_ORDER_SOURCE_TYPES });
export const BuildRunStatusEnum = builder.enumType('BuildRunStatus', { values: BUILD_RUN_STATUSES });
export const BuildRunTypeEnum = builder.enumType('BuildRunType', { values: BUILD_RUN_TYPES });
export const BuildRunModeEnum = builder.enumType('BuildRunMode', { values: BUILD_RUN_MODES });
export const TransitionDirectionEnum = builder.enumType('TransitionDirection', { values: TRANSITION_DIRECTIONS });
export const WorkOrderSortEnum = builder.enumType('WorkOrderSort', { values: WORK_ORDER_SORTS });
export const WorkOrderSortDirectionEnum = builder.enumType('WorkOrderSortDirection', { values: ['asc', 'desc'] as const });
export const StockKindEnum = builder.enumType('StockKind', {
  values: ['material', 'preassembled'] as const,
  description: 'material: a material level; preassembled: an assembly bill\'s pre-assembled shelf.',
});
