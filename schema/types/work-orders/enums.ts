import { SORT_DIRECTIONS } from '../../../src/db/keyset.ts';
import {
  BUILD_RUN_MODES, BUILD_RUN_STATUSES, BUILD_RUN_TYPES, CONTRIBUTION_SOURCES, QC_DECISIONS, REWORK_ITEM_STATUSES, TRANSITION_DIRECTIONS, WORK_ORDER_HOLDER_TYPES, WORK_ORDER_PRIORITIES, WORK_ORDER_SORTS, WORK_ORDER_SOURCE_TYPES, WORK_ORDER_STATUSES, WORK_ORDER_WARNINGS, type WorkOrderWarningCode,
} from '../../../src/modules/work-orders/work-order-vocabulary.ts';
import { WORK_ORDER_TRANSITIONS } from '../../../src/modules/work-orders/work-order-states.ts';
import { builder, describedValues } from '../../builder.ts';

// The work-order vocabulary as GraphQL enums (values from the one vocabulary module,
// src/modules/work-orders/work-order-vocabulary.ts): every field and argument that takes or gives
// one of these sets has this type.

/**
 * The state table of src/modules/work-orders/work-order-vocabulary.ts as a markdown table: from each
 * status, the forward step, the back step and the other moves. The WorkOrderStatus enum describes
 * itself with it, and the REST facade's transition route shows the same table (it reads it here,
 * never from the modules).
 */
export const WORK_ORDER_STATE_TABLE = [
  '| from | forward | back | other moves |',
  '|---|---|---|---|',
  ...WORK_ORDER_STATUSES.map((from) => {
    const { forward, back, other } = WORK_ORDER_TRANSITIONS[from];
    return `| ${from} | ${forward ?? '—'} | ${back ?? '—'} | ${other.length > 0 ? other.join(', ') : '—'} |`;
  }),
].join('\n');

export const WorkOrderStatusEnum = builder.enumType('WorkOrderStatus', {
  description: `The status of a work order. The state table (\`transitionWorkOrder\` makes these moves; \`availableTransitions\` lists those open now):\n\n${WORK_ORDER_STATE_TABLE}`,
  values: WORK_ORDER_STATUSES,
});
export const WorkOrderPriorityEnum = builder.enumType('WorkOrderPriority', { values: WORK_ORDER_PRIORITIES });
export const WorkOrderSourceTypeEnum = builder.enumType('WorkOrderSourceType', { values: WORK_ORDER_SOURCE_TYPES });
export const BuildRunStatusEnum = builder.enumType('BuildRunStatus', { values: BUILD_RUN_STATUSES });
export const BuildRunTypeEnum = builder.enumType('BuildRunType', { values: BUILD_RUN_TYPES });
export const BuildRunModeEnum = builder.enumType('BuildRunMode', { values: BUILD_RUN_MODES });
export const TransitionDirectionEnum = builder.enumType('TransitionDirection', { values: TRANSITION_DIRECTIONS });
export const WorkOrderSortEnum = builder.enumType('WorkOrderSort', { values: WORK_ORDER_SORTS });
export const WorkOrderSortDirectionEnum = builder.enumType('WorkOrderSortDirection', { values: SORT_DIRECTIONS });

export const QcDecisionEnum = builder.enumType('QcDecision', {
  description: 'approved: the units judged pass QC; rejected: some fail it (make them good with a rework run).',
  values: QC_DECISIONS,
});

export const ReworkItemStatusEnum = builder.enumType('ReworkItemStatus', {
  description: '`open` until a rework run resolves it, then `resolved`.',
  values: REWORK_ITEM_STATUSES,
});

export const WorkOrderContributionSourceEnum = builder.enumType('WorkOrderContributionSource', {
  description: '`recipe`: an item\'s recipe, exploded; `manual`: a manual material line.',
  values: CONTRIBUTION_SOURCES,
});

export const WorkOrderAllocationHolderTypeEnum = builder.enumType('WorkOrderAllocationHolderType', {
  description: 'The holder of a work-order allocation: always `work_order`.',
  values: WORK_ORDER_HOLDER_TYPES,
});

export const WorkOrderWarningCodeEnum = builder.enumType('WorkOrderWarningCode', {
  description: 'What a warning is about. A work order\'s warnings are recomputed on every read; NEGATIVE_INVENTORY and PREASSEMBLED_SHORT are a build run\'s, '
    + 'stored with it. Each value\'s description gives the warning\'s remedy.',
  values: describedValues(Object.fromEntries(Object.entries(WORK_ORDER_WARNINGS).map(([code, w]) => [code, `${w.description}. Remedy: ${w.remedy}.`])) as Record<WorkOrderWarningCode, string>),
});
