import { parseDecimalInput } from '../../kernel/decimals.ts';
import { DomainError, type FieldError, type MissingRef } from '../../kernel/domain-error.ts';
import { recordWorkOrderEvent } from './work-order-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { loadRecipeForest, planConsumption } from '../boms/engine/index.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import { buildRunSettings, buildRunSettingsJson, readBuildRunSettings } from '../shops/for-work-orders.ts';
import { shopAllowsNegative } from '../shops/shop-settings.ts';
import type { ShopPlan } from '../shops/shop-vocabulary.ts';
import { changeShelves, consumeStock, returnStock, type ConsumeRequest, type MovementSource } from '../stock/ledger.ts';
import { shelvesAt } from '../stock/levels.ts';
import { completionOutput, reversalOutput } from './shelf-output.ts';
import { buildRunViews, type BuildRunView, type BuildRunWarning } from './build-run-view.ts';
import { itemLocation } from './material-plan.service.ts';
import { buildRunShortId } from './short-ids.ts';
import { manualConsumedByRun, startedUnits, unitItems, unitRunItems, unitRuns, workOrderUnits } from './outstanding.ts';
import { blockedError } from './work-order-states.ts';
import { requireWorkOrder } from './work-order-read.service.ts';
import {
  addCompletedQuantities, insertRun, lockWorkOrderWith, loadParts, nextUpdatedAt, setRunStatus, touchWorkOrder, type ItemPart, type RunPart, type WorkOrderHeader, type WorkOrderParts,
} from './work-order.repository.ts';
import { WORK_ORDER_WARNINGS, type BuildRunType } from './work-order-vocabulary.ts';
import { buildRunAllowed } from './work-order-states.ts';
import { assertToken, lockForWrite, parseToken } from './write-guard.ts';

/** Starting a build run moves real stock: an operation of this plan (PLAN_REQUIRED on a shop of another). */
export const BUILD_RUN_PLAN: ShopPlan = 'enhanced';

export interface StartRunInput {
  expectedUpdatedAt: string;
  buildRunId: string;
  items: { itemId: string; quantity: string }[];
  mode: 'start';
  runType: BuildRunType;
  reworkItemIds: string[];
  note: string | null;
  actorUserId: string | null;
  actorDisplayName: string | null;
}

/** The run history of a work order, oldest first. */
export async function listBuildRuns(ctx: ShopContext, workOrderId: string): Promise<{ workOrderId: string; buildRuns: BuildRunView[] }> {
  const header = await requireWorkOrder(ctx, workOrderId);
  const parts = await loadParts(ctx.em, ctx.shopId, workOrderId, ['runs', 'runItems', 'picks'] as const);
  return { workOrderId, buildRuns: buildRunViews(parts.runs, parts.runItems, parts.picks, header.updatedAt) };
}

function validateStart(input: StartRunInput): Map<string, Exact> {
  const errors: FieldError[] = [];
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(input.buildRunId)) errors.push({ field: 'buildRunId', message: 'must be 1–128 characters of [A-Za-z0-9._:-]' });
  if (input.items.length === 0) errors.push({ field: 'items', message: 'must hold at least one item' });
  const quantities = new Map<string, Exact>();
  input.items.forEach((item, i) => {
    const q = parseDecimalInput(item.quantity, `items[${i}].quantity`, errors);
    if (q && !q.gt(0)) errors.push({ field: `items[${i}].quantity`, message: 'must be greater than 0' });
    if (q) quantities.set(item.itemId, (quantities.get(item.itemId) ?? ZERO).plus(q));
  });
  if (input.runType === 'rework' && input.reworkItemIds.length === 0) errors.push({ field: 'reworkItemIds', message: 'a rework run names the rework items it addresses' });
  if (input.runType !== 'rework' && input.reworkItemIds.length > 0) errors.push({ field: 'reworkItemIds', message: 'only a rework run names rework items' });
  if (errors.length > 0) throw DomainError.invalidFields(errors);
  return quantities;
}

/** The same id with other items (or another run type) is a different request: 409. */
function sameRequest(run: BuildRunView, runType: BuildRunType, quantities: ReadonlyMap<string, Exact>): boolean {
  if (run.runType !== runType || run.items.length !== quantities.size) return false;
  return run.items.every((i) => quantities.get(i.itemId)?.eq(i.quantity) === true);
}

