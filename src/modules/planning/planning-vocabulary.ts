// The planning module's value sets (docs/planning.md), each written once.

/**
 * Where a demand comes from, in the netting's tie order: orders, work orders, safety stock, make
 * suggestions, then the extra demand of a what-if (it queues behind what the shop already has).
 */
export const DEMAND_SOURCE_TYPES = ['order', 'work_order', 'safety_stock', 'make', 'what_if'] as const;
export type DemandSourceType = (typeof DEMAND_SOURCE_TYPES)[number];

/** What a make suggestion builds: a BOM's finished good or an assembly bill. */
export const MADE_ITEM_TYPES = ['bom', 'assembly_bill'] as const;
export type MadeItemType = (typeof MADE_ITEM_TYPES)[number];

/** Any item a plan nets: a raw material (bought) or a made item. */
export const PLANNED_ITEM_TYPES = ['raw_material', ...MADE_ITEM_TYPES] as const;
export type PlannedItemType = (typeof PLANNED_ITEM_TYPES)[number];

/** The CLI's output formats of a plan. */
export const PLAN_FORMATS = ['json', 'csv'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

/** Pegging lists the largest demands of a row, this many; the rest are counted. */
export const PEGGING_CAP = 20;
