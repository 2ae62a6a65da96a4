import { randomUUID } from 'node:crypto';
import { sql, type AliasedRawBuilder } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { Exact, exact, ZERO } from '../../kernel/numbers/index.ts';
import { textArrayLiteral as arrayLiteral } from '../../db/sql-arrays.ts';
import { isPlatformVariantId, type StockKind } from './stock-vocabulary.ts';
import type { AdjustmentRecord, MovementSource } from './movements.ts';
import { enqueuePlatformPushes, platformPushesInsert, type NewPlatformPush } from './platform-push.repository.ts';
import { stockSql } from './tables.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { inventoryLevelEvents } from './stock-events.ts';
import { recordEvents } from '../events/event-log.ts';
import { enqueueStorefrontRecomputes, storefrontRecomputesInsert } from '../boms/for-stock.ts';
import { composedStatement, statementPart, type StatementPart } from '../../db/statement-parts.ts';

// The stock ledger: every movement of stock goes through here — material levels (the service's
// own for virtual materials, the outbox for platform-linked ones), pre-assembled shelves, the
// residual carry and the adjustment history. Callers hand in a transaction-bound shop context
// (see `inShopTransaction`); each function costs a constant number of round trips.

export type { StockKind };
export type { AdjustmentRecord, MovementSource } from './movements.ts';

export interface ConsumeRequest { stock: StockKind; itemId: string; locationId: string; quantity: Exact }

/** What one consumption did: the carry received `quantity`, `carriedWhole` left the books, `deducted` left the level. */
export interface ConsumedPick {
  stock: StockKind;
  itemId: string;
  locationId: string;
  /** Exact to 6 fractional digits (stored consumption is micro-unit exact). */
  quantity: string;
  carriedWhole: string;
  deducted: string;
  before: string;
  after: string;
  /** Units the level could not give (clamped at zero), or the level's deficit when negatives are allowed. */
  shortfall: string;
}

/** A stored pick to undo. `carriedWhole`/`deducted` are null for runs loaded from a dataset. */
export interface StoredPick { stock: StockKind; itemId: string; locationId: string; quantity: string; carriedWhole: string | null; deducted: string | null }

interface Slot { stock: StockKind; itemId: string; locationId: string }
const slotKey = (s: Slot) => `${s.stock}|${s.itemId}|${s.locationId}`;

/**
 * `unnest(…) as alias(columns)`: parallel lists (sent as PostgreSQL array literals, text or
 * numeric) as a table of rows, so a statement handles any number of slots.
 */
function unnestAs<C extends string, A extends string>(alias: A, columns: Record<C, readonly string[]>, numeric: readonly NoInfer<C>[] = []): AliasedRawBuilder<Record<C, string>, A> {
  const names = Object.keys(columns) as C[];
  return sql<Record<C, string>>`unnest(${sql.join(names.map((c) => sql`${arrayLiteral(columns[c])}::${sql.raw(numeric.includes(c) ? 'numeric' : 'text')}[]`))})`
    .as<A>(sql`${sql.raw(alias)}(${sql.join(names.map((c) => sql.raw(c)))})`);
}

/** Consumed quantities are stored with 6 fractional digits (half-up), like every stored quantity. */
export const toStoredQuantity = (value: Exact): Exact => value.toDecimalPlaces(6);

/**
 * Locks the residual rows (kind buildRun) of the slots, creating missing ones: every consumer of a
 * (stock item, location) serialises on that row, so concurrent runs never read the same level. One
 * statement: an insert whose conflict locks the existing row without writing it (`do update …
 * where false` locks every conflicting row and updates none; a row another transaction deletes
 * meanwhile is inserted again rather than skipped); rows are taken in (item, location) order, as
 * every consumer takes them, so two consumers never deadlock here. Their values are read by the
 * next statement (`readLocked`), which sees them as the last holder committed them.
 * The shelf rows of the pre-assembled slots are locked first, in the same statement (an init plan
 * of the insert, so before any residual): a build run's start locks the shelves it plans from
 * before it knows which residuals it needs, so every consumer takes a shelf before its residual —
 * a hand count (adjustShelf) or a completion that took the residual first would wait for a start
 * holding the shelf while that start waits for the residual (a deadlock).
 */
