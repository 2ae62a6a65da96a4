import { IsolationLevel } from '@mikro-orm/core';
import type { Em } from '../../db/orm.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { isCalendarDay, todayUtc } from './dates.ts';
import { computePlan, type ComputedPlan, type ExtraDemand } from './engine.ts';
import { readPlanInput, type PlanInput } from './plan-input.ts';
import { writePlan, type WrittenPlan } from './written-plan.ts';

export interface PlanOptions {
  /** The plan's date ("today"), YYYY-MM-DD; absent: the current UTC date. */
  asOf?: string | null;
  /** Keep the rows of these locations only (the plan itself is the whole shop's). */
  locationIds?: readonly string[] | null;
}

/** The plan's date: the one given (checked), else today (UTC). */
export function planDate(asOf: string | null | undefined): string {
  if (asOf === null || asOf === undefined) return todayUtc();
  if (!isCalendarDay(asOf)) throw DomainError.invalid('asOf', `must be a calendar day written YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  return asOf;
}

/**
 * Reads the shop once in one repeatable-read, read-only transaction (every read sees the same
 * snapshot) and hands the input to `work`, which computes in memory.
 */
export async function inPlanSnapshot<T>(ctx: ShopContext, work: (input: PlanInput) => T): Promise<T> {
  const input = await ctx.em.transactional(async (em) => readPlanInput({ ...ctx, em: em as Em, platform: ctx.platformFor(em as Em) }),
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
  return work(input);
}

/** The shop's plan (decisions "Planning"), as it is written out. */
export async function planShop(ctx: ShopContext, options: PlanOptions = {}): Promise<WrittenPlan> {
  const asOf = planDate(options.asOf);
  const plan: ComputedPlan = await inPlanSnapshot(ctx, (input) => computePlan(input, asOf));
  return writePlan(ctx.shopId, plan, options.locationIds ?? null);
}

export type { ExtraDemand };
