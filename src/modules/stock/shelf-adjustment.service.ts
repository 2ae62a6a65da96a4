import { runSql } from '../../db/typed-sql.ts';
import { parseDecimalInput } from '../../kernel/decimals.ts';
import { DomainError, type FieldError, type MissingRef } from '../../kernel/domain-error.ts';
import { STRING_LIMITS } from '../../kernel/limits.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { assemblyBillExistsSql, bomSellsVariantSql } from '../boms/for-stock.ts';
import type { MaterialExistsSql } from './holders.ts';
import { adjustShelf } from './ledger.ts';
import { SHELF_ADJUSTMENT_REASONS, type ShelfAdjustmentReason } from './stock-vocabulary.ts';
import { stockSql } from './tables.ts';

// Counting a pre-assembled shelf: the one hand-made change of a shelf. Every other shelf movement
// comes from a build run (its completion and reversal), a QC review or an order's fulfilment.

export interface ShelfAdjustmentInput {
  itemId: string;
  locationId: string;
  /** Exactly one of `delta` (relative) and `absolute` (the counted level, >= 0). */
  delta?: string | null;
  absolute?: string | null;
  reason: ShelfAdjustmentReason;
  note?: string | null;
}

export interface ShelfAdjustmentView {
  /** The adjustment-history entry; null when the change moved nothing (nothing recorded). */
  adjustmentId: string | null;
  itemId: string;
  locationId: string;
  before: string;
  after: string;
  delta: string;
  reason: ShelfAdjustmentReason;
  note: string | null;
}

function validate(input: ShelfAdjustmentInput): { field: string; delta: ReturnType<typeof parseDecimalInput>; absolute: ReturnType<typeof parseDecimalInput> } {
  const errors: FieldError[] = [];
  const hasDelta = input.delta !== undefined && input.delta !== null;
  const hasAbsolute = input.absolute !== undefined && input.absolute !== null;
  if (hasDelta === hasAbsolute) errors.push({ field: hasDelta ? 'absolute' : 'delta', message: 'give exactly one of delta (a change) or absolute (the counted level)' });
  const delta = hasDelta ? parseDecimalInput(input.delta!, 'delta', errors) : null;
  const absolute = hasAbsolute ? parseDecimalInput(input.absolute!, 'absolute', errors, { nonNegative: true }) : null;
  if (!/^[0-9]+$/.test(input.locationId)) errors.push({ field: 'locationId', message: 'must be a bare numeric location id' });
  if (input.itemId.trim() === '') errors.push({ field: 'itemId', message: 'must not be empty' });
  if (!SHELF_ADJUSTMENT_REASONS.includes(input.reason)) errors.push({ field: 'reason', message: `must be one of ${SHELF_ADJUSTMENT_REASONS.join(', ')}` });
  if (input.note !== undefined && input.note !== null && input.note.length > STRING_LIMITS.text) errors.push({ field: 'note', message: `must be at most ${STRING_LIMITS.text} characters` });
  if (errors.length > 0) throw DomainError.invalidFields(errors);
  return { field: hasDelta ? 'delta' : 'absolute', delta, absolute };
}

/**
 * Adjusts one pre-assembled shelf (a finished good under its variant id, an assembly bill under its
 * id, or a material) at one location, in one transaction through the stock ledger: by `delta`, or to
 * the counted `absolute`. The change is in the adjustment history (`stock: preassembled`, source
 * `api`, with its reason and note) and sends `inventory.level_changed`. An unknown item or location
 * is NOT_FOUND (both named at once); a change that would take the shelf below zero is CONFLICT and
 * changes nothing. A constant number of round trips.
 */
export async function adjustPreassembledStock(ctx: ShopContext, input: ShelfAdjustmentInput, materialExists: MaterialExistsSql): Promise<ShelfAdjustmentView> {
  const { field, delta, absolute } = validate(input);
  return inShopTransaction(ctx, async (tx) => {
    const [[item], locations] = await Promise.all([
      runSql(tx.em, stockSql.selectNoFrom((eb) => eb.or([
        materialExists(tx.shopId, input.itemId), bomSellsVariantSql(tx.shopId, input.itemId), assemblyBillExistsSql(tx.shopId, input.itemId),
      ]).as('found'))),
      tx.platform.listLocations(),
    ]);
    const missing: MissingRef[] = [
      ...(item?.found === true ? [] : [{ kind: 'pre-assembled item', id: input.itemId }]),
      ...(locations.some((l) => l.locationId === input.locationId) ? [] : [{ kind: 'location', id: input.locationId }]),
    ];
    if (missing.length > 0) throw new DomainError('NOT_FOUND', `not found: ${missing.map((m) => `${m.kind} ${m.id}`).join(', ')}`, { missing });
    const note = input.note ?? null;
    const result = await adjustShelf(tx, { itemId: input.itemId, locationId: input.locationId, delta, absolute }, {
      source: 'api', workOrderId: null, buildRunId: null, reason: input.reason, note,
    }, field);
    return { ...result, itemId: input.itemId, locationId: input.locationId, reason: input.reason, note };
  });
}