async function lockResiduals(em: Em, shopId: string, slots: readonly Slot[]): Promise<void> {
  const pairs = residualPairs(slots);
  const shelves = slots.filter((s) => s.stock === 'preassembled');
  let source = stockSql.selectFrom(unnestAs('r', { item_id: pairs.map((s) => s.itemId), location_id: pairs.map((s) => s.locationId) }))
    .select((eb) => [eb.val(shopId).as('shop_id'), 'r.item_id', 'r.location_id', sql.lit('buildRun').as('kind'), sql.lit(0).as('quantity')])
    .orderBy('r.item_id').orderBy('r.location_id');
  if (shelves.length > 0) {
    const shelfLocks = stockSql.selectFrom('preassembled_stock as p')
      .innerJoin(unnestAs('k', { item_id: shelves.map((s) => s.itemId), location_id: shelves.map((s) => s.locationId) }),
        (join) => join.onRef('k.item_id', '=', 'p.item_id').onRef('k.location_id', '=', 'p.location_id'))
      .select('p.item_id').where('p.shop_id', '=', shopId).orderBy('p.item_id').orderBy('p.location_id').forUpdate('p');
    // Uncorrelated: evaluated once, before the first row is inserted.
    source = source.where(sql<boolean>`(select count(*) from (${shelfLocks}) as shelf_locks) >= 0`);
  }
  await runSqlWrite(em, stockSql.insertInto('residuals').columns(['shop_id', 'item_id', 'location_id', 'kind', 'quantity'])
    .expression(source)
    .onConflict((oc) => oc.columns(['shop_id', 'item_id', 'location_id', 'kind']).doUpdateSet({ quantity: sql<string>`residuals.quantity` }).where(sql<boolean>`false`)));
}

/** The (item, location) pairs of the slots, once each. */
const residualPairs = (slots: readonly Slot[]): Slot[] => [...new Map(slots.map((s) => [`${s.itemId}|${s.locationId}`, s])).values()];

/**
 * What the slots hold, read after `lockResiduals`: their residuals (rows locked by it) and their
 * current levels — virtual levels locked for update, platform levels live (pending pushes
 * included), shelves locked. One statement when the platform's levels are in this database (the
 * port's `levelsSql`), else that statement and the port's `getLevels`.
 */
async function readLocked(ctx: ShopContext, slots: readonly Slot[]): Promise<{ residuals: Map<string, Exact>; levels: Map<string, Exact> }> {
  const levels = new Map<string, Exact>();
  const residuals = new Map<string, Exact>();
  const pairs = residualPairs(slots);
  const virtual = slots.filter((s) => s.stock === 'material' && !isPlatformVariantId(s.itemId));
  const platform = slots.filter((s) => s.stock === 'material' && isPlatformVariantId(s.itemId));
  const shelves = slots.filter((s) => s.stock === 'preassembled');
  const platformIds = [[...new Set(platform.map((s) => s.itemId))], [...new Set(platform.map((s) => s.locationId))]] as const;
  const platformSql = platform.length === 0 ? null : ctx.platform.levelsSql?.(...platformIds) ?? null;
  // Each part a select of (stock, item_id, location_id, available): the residuals (already locked), the levels
  // locked (or live); one statement for all.
  const parts = [
    sql`select 'residual' as stock, r.* from ${stockSql.selectFrom('residuals as r')
      .innerJoin(unnestAs('k', { item_id: pairs.map((s) => s.itemId), location_id: pairs.map((s) => s.locationId) }),
        (join) => join.onRef('k.item_id', '=', 'r.item_id').onRef('k.location_id', '=', 'r.location_id'))
      .select(['r.item_id', 'r.location_id', 'r.quantity as available'])
      .where('r.shop_id', '=', ctx.shopId).where('r.kind', '=', sql.lit('buildRun'))} as r`,
    ...(virtual.length === 0 ? [] : [sql`select 'material' as stock, v.* from ${stockSql.selectFrom('material_levels as l')
      .innerJoin(unnestAs('k', { item_id: virtual.map((s) => s.itemId), location_id: virtual.map((s) => s.locationId) }),
        (join) => join.onRef('k.item_id', '=', 'l.variant_id').onRef('k.location_id', '=', 'l.location_id'))
      .select(['l.variant_id as item_id', 'l.location_id', 'l.available'])
      .where('l.shop_id', '=', ctx.shopId).orderBy('l.variant_id').orderBy('l.location_id').forUpdate('l')} as v`]),
    ...(shelves.length === 0 ? [] : [sql`select 'preassembled' as stock, p.* from ${stockSql.selectFrom('preassembled_stock as p')
      .innerJoin(unnestAs('k', { item_id: shelves.map((s) => s.itemId), location_id: shelves.map((s) => s.locationId) }),
        (join) => join.onRef('k.item_id', '=', 'p.item_id').onRef('k.location_id', '=', 'p.location_id'))
      .select(['p.item_id', 'p.location_id', 'p.quantity as available'])
      .where('p.shop_id', '=', ctx.shopId).orderBy('p.item_id').orderBy('p.location_id').forUpdate('p')} as p`]),
    ...(platformSql === null ? [] : [sql`select 'material' as stock, l.variant_id as item_id, l.location_id, l.available from ${platformSql} as l`]),
  ];
  const [rows, platformRows] = await Promise.all([
    runSql(ctx.em, stockSql.selectFrom(sql<{ stock: StockKind | 'residual'; item_id: string; location_id: string; available: string }>`(${sql.join(parts, sql` union all `)})`.as('x')).selectAll()),
    platform.length === 0 || platformSql !== null ? [] : ctx.platform.getLevels(...platformIds)
      .then((found) => found.map((r) => ({ stock: 'material' as const, item_id: r.variantId, location_id: r.locationId, available: r.available }))),
  ]);
  for (const r of [...rows, ...platformRows]) {
    if (r.stock === 'residual') residuals.set(`${r.item_id}|${r.location_id}`, exact(r.available));
    else levels.set(`${r.stock}|${r.item_id}|${r.location_id}`, exact(r.available));
  }
  return { residuals, levels };
}

