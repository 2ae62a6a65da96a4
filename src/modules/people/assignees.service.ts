import { randomUUID } from 'node:crypto';
import { sql, type AliasedExpression } from 'kysely';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import { DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { peopleSql } from './tables.ts';

export interface AssigneeView { assigneeId: string; displayName: string; active: boolean; usageCount: number }

export const ASSIGNEE_LIMITS = { displayName: 200, assigneeId: 128 } as const;
/** Client-chosen assignee ids: the characters ids travel in safely (paths, query strings). */
const ASSIGNEE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The open work orders as a derived table (shop, assignee, id), for the usage counts: the
 * work-order module's `openWorkOrdersForPeople` (src/modules/work-orders/for-people.ts), passed in
 * by the caller (people sit below work orders and import nothing of them; .dependency-cruiser.cjs).
 */
export interface OpenWorkOrderSql {
  as(alias: 'w'): AliasedExpression<{ shop_id: string; assignee_id: string | null; work_order_id: string }, 'w'>;
}

/**
 * Assignees with the number of live (open) work orders naming each, sorted by display name (ties
 * by id). One query: the count is a grouped left join, not one query per assignee. `assigneeIds`
 * narrows it to those.
 */
async function assigneeRows(
  ctx: ShopContext, filter: { includeInactive: boolean; assigneeIds?: readonly string[] }, openWorkOrderSql: OpenWorkOrderSql,
): Promise<AssigneeView[]> {
  let query = peopleSql.selectFrom('assignees as a')
    .leftJoin(openWorkOrderSql.as('w'), (join) => join.onRef('w.shop_id', '=', 'a.shop_id').onRef('w.assignee_id', '=', 'a.assignee_id'))
    .select((eb) => ['a.assignee_id', 'a.display_name', 'a.active', eb.fn.count<string>('w.work_order_id').as('usage_count')])
    .where('a.shop_id', '=', ctx.shopId);
  if (!filter.includeInactive) query = query.where((eb) => eb.ref('a.active'));
  if (filter.assigneeIds !== undefined) query = query.where(sql<boolean>`a.assignee_id = any(${textArrayLiteral(filter.assigneeIds)}::text[])`);
  const rows = await runSql(ctx.em, query.groupBy(['a.shop_id', 'a.assignee_id']).orderBy('a.display_name').orderBy('a.assignee_id'));
  return rows.map((r) => ({ assigneeId: r.assignee_id, displayName: r.display_name, active: r.active, usageCount: Number(r.usage_count) }));
}

/** Assignees sorted by display name (ties by id); retired ones only with `includeInactive`. */
export function listAssignees(ctx: ShopContext, options: { includeInactive: boolean }, openWorkOrderSql: OpenWorkOrderSql): Promise<AssigneeView[]> {
  return assigneeRows(ctx, options, openWorkOrderSql);
}

/** The assignees among `assigneeIds`, retired ones included, in one query (any order). */
export function assigneesByIds(ctx: ShopContext, assigneeIds: readonly string[], openWorkOrderSql: OpenWorkOrderSql): Promise<AssigneeView[]> {
  return assigneeRows(ctx, { includeInactive: true, assigneeIds }, openWorkOrderSql);
}

async function requireAssignee(ctx: ShopContext, assigneeId: string, openWorkOrderSql: OpenWorkOrderSql): Promise<AssigneeView> {
  const [view] = await assigneeRows(ctx, { includeInactive: true, assigneeIds: [assigneeId] }, openWorkOrderSql);
  if (!view) throw DomainError.notFound('assignee', assigneeId);
  return view;
}

function displayNameErrors(displayName: string, errors: FieldError[]): string {
  const trimmed = displayName.trim();
  if (trimmed === '') errors.push({ field: 'displayName', message: 'must not be empty' });
  else if (trimmed.length > ASSIGNEE_LIMITS.displayName) errors.push({ field: 'displayName', message: `must be at most ${ASSIGNEE_LIMITS.displayName} characters` });
  return trimmed;
}

/**
 * Adds an active assignee. `assigneeId` is the client's (1–128 characters of [A-Za-z0-9._:-]) or
 * `asg_<uuid>`; an id the shop already has is 409, whatever its state (ids are never reused, so a
 * retired person's history stays theirs).
 */
export async function createAssignee(ctx: ShopContext, input: { assigneeId?: string | null; displayName: string }): Promise<AssigneeView> {
  const errors: FieldError[] = [];
  const displayName = displayNameErrors(input.displayName, errors);
  if (typeof input.assigneeId === 'string' && !ASSIGNEE_ID.test(input.assigneeId)) {
    errors.push({ field: 'assigneeId', message: 'must be 1–128 characters of [A-Za-z0-9._:-]' });
  }
  if (errors.length > 0) throw DomainError.invalidFields(errors);
  const assigneeId = input.assigneeId ?? `asg_${randomUUID()}`;
  const inserted = await runSql(ctx.em, peopleSql.insertInto('assignees')
    .values({ shop_id: ctx.shopId, assignee_id: assigneeId, display_name: displayName, active: sql.lit(true) })
    .onConflict((oc) => oc.columns(['shop_id', 'assignee_id']).doNothing()).returning('assignee_id'));
  if (inserted.length === 0) throw new DomainError('CONFLICT', `assignee ${assigneeId} already exists; choose another assigneeId`);
  return { assigneeId, displayName, active: true, usageCount: 0 };
}

/**
 * Retires an assignee: no new work order may name them, the work orders that already do keep
 * them (and show a RETIRED_ASSIGNEE warning while open). Retiring a retired assignee changes
 * nothing and answers the same.
 */
export async function retireAssignee(ctx: ShopContext, assigneeId: string, openWorkOrderSql: OpenWorkOrderSql): Promise<AssigneeView> {
  return inShopTransaction(ctx, async (tx) => {
    await runSqlWrite(tx.em, peopleSql.updateTable('assignees').set({ active: sql.lit(false) })
      .where('shop_id', '=', tx.shopId).where('assignee_id', '=', assigneeId).where((eb) => eb.ref('active')));
    return requireAssignee(tx, assigneeId, openWorkOrderSql);
  });
}