/**
 * Starts a build run: consumes stock at once, in one transaction with the work order locked. At the
 * consumption location, each item's recipe (with that location's rules) is pushed down the tree,
 * assembly shelves first; every raw material goes through the residual carry; deductions clamp at
 * zero unless negatives are allowed, with a NEGATIVE_INVENTORY warning either way; platform-linked
 * deductions go to the outbox. `buildRunId` is an idempotency key: a run that exists is returned as
 * stored (moving nothing) whatever the token; the same id with other items is 409.
 */
export async function startBuildRun(ctx: ShopContext, workOrderId: string, input: StartRunInput): Promise<BuildRunView> {
  const expected = parseToken(input.expectedUpdatedAt);
  const quantities = validateStart(input);
  return inShopTransaction(ctx, async (tx) => {
    // The work order (locked) with the shop's settings: one statement.
    const found = await lockWorkOrderWith(tx.em, tx.shopId, workOrderId, buildRunSettingsJson(tx.shopId));
    // The plan first: a standard shop starts no run, whatever the work order (an unknown one, or a
    // replay of a stored run, included).
    const { plan: shopPlan, allowNegative } = found ? readBuildRunSettings(found.extra) : await buildRunSettings(tx.em, tx.shopId);
    if (shopPlan !== BUILD_RUN_PLAN) throw DomainError.planRequired('starting a build run', BUILD_RUN_PLAN, shopPlan);
    if (!found) throw DomainError.notFound('work order', workOrderId);
    const row = found.header;
    // What a start needs of it, one statement: the runs' keys only (their notes and warnings grow
    // with every run), the whole runs and their picks only when the run turns out to exist (a
    // replay), rework items only for a rework run.
    const parts = await loadParts(tx.em, tx.shopId, workOrderId, ['items', 'manual', 'runKeys', 'runItems', ...(input.runType === 'rework' ? ['reworkItems'] as const : [])] as const);
    if (parts.runKeys.some((r) => r.build_run_id === input.buildRunId)) {
      const { runs, picks } = await loadParts(tx.em, tx.shopId, workOrderId, ['runs', 'picks'] as const);
      const existing = buildRunViews(runs.filter((r) => r.build_run_id === input.buildRunId), parts.runItems, picks, row.updatedAt)[0]!;
      if (!sameRequest(existing, input.runType, quantities)) {
        throw new DomainError('CONFLICT', `build run ${input.buildRunId} already exists on work order ${workOrderId} with other items; use a new buildRunId`);
      }
      return existing;
    }
    assertToken(row, expected);
    if (!buildRunAllowed(row.status, input.runType)) throw blockedError(workOrderId, ['NOT_BUILDABLE_STATE'], `a ${input.runType} run in ${row.status}`);
    const items = new Map(parts.items.map((i) => [i.item_id, i]));
    const rework = new Set(('reworkItems' in parts ? parts.reworkItems : []).map((r) => r.rework_item_id));
    const missing: MissingRef[] = [
      ...[...quantities.keys()].filter((id) => !items.has(id)).map((id) => ({ kind: 'work order item', id })),
      ...input.reworkItemIds.filter((id) => !rework.has(id)).map((id) => ({ kind: 'rework item', id })),
    ];
    if (missing.length > 0) throw new DomainError('NOT_FOUND', `not found on work order ${workOrderId}: ${missing.map((m) => `${m.kind} ${m.id}`).join(', ')}`, { missing });
    const location = itemLocation(row);
    if (!location) throw blockedError(workOrderId, ['NO_CONSUMPTION_LOCATION'], 'a build run');

    const roots = [...quantities.entries()].map(([itemId, quantity]) => {
      const item = items.get(itemId)!;
      return { bill: { ownerType: item.owner_type, ownerId: item.owner_id }, quantity };
    });
    const forest = await loadRecipeForest(tx, roots.map((r) => r.bill));
    const assemblies = [...forest.bills.values()].filter((b) => b.key.ownerType === 'sub_assembly').map((b) => b.key.ownerId);
    const shelves = await shelvesAt(tx, assemblies, location, { forUpdate: true });
    const plan = planConsumption(forest, roots, location, (id) => shelves.get(id) ?? ZERO);
    const requests: ConsumeRequest[] = [
      ...[...plan.shelves.entries()].map(([itemId, quantity]) => ({ stock: 'preassembled' as const, itemId, locationId: location, quantity })),
      ...[...plan.materials.entries()].map(([itemId, quantity]) => ({ stock: 'material' as const, itemId, locationId: location, quantity })),
      ...(input.runType === 'production' ? manualRequests(parts, quantities, location) : []),
    ];
    const by: MovementSource = { source: 'build_run', workOrderId, buildRunId: input.buildRunId };
    const picks = await consumeStock(tx, requests, by, allowNegative);
    const warnings: BuildRunWarning[] = [
      ...picks.filter((p) => p.shortfall !== '0').map((p) => ({
        code: 'NEGATIVE_INVENTORY' as const,
        message: allowNegative
          ? `${p.itemId} at location ${p.locationId} went ${p.shortfall} below zero`
          : `${p.itemId} at location ${p.locationId} was ${p.shortfall} short; the level stopped at zero`,
        remedy: WORK_ORDER_WARNINGS.NEGATIVE_INVENTORY.remedy,
        ...(p.stock === 'material' ? { variantId: p.itemId } : { itemId: p.itemId }), locationId: p.locationId, quantity: p.shortfall,
      })),
      ...[...plan.shelfShortfalls.entries()].map(([id, quantity]) => ({
        code: 'PREASSEMBLED_SHORT' as const,
        message: `assembly ${id} comes only from its pre-assembled shelf at location ${location}, which was ${quantity.toFixed()} short`,
        remedy: WORK_ORDER_WARNINGS.PREASSEMBLED_SHORT.remedy, itemId: id, locationId: location, quantity: quantity.toFixed(),
      })),
    ];
    const startedAt = nextUpdatedAt(row.updatedAt);
    const [written] = await Promise.all([
      // The run, its items and picks, and the work order's new token: one statement.
      insertRun(tx.em, tx.shopId, workOrderId, {
        buildRunId: input.buildRunId, shortId: buildRunShortId(row.shortId, parts.runKeys.length + 1), runType: input.runType, note: input.note,
        actorUserId: input.actorUserId, actorDisplayName: input.actorDisplayName, reworkItemIds: input.reworkItemIds, warnings, startedAt,
        items: [...quantities.entries()].map(([itemId, q]) => ({ itemId, quantity: q.toFixed() })),
        picks: picks.map((p) => ({ stock: p.stock, itemId: p.itemId, locationId: p.locationId, quantity: p.quantity, carriedWhole: p.carriedWhole, deducted: p.deducted })),
      }),
      recordWorkOrderEvent(tx, 'build_run.started', workOrderId, startedAt, { buildRunId: input.buildRunId, runType: input.runType }),
    ]);
    return buildRunViews([written.run], written.items, written.picks, startedAt)[0]!;
  });
}