interface LevelChange { slot: Slot; before: Exact; after: Exact; applied: Exact; requested: Exact; id?: string }

/**
 * Writes what a stock move decided, in one statement: the new residual values of the slots (rows
 * exist: lockResiduals made them; a residual of zero is no residual, its row goes: it only served
 * as the slot's lock), the level changes (virtual levels, shelves, outbox pushes for platform
 * levels), the storefront markers of what they touch, and their history (with its events, written
 * with the transaction's). Each part is its owner's query (src/db/statement-parts.ts).
 */
async function writeMoves(ctx: ShopContext, residuals: ReadonlyMap<string, Exact>, changes: readonly LevelChange[], by: MovementSource): Promise<void> {
  const parts: StatementPart[] = [];
  if (residuals.size > 0) parts.push(...residualParts(ctx.shopId, residuals));
  const moved = changes.filter((c) => !c.applied.isZero() || !c.requested.isZero());
  const later: Promise<unknown>[] = [];
  if (moved.length > 0) {
    const virtual = moved.filter((c) => c.slot.stock === 'material' && !isPlatformVariantId(c.slot.itemId) && !c.applied.isZero());
    const shelves = moved.filter((c) => c.slot.stock === 'preassembled' && !c.applied.isZero());
    const pushes: NewPlatformPush[] = moved
      .filter((c) => c.slot.stock === 'material' && isPlatformVariantId(c.slot.itemId) && !c.applied.isZero())
      .map((c) => ({
        variantId: c.slot.itemId, locationId: c.slot.locationId, delta: c.applied.toFixed(), workOrderId: by.workOrderId, buildRunId: by.buildRunId, orderId: by.orderId ?? null, reason: by.source,
      }));
    if (virtual.length > 0) {
      parts.push(statementPart('ledger_levels', stockSql.insertInto('material_levels').columns(['shop_id', 'variant_id', 'location_id', 'available'])
        .expression(stockSql.selectFrom(unnestAs('v', {
          item_id: virtual.map((c) => c.slot.itemId), location_id: virtual.map((c) => c.slot.locationId), delta: virtual.map((c) => c.applied.toFixed()),
        }, ['delta'])).select((eb) => [eb.val(ctx.shopId).as('shop_id'), 'v.item_id', 'v.location_id', 'v.delta']))
        .onConflict((oc) => oc.columns(['shop_id', 'variant_id', 'location_id'])
          .doUpdateSet({ available: sql<string>`material_levels.available + excluded.available` }))));
    }
    if (shelves.length > 0) {
      parts.push(statementPart('ledger_shelves', stockSql.insertInto('preassembled_stock').columns(['shop_id', 'item_id', 'location_id', 'quantity'])
        .expression(stockSql.selectFrom(unnestAs('v', {
          item_id: shelves.map((c) => c.slot.itemId), location_id: shelves.map((c) => c.slot.locationId), delta: shelves.map((c) => c.applied.toFixed()),
        }, ['delta'])).select((eb) => [eb.val(ctx.shopId).as('shop_id'), 'v.item_id', 'v.location_id', 'v.delta']))
        .onConflict((oc) => oc.columns(['shop_id', 'item_id', 'location_id'])
          .doUpdateSet({ quantity: sql<string>`preassembled_stock.quantity + excluded.quantity` }))));
    }
    if (pushes.length > 0) {
      const insert = platformPushesInsert(ctx.shopId, pushes);
      if (insert) parts.push(statementPart('ledger_pushes', insert));
      else later.push(enqueuePlatformPushes(ctx.em, ctx.shopId, pushes));
    }
    // The finished goods whose storefront level follows these items (their shelves, their components).
    const marker = storefrontRecomputesInsert(ctx.shopId, { items: moved.filter((c) => !c.applied.isZero()).map((c) => c.slot.itemId) });
    if (marker) parts.push(statementPart('ledger_storefront', marker));
    const history = await adjustmentsInsert(ctx, moved.map((c) => ({
      stock: c.slot.stock, itemId: c.slot.itemId, locationId: c.slot.locationId, before: c.before, after: c.after, applied: c.applied, requested: c.requested,
      ...(c.id ? { id: c.id } : {}),
    })), by, new Date());
    parts.push(statementPart('ledger_history', history.insert));
  }
  await Promise.all([parts.length === 0 ? null : runSqlWrite(ctx.em, composedStatement(parts)), ...later]);
}

