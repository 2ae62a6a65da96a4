import { DomainError, type FieldError, type UserErrorCode } from '../../kernel/domain-error.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { adjustVirtualLevels } from '../stock/ledger.ts';
import { runSql } from '../../db/typed-sql.ts';
import { shopAllowsNegativeInventory } from '../shops/for-materials.ts';
import { foundOr404, materialById, readOnlyError } from './material-view.ts';
import { parseDecimalInput } from '../../kernel/decimals.ts';

export interface InventoryUpdateInput {
  locationId: string;
  absolute?: string | null;
  delta?: string | null;
  variantId?: string | null;
}

export interface InventoryRowResult {
  index: number;
  ok: boolean;
  /** The adjustment-history id of an applied change. */
  id: string | null;
  locationId: string;
  skipped: boolean;
  previousAvailable: string | null;
  available: string | null;
  requestedDelta: string | null;
  appliedDelta: string | null;
  truncated: boolean;
  error: { code: UserErrorCode; message: string } | null;
}

export interface InventoryBatchResult { variantId: string; results: InventoryRowResult[]; okCount: number; failedCount: number; skippedCount: number }


/**
 * Validates every row before anything changes. A malformed row (both or neither of delta/absolute,
 * a negative absolute, a variantId other than the path's, a bad number) fails the whole request with
 * 400 naming each bad field (`updates[2].absolute`); only conditions of the stored state (an unknown
 * location) are per-row failures.
 */
export function validateInventoryUpdates(variantId: string, updates: readonly InventoryUpdateInput[]): void {
  const errors: FieldError[] = [];
  if (updates.length === 0) errors.push({ field: 'updates', message: 'must hold at least one row' });
  updates.forEach((u, i) => {
    const at = `updates[${i}]`;
    const hasDelta = u.delta !== undefined && u.delta !== null;
    const hasAbsolute = u.absolute !== undefined && u.absolute !== null;
    if (hasDelta === hasAbsolute) errors.push({ field: at, message: 'must carry exactly one of delta or absolute' });
    if (hasDelta) parseDecimalInput(u.delta!, `${at}.delta`, errors);
    if (hasAbsolute) {
      const abs = parseDecimalInput(u.absolute!, `${at}.absolute`, errors);
      if (abs?.isNegative()) errors.push({ field: `${at}.absolute`, message: 'must be >= 0' });
    }
    if (!/^[0-9]+$/.test(u.locationId)) errors.push({ field: `${at}.locationId`, message: 'must be a bare numeric location id' });
    if (u.variantId !== undefined && u.variantId !== null && u.variantId !== variantId) {
      errors.push({ field: `${at}.variantId`, message: `must equal the path id ${variantId}` });
    }
  });
  if (errors.length > 0) {
    throw DomainError.invalidFields(errors);
  }
}

function failed(index: number, locationId: string, code: UserErrorCode, message: string): InventoryRowResult {
  return {
    index, ok: false, id: null, locationId, skipped: false, previousAvailable: null, available: null,
    requestedDelta: null, appliedDelta: null, truncated: false, error: { code, message },
  };
}

/**
 * Applies a batch of level changes to a virtual material in one transaction, through the stock
 * ledger (locked levels, exact arithmetic, clamping, adjustment history) with a constant number of
 * round trips. Concurrent batches on a level serialise on its row lock and lose nothing. An unknown
 * material is 404; a platform-linked one 400 (read-only), before anything changes.
 */
export async function adjustMaterialInventory(ctx: ShopContext, variantId: string, updates: readonly InventoryUpdateInput[]): Promise<InventoryBatchResult> {
  return inShopTransaction(ctx, async (tx) => {
    // Key-share-locked: a material PATCH setting its single level (which counts the levels under an
    // update lock) waits for this batch, so it never counts levels a batch is about to add. Not `for share`:
    // the level total the database keeps on the material's row (a trigger on the levels) updates the row,
    // and two batches each holding a share lock would then wait for each other.
    const [row] = await runSql(tx.em, materialById(tx.shopId, variantId)
      .select((eb) => shopAllowsNegativeInventory(eb.ref('m.shop_id')).as('allowNegative')).forKeyShare('m'));
    const material = foundOr404(row, variantId);
    if (material.origin === 'platform') throw readOnlyError(variantId);
    validateInventoryUpdates(variantId, updates);
    return applyInventoryUpdates(tx, variantId, updates, material.allowNegative === true);
  });
}

/**
 * Applies validated level changes of a virtual material inside the caller's transaction (which has
 * checked the material): rows at a location the platform does not list fail (all of them failing
 * alike is a 404), the others go through the ledger.
 */
export async function applyInventoryUpdates(
  tx: ShopContext, variantId: string, updates: readonly InventoryUpdateInput[], allowNegative: boolean,
): Promise<InventoryBatchResult> {
  const known = new Set((await tx.platform.listLocations()).map((l) => l.locationId));
  const results: InventoryRowResult[] = updates.map((u, index) =>
    known.has(u.locationId) ? (null as unknown as InventoryRowResult) : failed(index, u.locationId, 'NOT_FOUND', `location ${u.locationId} not found`));
  const applicable = updates.map((u, index) => ({ ...u, index })).filter((u) => !results[u.index]);
  if (applicable.length === 0) {
    collapse(results);
    return { variantId, results, okCount: 0, failedCount: results.length, skippedCount: 0 };
  }

  const applied = await adjustVirtualLevels(tx, variantId, applicable, allowNegative);
  for (const r of applied) {
    const u = applicable[r.index]!;
    results[u.index] = {
      index: u.index, ok: true, id: r.adjustmentId, locationId: u.locationId, skipped: r.adjustmentId === null,
      previousAvailable: r.before, available: r.after, requestedDelta: r.requested, appliedDelta: r.applied, truncated: r.applied !== r.requested, error: null,
    };
  }
  const okCount = results.filter((r) => r.ok && !r.skipped).length;
  const skippedCount = results.filter((r) => r.skipped).length;
  return { variantId, results, okCount, failedCount: results.length - okCount - skippedCount, skippedCount };
}

/** Every row failed: when they share one error, the batch is that request-level error (docs/contract.md). */
function collapse(results: InventoryRowResult[]): void {
  const codes = new Set(results.map((r) => r.error!.code));
  if (codes.size === 1 && codes.has('NOT_FOUND')) {
    const ids = [...new Set(results.map((r) => r.locationId))];
    throw new DomainError('NOT_FOUND', `location${ids.length > 1 ? 's' : ''} ${ids.join(', ')} not found`, {
      missing: ids.map((id) => ({ kind: 'location', id })),
    });
  }
}
