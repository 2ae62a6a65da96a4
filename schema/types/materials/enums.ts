import { SORT_DIRECTIONS } from '../../../src/db/keyset.ts';
import {
  MATERIAL_ORIGIN_FILTERS, MATERIAL_ORIGINS, MATERIAL_SORTS, MATERIAL_USAGE_FILTERS, MATERIAL_USAGE_SOURCES,
} from '../../../src/modules/materials/material-vocabulary.ts';
import { builder, valueList } from '../../builder.ts';

// The raw-material vocabulary as GraphQL enums (values from src/modules/materials/material-vocabulary.ts):
// every field and argument that takes or gives one of these sets has this type.

export const MaterialOriginEnum = builder.enumType('RawMaterialOrigin', {
  description: '`platform`: a platform variant (numeric id, catalogue fields mirrored, read-only in API v1); `virtual`: owned by this service (VMAT-… ids).',
  values: MATERIAL_ORIGINS,
});
export const MaterialOriginFilterEnum = builder.enumType('RawMaterialOriginFilter', { values: MATERIAL_ORIGIN_FILTERS });
export const MaterialUsageFilterEnum = builder.enumType('RawMaterialUsageFilter', { values: MATERIAL_USAGE_FILTERS });
export const MaterialSortOrderEnum = builder.enumType('RawMaterialSortOrder', { values: SORT_DIRECTIONS });
export const MaterialSortEnum = builder.enumType('MaterialSort', {
  description: `What the raw-material lists sort by: ${valueList(MATERIAL_SORTS, true)}. Text sorts are case-insensitive.`,
  values: MATERIAL_SORTS,
});

export const MaterialUsageSourceEnum = builder.enumType('MaterialUsageSource', {
  description: '`recipe`: a line of the bill\'s base recipe; `locationRule`: an override of the bill\'s rule at one location.',
  values: MATERIAL_USAGE_SOURCES,
});