/**
 * Appends to the adjustment history (one insert for the batch) and records an
 * `inventory.level_changed` event per level that moved (written with the transaction's events,
 * no statement of its own); returns the ids in order.
 */
export async function recordAdjustments(ctx: ShopContext, records: readonly AdjustmentRecord[], by: MovementSource, at = new Date()): Promise<string[]> {
  if (records.length === 0) return [];
  const { ids, insert } = await adjustmentsInsert(ctx, records, by, at);
  await runSqlWrite(ctx.em, insert);
  return ids;
}

/** The history insert of `recordAdjustments` (its events recorded), for the caller to send. */
async function adjustmentsInsert(ctx: ShopContext, records: readonly AdjustmentRecord[], by: MovementSource, at: Date) {
  const ids = records.map((r) => r.id ?? randomUUID());
  await recordEvents(ctx, inventoryLevelEvents(records, ids, by));
  return {
    ids,
    insert: stockSql.insertInto('inventory_adjustments').values(records.map((r, i) => ({
      id: ids[i]!, shop_id: ctx.shopId, variant_id: r.itemId, location_id: r.locationId, before: r.before.toFixed(), after: r.after.toFixed(),
      delta: r.applied.toFixed(), requested_delta: r.requested.toFixed(), source: by.source, stock: r.stock, work_order_id: by.workOrderId,
      build_run_id: by.buildRunId, order_id: by.orderId ?? null, fulfilment_id: by.fulfilmentId ?? null,
      reason: by.reason ?? null, note: by.note ?? null, request_id: ctx.requestId, api_key_id: ctx.apiKeyId, created_at: at,
    }))),
  };
}

