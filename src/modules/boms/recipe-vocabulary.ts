// The one home of the recipe vocabulary: owners of a recipe, BOM statuses and list filters, sort
// keys, line types, cost-factor kinds, location-rule actions, bill-version states and save
// triggers, the blockers of an archive — and the origin of a material a raw line names. Entities,
// services, dataset code and the GraphQL schema import these (the schema's enums are built from
// them in schema/types/boms/enums.ts); nothing else spells them.

/** Owner of a recipe: a BOM (finished good) or an assembly bill (`sub_assembly`). */
export const BILL_OWNER_TYPES = ['bom', 'sub_assembly'] as const;
export type BillOwnerType = (typeof BILL_OWNER_TYPES)[number];

export const BOM_STATUSES = ['active', 'inactive'] as const;
export type BomStatus = (typeof BOM_STATUSES)[number];
/** The BOM lists' status filter: `all` or one status. */
export const BOM_STATUS_FILTERS = ['all', ...BOM_STATUSES] as const;
export type BomStatusFilter = (typeof BOM_STATUS_FILTERS)[number];
/** What the BOM lists sort by (`sortBy`; another value sorts by name, the first). */
export const BOM_SORTS = ['name', 'bomId', 'sku', 'price', 'totalCost', 'status'] as const;
export type BomSort = (typeof BOM_SORTS)[number];

/** Lines naming a stocked node: a raw material (`raw`) or an assembly bill (`sub`). */
export const STOCKED_LINE_TYPES = ['raw', 'sub'] as const;
export type StockedLineType = (typeof STOCKED_LINE_TYPES)[number];
/** Every line of a recipe: the stocked ones and cost factors (`cost`). */
export const RECIPE_LINE_TYPES = [...STOCKED_LINE_TYPES, 'cost'] as const;
export type RecipeLineType = (typeof RECIPE_LINE_TYPES)[number];

export const COST_FACTOR_KINDS = ['labor', 'overhead', 'packaging', 'machine', 'other'] as const;
export type CostFactorKind = (typeof COST_FACTOR_KINDS)[number];

export const LOCATION_RULE_ACTIONS = ['replace', 'remove', 'add', 'adjust'] as const;
export type LocationRuleAction = (typeof LOCATION_RULE_ACTIONS)[number];

export const BILL_VERSION_STATES = ['ready', 'pending'] as const;
export type BillVersionState = (typeof BILL_VERSION_STATES)[number];

/**
 * What this service records as a saved bill version's trigger. Read back, a trigger is text: a
 * loaded dataset may carry labels of its own (`recipe_edit`, `import`, …), so the API gives it as a
 * String, not an enum.
 */
export const BILL_SAVE_TRIGGERS = ['create', 'update', 'archive', 'restore', 'location_rules'] as const;
export type BillSaveTrigger = (typeof BILL_SAVE_TRIGGERS)[number];

// Origin of a material: declared in the kernel for the catalogue sources (src/kernel/catalog-vocabulary.ts);
// the materials module gives it to the layers above (src/modules/materials/material-vocabulary.ts).
import { MATERIAL_ORIGINS, type MaterialOrigin } from '../../kernel/catalog-vocabulary.ts';

export { MATERIAL_ORIGINS, type MaterialOrigin };

/** What limits a buildable quantity: a material (by its origin) or an assembly's pre-assembled shelf. */
export const LIMITING_COMPONENT_ORIGINS = [...MATERIAL_ORIGINS, 'preassembled'] as const;
export type LimitingComponentOrigin = (typeof LIMITING_COMPONENT_ORIGINS)[number];

/** Blocker codes of a refused catalogue write (409, named in `blockers`), with what each means. */
export const CATALOG_BLOCKERS = {
  USED_BY_ACTIVE_BOM: 'an active BOM uses it (the blocker\'s message names the BOM)',
} as const;
export type CatalogBlockerCode = keyof typeof CATALOG_BLOCKERS;

/**
 * Where a use of a material comes from: a line of a bill's base recipe, or an override of its
 * location rule (the recipes own both; the materials module re-exports the set for its reads).
 */
export const MATERIAL_USAGE_SOURCES = ['recipe', 'locationRule'] as const;
export type MaterialUsageSource = (typeof MATERIAL_USAGE_SOURCES)[number];

/** What the BOM list applies when the status filter or the sort direction is not given (GraphQL argument defaults). */
export const BOM_LIST_DEFAULTS = { statusFilter: 'all', sortOrder: 'asc' } as const;

/**
 * What bomcore does with the platform's available level of a BOM's finished good (a platform
 * variant): `manual` never writes it (the default); `shelf` sets it to the finished good's shelf at
 * each location less the open order reservations there; `sellable` adds what the components there
 * can still make (the buildable read's `sellable`). Never below 0.
 */
export const STOREFRONT_STOCK_MODES = ['manual', 'shelf', 'sellable'] as const;
export type StorefrontStockMode = (typeof STOREFRONT_STOCK_MODES)[number];