/**
 * What a production run of `quantities` takes of the manual material lines: the part of each line
 * its units move from "not yet started" to "started" — line × q / Q (outstanding.ts), at the line's
 * own location, else the work order's consumption location. Picks like recipe picks, reversed with
 * the run; rework runs start no units and take nothing.
 */
function manualRequests(
  parts: Pick<WorkOrderParts, 'items' | 'manual' | 'runKeys' | 'runItems'>, quantities: ReadonlyMap<string, Exact>, location: string,
): ConsumeRequest[] {
  if (parts.manual.length === 0) return [];
  const items = unitItems(parts.items);
  const before = startedUnits(unitRuns(parts.runKeys), unitRunItems(parts.runItems));
  const after = new Map(before);
  for (const [itemId, q] of quantities) after.set(itemId, (after.get(itemId) ?? ZERO).plus(q));
  const { total, left: leftBefore } = workOrderUnits(items, before);
  const { left: leftAfter } = workOrderUnits(items, after);
  return parts.manual.map((m) => ({
    stock: 'material' as const, itemId: m.variant_id, locationId: m.location_id ?? location,
    quantity: manualConsumedByRun(m.quantity, total, leftBefore, leftAfter),
  })).filter((r) => r.quantity.gt(0));
}

interface RunChange { expectedUpdatedAt: string; buildRunId: string }