/** The new residual values of the slots: zeros deleted, the others updated (parts of `writeMoves`). */
function residualParts(shopId: string, residuals: ReadonlyMap<string, Exact>): StatementPart[] {
  const entries = [...residuals.entries()].map(([key, value]) => [...key.split('|'), value.toFixed()] as [string, string, string]);
  const values = stockSql.selectFrom(unnestAs('v', {
    item_id: entries.map((e) => e[0]), location_id: entries.map((e) => e[1]), quantity: entries.map((e) => e[2]),
  }, ['quantity'])).selectAll();
  return [
    statementPart('ledger_residual_values', values),
    statementPart('ledger_residuals_gone', stockSql.with('ledger_residual_values', () => values).deleteFrom('residuals as r').using('ledger_residual_values as v')
      .where('r.shop_id', '=', shopId).where('r.kind', '=', sql.lit('buildRun')).whereRef('r.item_id', '=', 'v.item_id')
      .whereRef('r.location_id', '=', 'v.location_id').where(sql<boolean>`v.quantity = 0`), ['ledger_residual_values']),
    statementPart('ledger_residuals_kept', stockSql.with('ledger_residual_values', () => values).updateTable('residuals as r').from('ledger_residual_values as v')
      .set((eb) => ({ quantity: eb.ref('v.quantity') }))
      .where('r.shop_id', '=', shopId).where('r.kind', '=', sql.lit('buildRun')).whereRef('r.item_id', '=', 'v.item_id')
      .whereRef('r.location_id', '=', 'v.location_id').where(sql<boolean>`v.quantity <> 0`), ['ledger_residual_values']),
  ];
}

/** One entry per slot (quantities — and a `clamped` figure, when present — summed), in lock order. */
function mergeSlots<T extends Slot & { quantity: Exact; clamped?: Exact }>(requests: readonly T[]): T[] {
  const merged = new Map<string, T>();
  for (const r of requests) {
    const key = slotKey(r);
    const known = merged.get(key);
    merged.set(key, known
      ? { ...known, quantity: known.quantity.plus(r.quantity), ...(r.clamped ? { clamped: (known.clamped ?? ZERO).plus(r.clamped) } : {}) }
      : { ...r });
  }
  return [...merged.values()].sort((a, b) => (slotKey(a) < slotKey(b) ? -1 : 1));
}

/**
 * Consumes stock through the residual carry: `c` units of an item at a location add `c` to its
 * buildRun residual, the whole part leaves the level and the fraction stays (three 0.4 builds:
 * 0, 0, 1 deducted, 0.2 carried). A deduction that would go below zero clamps at zero unless the
 * shop allows negative inventory; the shortfall is reported either way.
 */
export async function consumeStock(ctx: ShopContext, requests: readonly ConsumeRequest[], by: MovementSource, allowNegative: boolean): Promise<ConsumedPick[]> {
  const slots = mergeSlots(requests.map((r) => ({ ...r, quantity: toStoredQuantity(r.quantity) }))).filter((r) => r.quantity.gt(0));
  if (slots.length === 0) return [];
  await lockResiduals(ctx.em, ctx.shopId, slots);
  const { residuals, levels } = await readLocked(ctx, slots);
  const newResiduals = new Map<string, Exact>();
  const changes: LevelChange[] = [];
  const picks = slots.map((slot) => {
    const carried = (residuals.get(`${slot.itemId}|${slot.locationId}`) ?? ZERO).plus(slot.quantity);
    const whole = carried.floor();
    newResiduals.set(`${slot.itemId}|${slot.locationId}`, carried.minus(whole));
    const before = levels.get(slotKey(slot)) ?? ZERO;
    let deducted = whole;
    if (!allowNegative && before.minus(whole).isNegative()) deducted = before.isNegative() ? ZERO : before;
    const after = before.minus(deducted);
    // Clamped: what the level could not give. Negatives allowed: how far this deduction took it below zero.
    const shortfall = allowNegative ? (after.isNegative() ? Exact.min(deducted, after.negated()) : ZERO) : whole.minus(deducted);
    if (!whole.isZero()) changes.push({ slot, before, after, applied: deducted.negated(), requested: whole.negated() });
    return {
      stock: slot.stock, itemId: slot.itemId, locationId: slot.locationId, quantity: slot.quantity.toFixed(), carriedWhole: whole.toFixed(),
      deducted: deducted.toFixed(), before: before.toFixed(), after: after.toFixed(), shortfall: shortfall.toFixed(),
    };
  });
  await writeMoves(ctx, newResiduals, changes, by);
  return picks;
}

/**
 * Undoes consumptions exactly: each pick's quantity leaves the residual again; when the residual
 * would go below zero, whole units come back from the books (as many as the carry took), and the
 * level gets back what really left it (units a clamp kept on the level are not returned twice).
 */
