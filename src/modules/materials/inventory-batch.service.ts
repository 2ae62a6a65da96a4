import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Em } from '../../db/orm.ts';
import { DomainError, type ErrorCode, type FieldError } from '../../domain-error.ts';
import type { ShopContext } from '../../shop-context.ts';
import { isPlatformVariantId, readOnlyError } from './material-view.ts';
import { parseDecimalInput } from '../../decimals.ts';

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
  error: { code: ErrorCode; message: string } | null;
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
    throw new DomainError('INVALID_INPUT', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
  }
}

function failed(index: number, locationId: string, code: ErrorCode, message: string): InventoryRowResult {
  return {
    index, ok: false, id: null, locationId, skipped: false, previousAvailable: null, available: null,
    requestedDelta: null, appliedDelta: null, truncated: false, error: { code, message },
  };
}

/**
 * Applies a batch of level changes to a virtual material in one transaction with a constant number
 * of round trips: the touched levels are created if missing and locked (`for update`, in location
 * order), every change is computed exactly against the locked values (an `absolute` becomes a delta
 * here, so it is retry-safe), written back with one update and recorded with one insert into the
 * adjustment history. Concurrent batches on a level serialise on its row lock and lose nothing.
 */
export async function adjustMaterialInventory(ctx: ShopContext, variantId: string, updates: readonly InventoryUpdateInput[]): Promise<InventoryBatchResult> {
  if (isPlatformVariantId(variantId)) throw readOnlyError(variantId);
  const [[material], locations] = await Promise.all([
    ctx.em.execute<{ origin: string; allow_negative_inventory: boolean }[]>(
      `select m.origin, s.allow_negative_inventory from materials m join shops s on s.id = m.shop_id where m.shop_id = ? and m.variant_id = ?`,
      [ctx.shopId, variantId],
    ),
    ctx.platform.listLocations(),
  ]);
  if (!material) throw DomainError.notFound('raw material', variantId);
  if (material.origin === 'platform') throw readOnlyError(variantId);
  validateInventoryUpdates(variantId, updates);

  const known = new Set(locations.map((l) => l.locationId));
  const results: InventoryRowResult[] = updates.map((u, index) =>
    known.has(u.locationId) ? (null as unknown as InventoryRowResult) : failed(index, u.locationId, 'NOT_FOUND', `location ${u.locationId} not found`));
  const applicable = updates.map((u, index) => ({ ...u, index })).filter((u) => !results[u.index]);
  if (applicable.length === 0) {
    collapse(results);
    return { variantId, results, okCount: 0, failedCount: results.length, skippedCount: 0 };
  }

  const allowNegative = material.allow_negative_inventory;
  const touched = [...new Set(applicable.map((u) => u.locationId))].sort();
  await ctx.em.transactional(async (txEm) => {
    const em = txEm as Em;
    await em.execute(
      `insert into material_levels (shop_id, variant_id, location_id, available) values ${touched.map(() => '(?, ?, ?, 0)').join(', ')}
       on conflict do nothing`,
      touched.flatMap((l) => [ctx.shopId, variantId, l]), 'run',
    );
    const locked = await em.execute<{ location_id: string; available: string }[]>(
      `select location_id, available from material_levels where shop_id = ? and variant_id = ? and location_id in (?)
        order by location_id for update`,
      [ctx.shopId, variantId, touched],
    );
    const level = new Map(locked.map((r) => [r.location_id, new Decimal(r.available)]));
    const history: unknown[][] = [];
    const now = new Date();
    for (const u of applicable) {
      const before = level.get(u.locationId) ?? new Decimal(0);
      const requested = u.absolute !== undefined && u.absolute !== null ? new Decimal(u.absolute).minus(before) : new Decimal(u.delta!);
      let after = before.plus(requested);
      // Clamp at zero: a decrease stops at 0 (or where the level already was, if below 0).
      if (!allowNegative && requested.isNegative() && after.isNegative()) after = Decimal.min(before, 0);
      const applied = after.minus(before);
      const base = {
        index: u.index, ok: true, locationId: u.locationId, previousAvailable: before.toFixed(), available: after.toFixed(),
        requestedDelta: requested.toFixed(), appliedDelta: applied.toFixed(), truncated: !applied.eq(requested), error: null,
      };
      if (requested.isZero()) {
        results[u.index] = { ...base, id: null, skipped: true };
        continue;
      }
      const id = randomUUID();
      level.set(u.locationId, after);
      history.push([id, ctx.shopId, variantId, u.locationId, before.toFixed(), after.toFixed(), applied.toFixed(), requested.toFixed(), 'api', ctx.requestId, ctx.apiKeyId, now]);
      results[u.index] = { ...base, id, skipped: false };
    }
    if (history.length === 0) return;
    const changed = touched.filter((l) => history.some((h) => h[3] === l));
    await em.execute(
      `update material_levels m set available = v.available::numeric
         from (values ${changed.map(() => '(?, ?)').join(', ')}) as v(location_id, available)
        where m.shop_id = ? and m.variant_id = ? and m.location_id = v.location_id`,
      [...changed.flatMap((l) => [l, level.get(l)!.toFixed()]), ctx.shopId, variantId], 'run',
    );
    await em.execute(
      `insert into inventory_adjustments (id, shop_id, variant_id, location_id, before, after, delta, requested_delta, source, request_id, api_key_id, created_at)
       values ${history.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      history.flat(), 'run',
    );
  });
  const okCount = results.filter((r) => r.ok && !r.skipped).length;
  const skippedCount = results.filter((r) => r.skipped).length;
  return { variantId, results, okCount, failedCount: results.length - okCount - skippedCount, skippedCount };
}

/** Every row failed: when they share one error, the batch is that request-level error (api-v1.md rule 7). */
function collapse(results: InventoryRowResult[]): void {
  const codes = new Set(results.map((r) => r.error!.code));
  if (codes.size === 1 && codes.has('NOT_FOUND')) {
    const ids = [...new Set(results.map((r) => r.locationId))];
    throw new DomainError('NOT_FOUND', `location${ids.length > 1 ? 's' : ''} ${ids.join(', ')} not found`, {
      missing: ids.map((id) => ({ kind: 'location', id })),
    });
  }
}