async function lockRun(tx: ShopContext, workOrderId: string, change: RunChange): Promise<{ row: WorkOrderHeader; run: RunPart; items: ItemPart[]; view: BuildRunView }> {
  const row = await lockForWrite(tx, workOrderId, parseToken(change.expectedUpdatedAt));
  const parts = await loadParts(tx.em, tx.shopId, workOrderId, ['items', 'runs', 'runItems', 'picks'] as const);
  const run = parts.runs.find((r) => r.build_run_id === change.buildRunId);
  if (!run) throw DomainError.notFound('build run', change.buildRunId);
  const view = buildRunViews([run], parts.runItems, parts.picks, row.updatedAt)[0]!;
  return { row, run, items: parts.items, view };
}

/**
 * Completes a started run: a production run's quantities join the items' completedQuantity (a
 * rework run builds no new units: it mends units already counted), and what passed goes
 * on the pre-assembled shelf of what was built at the production location (shelf-output.ts: a
 * production run its output less what QC already failed, a rework run only units held for rework).
 */
export async function completeBuildRun(ctx: ShopContext, workOrderId: string, change: RunChange): Promise<BuildRunView> {
  return inShopTransaction(ctx, async (tx) => {
    const { row, run, items, view } = await lockRun(tx, workOrderId, change);
    if (run.status !== 'started') throw new DomainError('CONFLICT', `build run ${change.buildRunId} is ${run.status}; only a started run can be completed`);
    const at = nextUpdatedAt(row.updatedAt);
    const parts = await loadParts(tx.em, tx.shopId, workOrderId, ['runs', 'runItems', 'qcReviews'] as const);
    const output = await completionOutput(tx, row, { items, ...parts }, run);
    await changeShelves(tx, output, { source: 'build_run_completion', workOrderId, buildRunId: run.build_run_id }, true);
    await Promise.all([
      setRunStatus(tx.em, tx.shopId, workOrderId, run.build_run_id, 'completed', at),
      addCompletedQuantities(tx.em, tx.shopId, workOrderId, run.run_type === 'production' ? view.items : []),
      touchWorkOrder(tx.em, tx.shopId, workOrderId, at),
      recordWorkOrderEvent(tx, 'build_run.completed', workOrderId, at, { buildRunId: run.build_run_id }),
    ]);
    return { ...view, status: 'completed', completedAt: at, updatedAt: at, workOrderUpdatedAt: at };
  });
}

/**
 * Reverses a run: every pick goes back where it came from, residuals included, so stock is as if
 * the run had never started; a completed run's output leaves the items again, and what it still has
 * on the shelves (its completion less what QC took off) leaves the shelves.
 */
export async function reverseBuildRun(ctx: ShopContext, workOrderId: string, change: RunChange): Promise<BuildRunView> {
  return inShopTransaction(ctx, async (tx) => {
    const { row, run, items, view } = await lockRun(tx, workOrderId, change);
    if (run.status === 'reversed') throw new DomainError('CONFLICT', `build run ${change.buildRunId} is already reversed`);
    const at = nextUpdatedAt(row.updatedAt);
    const parts = await loadParts(tx.em, tx.shopId, workOrderId, ['picks', 'runs', 'runItems', 'qcReviews'] as const);
    const picks = parts.picks.filter((p) => p.build_run_id === run.build_run_id)
      .map((p) => ({ stock: p.stock, itemId: p.variant_id, locationId: p.location_id, quantity: p.quantity, carriedWhole: p.carried_whole, deducted: p.deducted }));
    await returnStock(tx, picks, { source: 'build_run_reversal', workOrderId, buildRunId: run.build_run_id });
    if (run.status === 'completed') {
      const output = await reversalOutput(tx, row, { items, ...parts }, run);
      await changeShelves(tx, output, { source: 'build_run_completion_reversal', workOrderId, buildRunId: run.build_run_id }, await shopAllowsNegative(tx.em, tx.shopId));
      if (run.run_type === 'production') {
        await addCompletedQuantities(tx.em, tx.shopId, workOrderId, view.items.map((i) => ({ itemId: i.itemId, quantity: exact(i.quantity).negated().toFixed() })));
      }
    }
    await Promise.all([
      setRunStatus(tx.em, tx.shopId, workOrderId, run.build_run_id, 'reversed', at), touchWorkOrder(tx.em, tx.shopId, workOrderId, at),
      recordWorkOrderEvent(tx, 'build_run.reversed', workOrderId, at, { buildRunId: run.build_run_id, previousStatus: run.status }),
    ]);
    return { ...view, status: 'reversed', reversedAt: at, updatedAt: at, workOrderUpdatedAt: at };
  });
}
