// The one home of the recipe vocabulary: owners of a recipe, BOM statuses, line types, cost-factor
// kinds, location-rule actions and bill-version states.

/** Owner of a recipe: a BOM (finished good) or an assembly bill (`sub_assembly`). */
export const BILL_OWNER_TYPES = ['bom', 'sub_assembly'] as const;
export type BillOwnerType = (typeof BILL_OWNER_TYPES)[number];

export const BOM_STATUSES = ['active', 'inactive'] as const;
export type BomStatus = (typeof BOM_STATUSES)[number];

export const RECIPE_LINE_TYPES = ['raw', 'sub', 'cost'] as const;

export const COST_FACTOR_KINDS = ['labor', 'overhead', 'packaging', 'machine', 'other'] as const;
export type CostFactorKind = (typeof COST_FACTOR_KINDS)[number];

export const LOCATION_RULE_ACTIONS = ['replace', 'remove', 'add', 'adjust'] as const;
export type LocationRuleAction = (typeof LOCATION_RULE_ACTIONS)[number];

export const BILL_VERSION_STATES = ['ready', 'pending'] as const;
export type BillVersionState = (typeof BILL_VERSION_STATES)[number];