export async function returnStock(ctx: ShopContext, picks: readonly StoredPick[], by: MovementSource): Promise<void> {
  const slots = mergeSlots(picks.map((p) => ({
    stock: p.stock, itemId: p.itemId, locationId: p.locationId, quantity: exact(p.quantity),
    // Units a clamp kept on the level were never taken, so they are not given back.
    clamped: p.carriedWhole === null || p.deducted === null ? ZERO : exact(p.carriedWhole).minus(p.deducted),
  })));
  if (slots.length === 0) return;
  await lockResiduals(ctx.em, ctx.shopId, slots);
  const { residuals, levels } = await readLocked(ctx, slots);
  const newResiduals = new Map<string, Exact>();
  const changes: LevelChange[] = [];
  for (const slot of slots) {
    const rest = (residuals.get(`${slot.itemId}|${slot.locationId}`) ?? ZERO).minus(slot.quantity);
    const wholeBack = rest.isNegative() ? rest.negated().ceil() : ZERO;
    newResiduals.set(`${slot.itemId}|${slot.locationId}`, rest.plus(wholeBack));
    const giveBack = wholeBack.minus(slot.clamped);
    const applied = giveBack.isNegative() ? ZERO : giveBack;
    const before = levels.get(slotKey(slot)) ?? ZERO;
    if (!wholeBack.isZero()) changes.push({ slot, before, after: before.plus(applied), applied, requested: wholeBack });
  }
  await writeMoves(ctx, newResiduals, changes, by);
}

export interface ShelfChange { itemId: string; locationId: string; delta: Exact }

/**
 * Adds built units to pre-assembled shelves (a completed run's output) or takes them back (its
 * reversal). A take-back clamps at zero unless negatives are allowed; returns the shortfalls.
 */
export async function changeShelves(ctx: ShopContext, entries: readonly ShelfChange[], by: MovementSource, allowNegative: boolean): Promise<ConsumedPick[]> {
  const slots = mergeSlots(entries.map((e) => ({ stock: 'preassembled' as const, itemId: e.itemId, locationId: e.locationId, quantity: e.delta })));
  if (slots.length === 0) return [];
  await lockResiduals(ctx.em, ctx.shopId, slots);
  const { residuals, levels } = await readLocked(ctx, slots);
  const changes: LevelChange[] = [];
  const result = slots.map((slot) => {
    const before = levels.get(slotKey(slot)) ?? ZERO;
    let applied = slot.quantity;
    if (!allowNegative && before.plus(applied).isNegative()) applied = before.isNegative() ? ZERO : before.negated();
    const after = before.plus(applied);
    changes.push({ slot, before, after, applied, requested: slot.quantity });
    return {
      stock: slot.stock, itemId: slot.itemId, locationId: slot.locationId, quantity: slot.quantity.toFixed(), carriedWhole: slot.quantity.toFixed(),
      deducted: applied.toFixed(), before: before.toFixed(), after: after.toFixed(), shortfall: applied.minus(slot.quantity).abs().toFixed(),
    };
  });
  await writeMoves(ctx, residuals, changes, by);
  return result;
}

export interface ShelfAdjustment { itemId: string; locationId: string; delta?: Exact | null; absolute?: Exact | null }
export interface ShelfAdjustmentResult { adjustmentId: string | null; before: string; after: string; delta: string }

/**
 * Sets or moves one pre-assembled shelf by hand (a count, damaged or found units): the shelf is
 * locked like every consumer locks it (the shelf row, then its residual row), an `absolute` becomes
 * a delta against the locked value, and the change is recorded in the adjustment history with its
 * reason and note (and its `inventory.level_changed` event). A shelf never goes below zero, whatever
 * the shop allows for material levels: a change that would take it there is refused (CONFLICT,
 * naming the field) and nothing is written. A change of zero records nothing (`adjustmentId` null).
 * Three round trips.
 */
export async function adjustShelf(ctx: ShopContext, change: ShelfAdjustment, by: MovementSource, field: string): Promise<ShelfAdjustmentResult> {
  const slot: Slot = { stock: 'preassembled', itemId: change.itemId, locationId: change.locationId };
  await lockResiduals(ctx.em, ctx.shopId, [slot]);
  const { residuals, levels } = await readLocked(ctx, [slot]);
  const before = levels.get(slotKey(slot)) ?? ZERO;
  const delta = change.absolute !== undefined && change.absolute !== null ? change.absolute.minus(before) : change.delta!;
  const after = before.plus(delta);
  if (after.isNegative()) {
    const message = `would take the shelf of ${change.itemId} at location ${change.locationId} from ${before.toFixed()} to ${after.toFixed()}; a shelf cannot go below zero`;
    throw new DomainError('CONFLICT', `${field}: ${message}`, { errors: [{ field, message }] });
  }
  if (delta.isZero()) {
    await writeMoves(ctx, residuals, [], by);
    return { adjustmentId: null, before: before.toFixed(), after: after.toFixed(), delta: '0' };
  }
  const id = randomUUID();
  await writeMoves(ctx, residuals, [{ slot, before, after, applied: delta, requested: delta, id }], by);
  return { adjustmentId: id, before: before.toFixed(), after: after.toFixed(), delta: delta.toFixed() };
}

