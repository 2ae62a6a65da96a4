import {
  COMMITMENT_HOLDER_TYPES, LEVEL_CHANGE_SOURCES, MOVEMENT_SOURCES, SHELF_ADJUSTMENT_REASONS, SHELF_ITEM_TYPES, STOCK_KINDS,
} from '../../../src/modules/stock/stock-vocabulary.ts';
import { builder } from '../../builder.ts';

// The stock vocabulary as GraphQL enums (values from src/modules/stock/stock-vocabulary.ts): every
// field and argument that takes or gives one of these sets has this type.

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
    + '`build_run_completion`, `build_run_completion_reversal`, `order_fulfilment` (a platform order\'s fulfilment), '
    + '`qc_review` (a QC review failed units of a completed run: they left the shelf). A shelf counted by hand is `api` with a reason.',
  values: MOVEMENT_SOURCES,
});

export const StockLevelChangeSourceEnum = builder.enumType('StockLevelChangeSource', {
  description: 'What changed a stock level: one of `InventoryAdjustmentSource` (bomcore moved it), or `platform` '
    + '(the platform changed a platform-linked material\'s level itself, e.g. a sale; seen through its webhook or a reconciliation).',
  values: LEVEL_CHANGE_SOURCES,
});

export const PreassembledAdjustmentReasonEnum = builder.enumType('PreassembledAdjustmentReason', {
  description: 'Why a pre-assembled shelf was adjusted by hand: `count` (the warehouse counted it), `damaged`, `lost`, '
    + '`found` (units turned up), `correction` (an earlier mistake put right).',
  values: SHELF_ADJUSTMENT_REASONS,
});
