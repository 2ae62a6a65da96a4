// The one home of the stock vocabulary: what stock a movement takes (materials or pre-assembled
// shelves), who moved it, residual and reservation kinds, the items a shelf holds and the holders of
// a commitment. Entities, services, dataset code and the GraphQL schema import these (the schema's
// enums are built from them in schema/types/materials/enums.ts); nothing else spells them.

import { BILL_OWNER_TYPES } from '../boms/recipe-vocabulary.ts';

/** What a pick or a consumption takes: a material level, or an assembly bill's pre-assembled shelf. */
export const STOCK_KINDS = ['material', 'preassembled'] as const;
export type StockKind = (typeof STOCK_KINDS)[number];

/**
 * Who moved a level, written into the adjustment history: an inventory update or a shelf count
 * (`api`), a build run's picks, their reversal, a run's completion and the completion's reversal,
 * the consumption of a platform order's fulfilment (`order_fulfilment`: pre-assembled units, then
 * components), and a QC review that failed units of a completed run (`qc_review`: they leave the shelf).
 */
export const MOVEMENT_SOURCES = [
  'api', 'build_run', 'build_run_reversal', 'build_run_completion', 'build_run_completion_reversal', 'order_fulfilment', 'qc_review',
] as const;
export type MovementSourceKind = (typeof MOVEMENT_SOURCES)[number];

/**
 * What an `inventory.level_changed` event names as its cause: a movement of the ledger, or
 * `platform`, a level of a platform-linked material the platform itself changed (a sale, an edit
 * in the platform's admin), taken from a webhook or a reconciliation read. Not in the adjustment
 * history: bomcore did not move that stock.
 */
export const LEVEL_CHANGE_SOURCES = [...MOVEMENT_SOURCES, 'platform'] as const;
export type LevelChangeSource = (typeof LEVEL_CHANGE_SOURCES)[number];

/**
 * Why a pre-assembled shelf was adjusted by hand, written into the adjustment history with the
 * change: a count (the warehouse counted the shelf), units damaged or lost, units found, or a
 * correction of an earlier mistake.
 */
export const SHELF_ADJUSTMENT_REASONS = ['count', 'damaged', 'lost', 'found', 'correction'] as const;
export type ShelfAdjustmentReason = (typeof SHELF_ADJUSTMENT_REASONS)[number];

export const RESIDUAL_KINDS = ['buildRun', 'safetyStock'] as const;
export type ResidualKind = (typeof RESIDUAL_KINDS)[number];

export const RESERVATION_KINDS = ['order', 'safetyStock'] as const;

/** The location of an order reservation whose line has no fulfilment location yet (the commitments read's `totals.unlocated`). */
export const UNLOCATED = '';
export type ReservationKind = (typeof RESERVATION_KINDS)[number];

/** What a pre-assembled shelf holds: a variant (finished good or material) or an assembly bill. */
export const SHELF_ITEM_TYPES = ['variant', 'assemblyBill'] as const;
export type ShelfItemType = (typeof SHELF_ITEM_TYPES)[number];

/** Who holds a commitment: an order (its open quantity), or the bill behind a safety-stock hold. */
export const COMMITMENT_HOLDER_TYPES = ['order', ...BILL_OWNER_TYPES] as const;
export type CommitmentHolderType = (typeof COMMITMENT_HOLDER_TYPES)[number];

/** Numeric variant ids are platform-linked (levels live on the platform); `VMAT-…` ids are virtual. */
export function isPlatformVariantId(variantId: string): boolean {
  return /^[0-9]+$/.test(variantId);
}
