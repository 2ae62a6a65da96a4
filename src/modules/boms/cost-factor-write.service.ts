import { sql, type Updateable } from 'kysely';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { COST_FACTOR_IDS, insertCatalogRow } from './catalog-ids.ts';
import { InputErrors } from './catalog-input.ts';
import { refreshCostRollup } from './cost-rollup.repository.ts';
import { refuseArchiveWhileUsed } from './recipe-references.ts';
import type { CostFactorKind } from './recipe-vocabulary.ts';
import { recipesSql, type RecipesTables } from './tables.ts';

// Create, edit and archive cost factors. A unit-cost change reprices every bill that uses the
// factor (and every bill above those) in the same transaction.

export interface CostFactorInput {
  name?: string | null;
  kind?: CostFactorKind | null;
  /** null clears it. */
  unit?: string | null;
  unitCost?: string | null;
}

function checkInput(errors: InputErrors, input: CostFactorInput, creating: boolean): string | undefined {
  for (const field of ['name', 'kind', 'unitCost'] as const) {
    if (input[field] === null) errors.add(field, 'must not be null');
    else if (creating && input[field] === undefined) errors.add(field, 'is required');
  }
  errors.text('name', input.name, { required: true });
  errors.text('unit', input.unit);
  if (typeof input.unitCost !== 'string') return undefined;
  return errors.decimal('unitCost', input.unitCost, 'nonNegative') ?? undefined;
}

/** Creates a cost factor under the client's id (`CF-…`) or the shop's next `CF-<n>`; returns its id. Two or three statements. */
export async function createCostFactor(ctx: ShopContext, costFactorId: string | null, input: CostFactorInput): Promise<string> {
  const errors = new InputErrors();
  if (costFactorId !== null) errors.id('costFactorId', costFactorId, /^CF-.+$/, 'CF-<id>');
  const unitCost = checkInput(errors, input, true);
  errors.throwIfAny();
  // Nothing uses a new factor yet, so the roll-up has nothing to recompute.
  return inShopTransaction(ctx, (tx) => insertCatalogRow(tx, COST_FACTOR_IDS, costFactorId,
    { name: input.name!, kind: input.kind!, unit: input.unit ?? null, unit_cost: unitCost! }));
}

/** Changes the fields sent; a new unit cost refreshes the roll-up of every bill that uses the factor. */
export async function updateCostFactor(ctx: ShopContext, costFactorId: string, input: CostFactorInput): Promise<void> {
  const errors = new InputErrors();
  const unitCost = checkInput(errors, input, false);
  errors.throwIfAny();
  const sets: Updateable<RecipesTables['cost_factors']> = {};
  if (input.name !== undefined) sets.name = input.name!;
  if (input.kind !== undefined) sets.kind = input.kind!;
  if (input.unit !== undefined) sets.unit = input.unit;
  if (unitCost !== undefined) sets.unit_cost = unitCost;
  await inShopTransaction(ctx, async (tx) => {
    await lockCostFactor(tx, costFactorId);
    if (Object.keys(sets).length === 0) return;
    await runSql(tx.em, recipesSql.updateTable('cost_factors').set(sets).where('shop_id', '=', tx.shopId).where('cost_factor_id', '=', costFactorId));
    if (unitCost !== undefined) await refreshCostRollup(tx, { costFactors: [costFactorId] });
  });
}

/**
 * Archives or restores a cost factor. One still reached by an active BOM cannot be archived
 * (CONFLICT naming the BOMs). Costs do not change: existing lines keep pricing it.
 */
export async function setCostFactorArchived(ctx: ShopContext, costFactorId: string, archived: boolean): Promise<void> {
  await inShopTransaction(ctx, async (tx) => {
    const current = await lockCostFactor(tx, costFactorId);
    if (current.archived === archived) return;
    if (archived) await refuseArchiveWhileUsed(tx, 'cost', costFactorId, 'cost factor');
    await runSql(tx.em, recipesSql.updateTable('cost_factors').set({ archived_at: archived ? new Date() : null })
      .where('shop_id', '=', tx.shopId).where('cost_factor_id', '=', costFactorId));
  });
}

/** Locks the row for the write; NOT_FOUND when the shop has no such factor. */
async function lockCostFactor(tx: ShopContext, costFactorId: string): Promise<{ archived: boolean }> {
  const [row] = await runSql(tx.em, recipesSql.selectFrom('cost_factors').select(sql<boolean>`archived_at is not null`.as('archived'))
    .where('shop_id', '=', tx.shopId).where('cost_factor_id', '=', costFactorId).forUpdate());
  if (!row) throw DomainError.notFound('cost factor', costFactorId);
  return { archived: Boolean(row.archived) };
}