export interface LevelUpdate { locationId: string; delta?: string | null; absolute?: string | null }
export interface LevelUpdateResult { index: number; adjustmentId: string | null; before: string; after: string; requested: string; applied: string }

/**
 * Level changes of one virtual material, applied in order (rows on one location compound): the
 * touched levels are created if missing and locked (`for update`, in location order), each change
 * is computed exactly against the locked value (an `absolute` becomes a delta here, so a retry
 * after a lost response does not move stock again), decreases clamp at zero unless negatives are
 * allowed, and every applied change is recorded in the adjustment history. A change of zero is
 * skipped (`adjustmentId` null). Four round trips whatever the number of rows.
 */
export async function adjustVirtualLevels(ctx: ShopContext, variantId: string, updates: readonly LevelUpdate[], allowNegative: boolean): Promise<LevelUpdateResult[]> {
  const touched = [...new Set(updates.map((u) => u.locationId))].sort();
  await runSqlWrite(ctx.em, stockSql.insertInto('material_levels').columns(['shop_id', 'variant_id', 'location_id', 'available'])
    .expression(stockSql.selectFrom(sql<{ l: string }>`unnest(${arrayLiteral(touched)}::text[])`.as('l'))
      .select((eb) => [eb.val(ctx.shopId).as('shop_id'), eb.val(variantId).as('variant_id'), 'l', sql.lit(0).as('available')]))
    .onConflict((oc) => oc.doNothing()));
  const locked = await runSql(ctx.em, stockSql.selectFrom('material_levels').select(['location_id', 'available'])
    .where('shop_id', '=', ctx.shopId).where('variant_id', '=', variantId).where(sql<boolean>`location_id = any(${arrayLiteral(touched)}::text[])`)
    .orderBy('location_id').forUpdate());
  const level = new Map(locked.map((r) => [r.location_id, exact(r.available)]));
  const records: AdjustmentRecord[] = [];
  const results = updates.map((u, index): LevelUpdateResult => {
    const before = level.get(u.locationId) ?? ZERO;
    const requested = u.absolute !== undefined && u.absolute !== null ? exact(u.absolute).minus(before) : exact(u.delta!);
    let after = before.plus(requested);
    // Clamp at zero: a decrease stops at 0 (or where the level already was, if below 0).
    if (!allowNegative && requested.isNegative() && after.isNegative()) after = Exact.min(before, 0);
    const applied = after.minus(before);
    let adjustmentId: string | null = null;
    if (!requested.isZero()) {
      adjustmentId = randomUUID();
      level.set(u.locationId, after);
      records.push({ id: adjustmentId, stock: 'material', itemId: variantId, locationId: u.locationId, before, after, applied, requested });
    }
    return { index, adjustmentId, before: before.toFixed(), after: after.toFixed(), requested: requested.toFixed(), applied: applied.toFixed() };
  });
  if (records.length === 0) return results;
  const changed = touched.filter((l) => records.some((r) => r.locationId === l));
  await Promise.all([
    runSqlWrite(ctx.em, stockSql.updateTable('material_levels as m')
      .from(unnestAs('v', { location_id: changed, available: changed.map((l) => level.get(l)!.toFixed()) }, ['available']))
      .set((eb) => ({ available: eb.ref('v.available') }))
      .where('m.shop_id', '=', ctx.shopId).where('m.variant_id', '=', variantId).whereRef('m.location_id', '=', 'v.location_id')),
    recordAdjustments(ctx, records, { source: 'api', workOrderId: null, buildRunId: null }),
    enqueueStorefrontRecomputes(ctx.em, ctx.shopId, { items: [variantId] }),
  ]);
  return results;
}
