import type { Exact } from '../../kernel/numbers/index.ts';
import type { MovementSourceKind, ShelfAdjustmentReason, StockKind } from './stock-vocabulary.ts';

// The shapes of one stock movement, shared by the ledger (src/modules/stock/ledger.ts), which writes
// them, and the event and outbox code that describes them: apart, so neither imports the other.

/** Who moved stock, written into the adjustment history. */
export interface MovementSource {
  source: MovementSourceKind;
  workOrderId: string | null;
  buildRunId: string | null;
  /** The platform order and fulfilment of an order fulfilment's consumption. */
  orderId?: string | null;
  fulfilmentId?: string | null;
  /** Why a shelf was adjusted by hand, and the note written with it. */
  reason?: ShelfAdjustmentReason | null;
  note?: string | null;
}

/** One level's move as the adjustment history and its `inventory.level_changed` event record it. */
export interface AdjustmentRecord { stock: StockKind; itemId: string; locationId: string; before: Exact; after: Exact; applied: Exact; requested: Exact; id?: string }
