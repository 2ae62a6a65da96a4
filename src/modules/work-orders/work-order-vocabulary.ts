// The one home of the work-order vocabulary: statuses, the open set, priorities, source types,
// sort keys, build-run and record statuses, transition directions and blocker codes, the warnings
// with their remedies, the sources of a plan's contributions. The state machine that moves between
// the statuses (its table, blockers and refusals) is work-order-states.ts. Entities, dataset code, services and
// the GraphQL schema import these (the schema's enums are built from them in
// schema/types/work-orders/enums.ts); nothing else spells them.

export const WORK_ORDER_STATUSES = [
  'draft', 'ready', 'in_progress', 'paused', 'quality_control', 'qc_approved', 'completed', 'cancelled',
] as const;
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number];

/** Closed work orders; every other status is open (work-order allocation, assignee usage counts). */
export const CLOSED_STATUSES: readonly WorkOrderStatus[] = ['completed', 'cancelled'];
export const OPEN_STATUSES: readonly WorkOrderStatus[] = WORK_ORDER_STATUSES.filter((s) => !CLOSED_STATUSES.includes(s));
export const isOpenStatus = (status: WorkOrderStatus): boolean => !CLOSED_STATUSES.includes(status);

export const WORK_ORDER_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type WorkOrderPriority = (typeof WORK_ORDER_PRIORITIES)[number];

export const WORK_ORDER_SOURCE_TYPES = ['flow', 'bom', 'sa', 'empty', 'orders'] as const;
export type WorkOrderSourceType = (typeof WORK_ORDER_SOURCE_TYPES)[number];

/** The facets of the work-order list: what its work orders are counted by (status, production location, assignee, tag). */
export const WORK_ORDER_FACETS = ['status', 'location', 'assignee', 'tag'] as const;
export type WorkOrderFacet = (typeof WORK_ORDER_FACETS)[number];

/** What the work-order lists sort by (`sortBy`; default updatedAt, the first). */
export const WORK_ORDER_SORTS = ['updatedAt', 'createdAt', 'dueDate', 'priority', 'name', 'status'] as const;
export type WorkOrderSort = (typeof WORK_ORDER_SORTS)[number];

/** Where a material need of a work order comes from: an item's recipe, exploded, or a manual material line. */
export const CONTRIBUTION_SOURCES = ['recipe', 'manual'] as const;
export type ContributionSource = (typeof CONTRIBUTION_SOURCES)[number];

/** The holder of a work-order allocation: always a work order (the name keeps holders of every allocation alike). */
export const WORK_ORDER_HOLDER_TYPES = ['work_order'] as const;
export type WorkOrderHolderType = (typeof WORK_ORDER_HOLDER_TYPES)[number];

export const BUILD_RUN_STATUSES = ['started', 'completed', 'reversed'] as const;
export type BuildRunStatus = (typeof BUILD_RUN_STATUSES)[number];
/** Runs whose picks count as consumed (picked) stock. */
export const LIVE_RUN_STATUSES: readonly BuildRunStatus[] = ['started', 'completed'];

export const BUILD_RUN_TYPES = ['production', 'rework'] as const;
export type BuildRunType = (typeof BUILD_RUN_TYPES)[number];
export const BUILD_RUN_MODES = ['start'] as const;

export const QC_DECISIONS = ['approved', 'rejected'] as const;
export type QcDecision = (typeof QC_DECISIONS)[number];

export const REWORK_ITEM_STATUSES = ['open', 'resolved'] as const;
export type ReworkItemStatus = (typeof REWORK_ITEM_STATUSES)[number];

export const TRANSITION_DIRECTIONS = ['forward', 'back'] as const;
export type TransitionDirection = (typeof TRANSITION_DIRECTIONS)[number];

/** Blocker codes of a refused transition or build run (409, named in `blockers`). */
export const TRANSITION_BLOCKERS = {
  NOT_ALLOWED: 'the state table has no such move',
  NO_ITEMS: 'a work order leaves draft only with at least one item',
  NO_PRODUCTION_LOCATION: 'in_progress needs a production location',
  NO_BUILD_RUN: 'quality_control needs at least one build run that was not reversed',
  OPEN_REWORK: 'completed needs every rework item resolved',
  RUN_IN_PROGRESS: 'a build run is started and not completed',
  NOT_BUILDABLE_STATE: 'build runs start only in in_progress, quality_control (rework runs) and qc_approved',
  NO_CONSUMPTION_LOCATION: 'a build run needs a default consumption or production location',
} as const;
export type BlockerCode = keyof typeof TRANSITION_BLOCKERS;

/**
 * Warning codes of a work order (recomputed on every read) and of a build run's start (stored with
 * the run): what each means and its remedy, the `remedy` every warning of that code carries.
 */
export const WORK_ORDER_WARNINGS = {
  RETIRED_ASSIGNEE: { description: 'the assignee is retired', remedy: 'assign an active assignee (PATCH assigneeId) or clear it' },
  OVERDUE: { description: 'an open work order past its due date', remedy: 'finish the work order or move its dueDate' },
  STOCK_SHORT: {
    description: 'a material is short at its consumption location for the remaining quantities',
    remedy: 'restock the material at that location, or change the consumption location',
  },
  SHELF_ONLY_SHORT: {
    description: 'an assembly that comes only from its pre-assembled shelf is short there',
    remedy: 'build or move pre-assembled units to that location',
  },
  UNLOCATED_LINES: {
    description: 'lines with no consumption location',
    remedy: 'set productionLocationId or defaultConsumptionLocationId (or the manual line\'s location)',
  },
  PLATFORM_PUSH_STUCK: {
    description: 'stock pushes to the platform keep failing (they are retried until they go through)',
    remedy: 'check the platform connection (bomcore shop status); nothing needs re-sending: pending pushes drain by themselves, each once; a push the platform refused for good (a deleted variant, a missing scope) waits until the cause is fixed and `bomcore shop retry-pushes` releases it',
  },
  NEGATIVE_INVENTORY: {
    description: 'a build run took more than a level held: it went below zero, or stopped at zero',
    remedy: 'count and correct the level, or restock it',
  },
  PREASSEMBLED_SHORT: {
    description: 'a build run found an only-pre-assembled assembly\'s shelf short',
    remedy: 'build the assembly first (a work order for it), then continue',
  },
} as const satisfies Record<string, { description: string; remedy: string }>;
export type WorkOrderWarningCode = keyof typeof WORK_ORDER_WARNINGS;
