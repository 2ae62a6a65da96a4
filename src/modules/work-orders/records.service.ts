import { randomUUID } from 'node:crypto';
import { parseDecimalInput } from '../../kernel/decimals.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../kernel/limits.ts';
import { DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { recordWorkOrderEvent } from './work-order-events.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import { throwIfInvalid } from './header-fields.ts';
import {
  insertDocument, insertMessage, insertQcReview, insertReworkItem, loadParts, nextUpdatedAt, resolveReworkItemRow, touchWorkOrder, type WorkOrderHeader,
} from './work-order.repository.ts';
import { isOpenStatus, LIVE_RUN_STATUSES, QC_DECISIONS, type QcDecision } from './work-order-vocabulary.ts';
import { lockForWrite, parseToken } from './write-guard.ts';
import { qcFailureOutput } from './shelf-output.ts';
import { changeShelves } from '../stock/ledger.ts';

// The records a work order collects while it is worked on: QC reviews, rework items, documents and
// conversation messages. Each write is a work-order write: it takes the work order's optimistic
// lock (`expectedUpdatedAt`), adds its record and moves the token, in one transaction.

/** Lengths of a record's texts: the shop-wide input limits (docs/api-conventions.md). */
export const RECORD_LIMITS = { text: STRING_LIMITS.text, name: STRING_LIMITS.name, url: STRING_LIMITS.url, person: STRING_LIMITS.person } as const;

export interface RecordWriteResult { workOrderId: string; updatedAt: Date; recordId: string }

interface Locked { tx: ShopContext; row: WorkOrderHeader; at: Date }

/**
 * Runs `write` on the locked work order after checking the token, then moves the token. The
 * record's time is the new token, so a record never predates the change that made it.
 */
async function recordWrite(
  ctx: ShopContext, workOrderId: string, expectedUpdatedAt: string, write: (locked: Locked) => Promise<string>,
): Promise<RecordWriteResult> {
  const expected = parseToken(expectedUpdatedAt);
  return inShopTransaction(ctx, async (tx) => {
    const row = await lockForWrite(tx, workOrderId, expected);
    const at = nextUpdatedAt(row.updatedAt);
    const recordId = await write({ tx, row, at });
    await Promise.all([
      touchWorkOrder(tx.em, tx.shopId, workOrderId, at),
      recordWorkOrderEvent(tx, 'work_order.updated', workOrderId, at, { recordId }),
    ]);
    return { workOrderId, updatedAt: at, recordId };
  });
}

function textErrors(errors: FieldError[], field: string, value: string | null | undefined, options: { required: boolean; max: number }): void {
  if (value === null || value === undefined) {
    if (options.required) errors.push({ field, message: 'is required' });
  } else if (options.required && value.trim() === '') errors.push({ field, message: 'must not be empty' });
  else if (value.length > options.max) errors.push({ field, message: `must be at most ${options.max} characters` });
}

/** QC and rework belong to a work order still being worked on. */
function assertOpen(row: WorkOrderHeader, what: string): void {
  if (!isOpenStatus(row.status)) {
    throw new DomainError('CONFLICT', `work order ${row.workOrderId} is ${row.status}: ${what} only on an open work order (reopen it first)`);
  }
}

export interface QcReviewItemInput { itemId: string; approvedQuantity: string; failedQuantity: string }

export interface QcReviewInput {
  expectedUpdatedAt: string;
  buildRunId: string;
  /** The whole run's verdict: every unit of the run not reviewed yet is approved or failed. */
  decision?: QcDecision | null;
  /** Per item: units approved and units failed (instead of, or agreeing with, `decision`). */
  items?: readonly QcReviewItemInput[] | null;
  note?: string | null;
  reviewerName?: string | null;
}

/** Items one review may judge: far more than any work order holds, small enough to bound the write. */
export const QC_REVIEW_MAX_ITEMS = LIST_LIMITS.qcReviewItems;

type Judged = { itemId: string; approved: Exact; failed: Exact };

/** The per-item quantities of the input, checked on their own (before the run is read). */
function judgedItems(input: QcReviewInput, errors: FieldError[]): Judged[] | null {
  if (input.items === null || input.items === undefined) return null;
  if (input.items.length === 0) errors.push({ field: 'items', message: 'must name at least one item (or leave items out and give decision)' });
  if (input.items.length > QC_REVIEW_MAX_ITEMS) errors.push({ field: 'items', message: `must have at most ${QC_REVIEW_MAX_ITEMS} entries` });
  const seen = new Set<string>();
  const judged: Judged[] = [];
  input.items.slice(0, QC_REVIEW_MAX_ITEMS).forEach((item, k) => {
    textErrors(errors, `items[${k}].itemId`, item.itemId, { required: true, max: STRING_LIMITS.id });
    if (seen.has(item.itemId)) errors.push({ field: `items[${k}].itemId`, message: `names item ${item.itemId} a second time` });
    seen.add(item.itemId);
    const approved = parseDecimalInput(item.approvedQuantity, `items[${k}].approvedQuantity`, errors, { nonNegative: true });
    const failed = parseDecimalInput(item.failedQuantity, `items[${k}].failedQuantity`, errors, { nonNegative: true });
    if (approved && failed && approved.plus(failed).isZero()) {
      errors.push({ field: `items[${k}]`, message: 'approvedQuantity + failedQuantity must be greater than 0' });
    }
    if (approved && failed) judged.push({ itemId: item.itemId, approved, failed });
  });
  const verdict = judged.some((j) => !j.failed.isZero()) ? 'rejected' : 'approved';
  if (input.decision && errors.length === 0 && input.decision !== verdict) {
    errors.push({ field: 'decision', message: `is ${input.decision} but the items say ${verdict} (rejected when any unit failed); leave decision out with items` });
  }
  return judged;
}

/**
 * Records a QC review of one build run: for each item of the run, units approved and units
 * failed. Failed units of a completed run leave its pre-assembled shelf in the same transaction
 * (held for rework; only a rework run puts them back). Give `items` to judge per item (part of a run may be reviewed now and the rest later),
 * or only `decision` to approve or fail every unit of the run not reviewed yet. For every item of
 * the run, approved + failed over all its reviews never exceeds what the run built; only live
 * (not reversed) runs are reviewed. Units that failed are made good by a rework run, which gets
 * its own review. The stored decision is `rejected` when any unit failed, else `approved`.
 */
export async function addQcReview(ctx: ShopContext, workOrderId: string, input: QcReviewInput): Promise<RecordWriteResult> {
  const errors: FieldError[] = [];
  if (input.decision !== null && input.decision !== undefined && !QC_DECISIONS.includes(input.decision)) {
    errors.push({ field: 'decision', message: `must be one of ${QC_DECISIONS.join(', ')}` });
  }
  if ((input.decision === null || input.decision === undefined) && (input.items === null || input.items === undefined)) {
    errors.push({ field: 'decision', message: 'is required when items is not given (decision judges the whole run; items judge per item)' });
  }
  textErrors(errors, 'buildRunId', input.buildRunId, { required: true, max: STRING_LIMITS.id });
  textErrors(errors, 'note', input.note, { required: false, max: RECORD_LIMITS.text });
  textErrors(errors, 'reviewerName', input.reviewerName, { required: false, max: RECORD_LIMITS.person });
  const perItem = judgedItems(input, errors);
  throwIfInvalid(errors);
  return recordWrite(ctx, workOrderId, input.expectedUpdatedAt, async ({ tx, row, at }) => {
    assertOpen(row, 'a QC review');
    const parts = await loadParts(tx.em, tx.shopId, workOrderId, ['runs', 'runItems', 'qcReviews'] as const);
    const run = parts.runs.find((r) => r.build_run_id === input.buildRunId);
    if (!run) throw new DomainError('NOT_FOUND', `build run ${input.buildRunId} not found on work order ${workOrderId}`, { missing: [{ kind: 'build run', id: input.buildRunId }] });
    if (!LIVE_RUN_STATUSES.includes(run.status)) {
      throw new DomainError('CONFLICT', `build run ${input.buildRunId} was reversed: it built nothing to review`);
    }
    const built = new Map(parts.runItems.filter((i) => i.build_run_id === input.buildRunId).map((i) => [i.item_id, exact(i.quantity)]));
    const reviewed = new Map<string, Exact>();
    for (const review of parts.qcReviews.filter((q) => q.build_run_id === input.buildRunId)) {
      for (const i of review.items) reviewed.set(i.item_id, (reviewed.get(i.item_id) ?? ZERO).plus(i.approved_quantity).plus(i.failed_quantity));
    }
    const unreviewed = (itemId: string) => built.get(itemId)!.minus(reviewed.get(itemId) ?? ZERO);
    let judged: Judged[];
    if (perItem) {
      perItem.forEach((j, k) => {
        if (!built.has(j.itemId)) {
          throw DomainError.invalid(`items[${k}].itemId`, `item ${j.itemId} is not one build run ${input.buildRunId} built (it built ${[...built.keys()].join(', ') || 'nothing'})`);
        }
      });
      const over = perItem.filter((j) => j.approved.plus(j.failed).gt(unreviewed(j.itemId)));
      if (over.length > 0) {
        throw new DomainError('CONFLICT', `approved + failed would exceed what build run ${input.buildRunId} built: ` + over.map((j) =>
          `item ${j.itemId}: ${j.approved.plus(j.failed).toFixed()} judged now, ${(reviewed.get(j.itemId) ?? ZERO).toFixed()} reviewed before, ${built.get(j.itemId)!.toFixed()} built`).join('; '));
      }
      judged = perItem;
    } else {
      const failed = input.decision === 'rejected';
      judged = [...built.keys()].filter((itemId) => unreviewed(itemId).gt(0))
        .map((itemId) => ({ itemId, approved: failed ? ZERO : unreviewed(itemId), failed: failed ? unreviewed(itemId) : ZERO }));
      if (judged.length === 0) {
        const quantities = [...built].map(([itemId, q]) => `${itemId} × ${q.toFixed()}`);
        throw new DomainError('CONFLICT',
          `every unit build run ${input.buildRunId} built (${quantities.join(', ')}) was already reviewed: ` +
          'approved + failed would exceed what it built; review the rework run instead');
      }
    }
    const reviewId = `qc_${randomUUID()}`;
    await insertQcReview(tx.em, tx.shopId, workOrderId, {
      review_id: reviewId, build_run_id: input.buildRunId, decision: judged.some((j) => !j.failed.isZero()) ? 'rejected' : 'approved',
      note: input.note ?? null, reviewer_name: input.reviewerName ?? null, created_at: at,
      items: judged.map((j) => ({ item_id: j.itemId, approved_quantity: j.approved.toFixed(), failed_quantity: j.failed.toFixed() })),
    });
    // Failed units of a completed run leave its shelf (held for rework); a started run's completion leaves them off.
    // Read only then: a review that fails nothing on the shelf costs what it always did.
    if (run.status === 'completed' && judged.some((j) => !j.failed.isZero())) {
      const { items } = await loadParts(tx.em, tx.shopId, workOrderId, ['items'] as const);
      const off = await qcFailureOutput(tx, row, items, run, new Map(judged.map((j) => [j.itemId, j.failed])));
      await changeShelves(tx, off, { source: 'qc_review', workOrderId, buildRunId: run.build_run_id }, false);
    }
    return reviewId;
  });
}

export interface ReworkItemInput { expectedUpdatedAt: string; description: string; quantity: string; buildRunId?: string | null }

/**
 * Opens a rework item: what must be redone and how many units, optionally naming the run that
 * produced them. An open rework item blocks completion (OPEN_REWORK) until it is resolved; the
 * quantity cannot exceed what the work order's live runs built.
 */
export async function addReworkItem(ctx: ShopContext, workOrderId: string, input: ReworkItemInput): Promise<RecordWriteResult> {
  const errors: FieldError[] = [];
  textErrors(errors, 'description', input.description, { required: true, max: RECORD_LIMITS.text });
  const quantity = parseDecimalInput(input.quantity, 'quantity', errors);
  if (quantity && !quantity.gt(0)) errors.push({ field: 'quantity', message: 'must be greater than 0' });
  throwIfInvalid(errors);
  return recordWrite(ctx, workOrderId, input.expectedUpdatedAt, async ({ tx, row, at }) => {
    assertOpen(row, 'a rework item');
    const parts = await loadParts(tx.em, tx.shopId, workOrderId, ['runs', 'runItems'] as const);
    const live = new Set(parts.runs.filter((r) => LIVE_RUN_STATUSES.includes(r.status)).map((r) => r.build_run_id));
    if (input.buildRunId) {
      const run = parts.runs.find((r) => r.build_run_id === input.buildRunId);
      if (!run) throw new DomainError('NOT_FOUND', `build run ${input.buildRunId} not found on work order ${workOrderId}`, { missing: [{ kind: 'build run', id: input.buildRunId }] });
      if (!live.has(run.build_run_id)) throw DomainError.invalid('buildRunId', `build run ${input.buildRunId} was reversed`);
    }
    const scope = parts.runItems.filter((i) => live.has(i.build_run_id) && (!input.buildRunId || i.build_run_id === input.buildRunId));
    const built = scope.reduce((sum, i) => sum.plus(i.quantity), ZERO);
    if (quantity!.gt(built)) {
      throw DomainError.invalid('quantity', `${quantity!.toFixed()} is more than the ${built.toFixed()} unit(s) ${input.buildRunId ? `build run ${input.buildRunId}` : 'the live build runs'} built`);
    }
    const reworkItemId = `rw_${randomUUID()}`;
    await insertReworkItem(tx.em, tx.shopId, workOrderId, {
      rework_item_id: reworkItemId, description: input.description, quantity: quantity!.toFixed(), status: 'open', build_run_id: input.buildRunId ?? null,
      created_at: at, resolved_at: null,
    });
    return reworkItemId;
  });
}

/** Resolves an open rework item (completion is no longer blocked by it). */
export async function resolveReworkItem(ctx: ShopContext, workOrderId: string, input: { expectedUpdatedAt: string; reworkItemId: string }): Promise<RecordWriteResult> {
  return recordWrite(ctx, workOrderId, input.expectedUpdatedAt, async ({ tx, at }) => {
    if (await resolveReworkItemRow(tx.em, tx.shopId, workOrderId, input.reworkItemId, at)) return input.reworkItemId;
    const { reworkItems } = await loadParts(tx.em, tx.shopId, workOrderId, ['reworkItems'] as const);
    if (reworkItems.some((r) => r.rework_item_id === input.reworkItemId)) throw new DomainError('CONFLICT', `rework item ${input.reworkItemId} is already resolved`);
    throw new DomainError('NOT_FOUND', `rework item ${input.reworkItemId} not found on work order ${workOrderId}`, { missing: [{ kind: 'rework item', id: input.reworkItemId }] });
  });
}

export interface DocumentInput { expectedUpdatedAt: string; name: string; url: string }

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Attaches a document by link (bomcore stores the name and URL, not the file). */
export async function addDocument(ctx: ShopContext, workOrderId: string, input: DocumentInput): Promise<RecordWriteResult> {
  const errors: FieldError[] = [];
  textErrors(errors, 'name', input.name, { required: true, max: RECORD_LIMITS.name });
  textErrors(errors, 'url', input.url, { required: true, max: RECORD_LIMITS.url });
  if (typeof input.url === 'string' && input.url.trim() !== '' && !isWebUrl(input.url)) errors.push({ field: 'url', message: 'must be an http(s) URL' });
  throwIfInvalid(errors);
  return recordWrite(ctx, workOrderId, input.expectedUpdatedAt, async ({ tx, at }) => {
    const documentId = `doc_${randomUUID()}`;
    await insertDocument(tx.em, tx.shopId, workOrderId, { document_id: documentId, name: input.name, url: input.url, created_at: at });
    return documentId;
  });
}

export interface MessageInput { expectedUpdatedAt: string; body: string; authorName?: string | null }

/** Adds a message to the work order's conversation. */
export async function addMessage(ctx: ShopContext, workOrderId: string, input: MessageInput): Promise<RecordWriteResult> {
  const errors: FieldError[] = [];
  textErrors(errors, 'body', input.body, { required: true, max: RECORD_LIMITS.text });
  textErrors(errors, 'authorName', input.authorName, { required: false, max: RECORD_LIMITS.person });
  throwIfInvalid(errors);
  return recordWrite(ctx, workOrderId, input.expectedUpdatedAt, async ({ tx, at }) => {
    const messageId = `msg_${randomUUID()}`;
    await insertMessage(tx.em, tx.shopId, workOrderId, { message_id: messageId, author_name: input.authorName ?? null, body: input.body, created_at: at });
    return messageId;
  });
}
