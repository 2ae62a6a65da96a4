// The one home of the raw-material vocabulary: origins, the lists' filters and sort keys, and the
// sources of a material's uses. Entities, services, dataset code and the GraphQL schema import these
// (the schema's enums are built from them in schema/types/materials/enums.ts); nothing else spells them.

import { MATERIAL_ORIGINS, MATERIAL_USAGE_SOURCES, type MaterialOrigin, type MaterialUsageSource } from '../boms/recipe-vocabulary.ts';

/**
 * Origin of a material: `platform` (numeric variant id, catalogue fields mirrored from the platform)
 * or `virtual` (`VMAT-…` ids, owned by this service). Spelled in the recipe vocabulary, the lowest
 * module that reads material rows (module order, .dependency-cruiser.cjs); given here to every
 * module above.
 */
export { MATERIAL_ORIGINS, MATERIAL_USAGE_SOURCES, type MaterialOrigin, type MaterialUsageSource };

/** The lists' origin filter: `all` or one origin. */
export const MATERIAL_ORIGIN_FILTERS = ['all', ...MATERIAL_ORIGINS] as const;
export type MaterialOriginFilter = (typeof MATERIAL_ORIGIN_FILTERS)[number];

/** The lists' usage filter: `used` = named by a raw line of a BOM or assembly bill; `unused` = by none. */
export const MATERIAL_USAGE_FILTERS = ['all', 'used', 'unused'] as const;
export type MaterialUsageFilter = (typeof MATERIAL_USAGE_FILTERS)[number];

/** What the lists sort by (`sortBy`; another value sorts by productName, the first). */
/** What the materials list applies when a filter or the sort direction is not given (GraphQL argument defaults). */
export const MATERIAL_LIST_DEFAULTS = { usageFilter: 'all', originFilter: 'all', sortOrder: 'asc' } as const;

export const MATERIAL_SORTS = ['productName', 'variantName', 'inventoryQuantity'] as const;
export type MaterialSort = (typeof MATERIAL_SORTS)[number];

