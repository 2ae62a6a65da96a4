import { SORT_DIRECTIONS } from '../../../src/db/keyset.ts';
import {
  MATERIAL_ORIGIN_FILTERS, MATERIAL_ORIGINS, MATERIAL_USAGE_FILTERS, MATERIAL_USAGE_SOURCES,
} from '../../../src/modules/materials/material-vocabulary.ts';
import { COMMITMENT_HOLDER_TYPES, LEVEL_CHANGE_SOURCES, MOVEMENT_SOURCES, SHELF_ITEM_TYPES, STOCK_KINDS } from '../../../src/modules/stock/stock-vocabulary.ts';
import { builder } from '../../builder.ts';

// The raw-material and stock vocabularies as GraphQL enums (values from the vocabulary modules,
// src/modules/materials/material-vocabulary.ts and src/modules/stock/stock-vocabulary.ts): every
// field and argument that takes or gives one of these sets has this type.

export const MaterialOriginEnum = builder.enumType('RawMaterialOrigin', {
  description: '`platform`: a platform variant (numeric id, catalogue fields mirrored, read-only in API v1); `virtual`: owned by this service (VMAT-… ids).',
  values: MATERIAL_ORIGINS,
});
export const MaterialOriginFilterEnum = builder.enumType('RawMaterialOriginFilter', { values: MATERIAL_ORIGIN_FILTERS });
export const MaterialUsageFilterEnum = builder.enumType('RawMaterialUsageFilter', { values: MATERIAL_USAGE_FILTERS });
export const MaterialSortOrderEnum = builder.enumType('RawMaterialSortOrder', { values: SORT_DIRECTIONS });

export const MaterialUsageSourceEnum = builder.enumType('MaterialUsageSource', {
  description: '`recipe`: a line of the bill\'s base recipe; `locationRule`: an override of the bill\'s rule at one location.',
  values: MATERIAL_USAGE_SOURCES,
});

export const StockKindEnum = builder.enumType('StockKind', {
  values: STOCK_KINDS,
  description: 'material: a material level; preassembled: an assembly bill\'s pre-assembled shelf.',
});

export const StockItemTypeEnum = builder.enumType('StockItemType', {
  description: 'What a pre-assembled shelf holds: `variant` (a finished good or material) or `assemblyBill`.',
  values: SHELF_ITEM_TYPES,
});

export const StockCommitmentHolderTypeEnum = builder.enumType('StockCommitmentHolderType', {
  description: '`order`: an order\'s open quantity; `bom` / `sub_assembly`: the bill behind a safety-stock hold.',
  values: COMMITMENT_HOLDER_TYPES,
});

export const InventoryAdjustmentSourceEnum = builder.enumType('InventoryAdjustmentSource', {
  description: 'What moved the stock: `api` (an inventory update), `build_run` (a run\'s picks), `build_run_reversal`, '
    + '`build_run_completion`, `build_run_completion_reversal`, `order_fulfilment` (a platform order\'s fulfilment).',
  values: MOVEMENT_SOURCES,
});

export const StockLevelChangeSourceEnum = builder.enumType('StockLevelChangeSource', {
  description: 'What changed a stock level: one of `InventoryAdjustmentSource` (bomcore moved it), or `platform` '
    + '(the platform changed a platform-linked material\'s level itself, e.g. a sale; seen through its webhook or a reconciliation).',
  values: LEVEL_CHANGE_SOURCES,
});
