import { bulkInsert } from '../../db/bulk-insert.ts';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import { exact } from '../../kernel/numbers/index.ts';
import { inShopTransaction, type ShopContext } from '../../kernel/shop-context.ts';
import { recordPendingBillVersion } from './bill-version-write.ts';
import { InputErrors } from './catalog-input.ts';
import type { BillKey, EngineOverride } from './engine/index.ts';
import { nodeStates, refuseRecipeCycle } from './recipe-references.ts';
import type { LocationRuleAction } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';
import { enqueueStorefrontRecomputes, storefrontChangeOf } from './storefront-recomputes.repository.ts';
import { lockBill, type BillSaveResult, type SaveAuthor } from './bill-write.service.ts';

// Set or remove a bill's rule at one location (its overrides, in order). The same rules as a
// dataset's location rules: an override targets a line of the bill's base recipe (add: a node that
// is not one), a replacement is of the replaced line's kind, waste sits on material lines only.
// Rules change what a location builds, never the stored base-recipe costs, so no roll-up refresh;
// the save records a bill version (trigger `location_rules`).

export interface OverrideInput {
  action: LocationRuleAction;
  nodeId: string;
  replacementNodeId?: string | null;
  quantity?: string | null;
  wastePercentage?: string | null;
}

type LineKind = 'material' | 'assembly';

interface CheckedOverride { input: OverrideInput; quantity: string | null; waste: string | null; field: string }

/** Field-level checks that need no database: numbers, required parts, one override per node. */
function readOverrides(errors: InputErrors, overrides: readonly OverrideInput[]): CheckedOverride[] {
  errors.lineCount('overrides', overrides);
  const first = new Map<string, number>();
  return overrides.map((o, k) => {
    const field = `overrides[${k}]`;
    // Two overrides of one node in one rule would depend on their order.
    const seen = first.get(o.nodeId);
    if (seen !== undefined) errors.add(`${field}.nodeId`, `"${o.nodeId}" already has an override in this rule (overrides[${seen}])`);
    else first.set(o.nodeId, k);
    const quantity = o.quantity === null || o.quantity === undefined ? null : errors.decimal(`${field}.quantity`, o.quantity, 'positive');
    const waste = o.wastePercentage === null || o.wastePercentage === undefined ? null : errors.decimal(`${field}.wastePercentage`, o.wastePercentage, 'waste');
    if (o.action === 'replace' && !o.replacementNodeId) errors.add(`${field}.replacementNodeId`, 'is required for "replace"');
    if (o.action === 'add' && o.quantity == null) errors.add(`${field}.quantity`, 'is required for "add"');
    if (o.action === 'adjust' && o.quantity == null && o.wastePercentage == null) errors.add(field, 'an "adjust" override must set quantity or wastePercentage');
    return { input: o, quantity, waste, field };
  });
}

/**
 * Sets the bill's rule at the location to exactly these overrides (an empty list: a rule that
 * changes nothing). INVALID_INPUT names each override at fault; an unknown bill or location is
 * NOT_FOUND. Statements do not depend on the number of overrides.
 */
export async function setLocationRule(ctx: ShopContext, key: BillKey, locationId: string, overrides: readonly OverrideInput[], author: SaveAuthor): Promise<BillSaveResult> {
  const errors = new InputErrors();
  const checked = readOverrides(errors, overrides);
  errors.throwIfAny();
  return inShopTransaction(ctx, async (tx) => {
    await lockBill(tx, key);
    await requireLocation(tx, locationId);
    const base = await runSql(tx.em, recipesSql.selectFrom('recipe_lines').select(['line_type', 'node_id'])
      .where('shop_id', '=', tx.shopId).where('owner_type', '=', key.ownerType).where('owner_id', '=', key.ownerId).where('line_type', '<>', 'cost'));
    const lineKind = new Map<string, LineKind>(base.map((l) => [l.node_id, l.line_type === 'raw' ? 'material' : 'assembly']));
    const introduced = checked.flatMap((c) => (c.input.action === 'add' ? [c.input.nodeId] : c.input.action === 'replace' && c.input.replacementNodeId ? [c.input.replacementNodeId] : []));
    const states = await nodeStates(tx, { raw: introduced, sub: introduced, cost: [] });
    const kindOf = (id: string): LineKind | undefined => (states.has(`raw:${id}`) ? 'material' : states.has(`sub:${id}`) ? 'assembly' : undefined);
    const archived = (id: string) => Boolean(states.get(`raw:${id}`)?.archived || states.get(`sub:${id}`)?.archived);
    const current = await runSql(tx.em, recipesSql.selectFrom('location_rule_overrides').select(['node_id', 'replacement_node_id'])
      .where('shop_id', '=', tx.shopId).where('owner_type', '=', key.ownerType).where('owner_id', '=', key.ownerId).where('location_id', '=', locationId));
    const namedHere = new Set(current.flatMap((o) => [o.node_id, o.replacement_node_id ?? '']));

    const engine: EngineOverride[] = [];
    for (const c of checked) {
      const o = c.input;
      const own = lineKind.get(o.nodeId);
      let kind: LineKind | undefined = own;
      if (o.action === 'add') {
        kind = kindOf(o.nodeId);
        if (!kind) errors.add(`${c.field}.nodeId`, `unknown material or assembly bill "${o.nodeId}"`);
        else if (own) errors.add(`${c.field}.nodeId`, `"${o.nodeId}" is already a line of ${key.ownerId}; use "adjust" to change it`);
        else if (archived(o.nodeId) && !namedHere.has(o.nodeId)) errors.add(`${c.field}.nodeId`, `"${o.nodeId}" is archived: it cannot be added to a recipe`);
      } else if (!own) {
        errors.add(`${c.field}.nodeId`, `"${o.nodeId}" is not a line of ${key.ownerId}`);
      } else if (o.action === 'replace' && o.replacementNodeId) {
        if (kindOf(o.replacementNodeId) !== own) {
          errors.add(`${c.field}.replacementNodeId`, `unknown ${own === 'material' ? 'material' : 'assembly bill'} "${o.replacementNodeId}" (a replacement must be of the same kind as the replaced line)`);
        } else if (archived(o.replacementNodeId) && !namedHere.has(o.replacementNodeId)) {
          errors.add(`${c.field}.replacementNodeId`, `"${o.replacementNodeId}" is archived: it cannot be added to a recipe`);
        }
      }
      if (kind === 'assembly' && o.action !== 'remove' && c.waste !== null && !(o.action === 'add' && exact(c.waste).eq(0))) {
        errors.add(`${c.field}.wastePercentage`, 'wastePercentage applies to raw-material lines only, not to assembly bills');
      }
      engine.push({
        action: o.action, position: engine.length, nodeId: o.nodeId, replacementNodeId: o.replacementNodeId ?? null,
        quantity: c.quantity === null ? null : exact(c.quantity), wastePercentage: c.waste === null ? null : exact(c.waste),
        introducesAssembly: (o.action === 'add' && kind === 'assembly') || (o.action === 'replace' && own === 'assembly'),
      });
    }
    errors.throwIfAny();
    if (key.ownerType === 'sub_assembly') await refuseRecipeCycle(tx, key.ownerId, { ruleAt: { locationId, overrides: engine } }, 'overrides');

    await deleteRule(tx, key, locationId);
    await runSql(tx.em, recipesSql.insertInto('location_rules')
      .values({ shop_id: tx.shopId, owner_type: key.ownerType, owner_id: key.ownerId, location_id: locationId }));
    await bulkInsert(tx.em, 'location_rule_overrides',
      ['shop_id', 'owner_type', 'owner_id', 'location_id', 'position', 'action', 'node_id', 'replacement_node_id', 'quantity', 'waste_percentage'],
      checked.map((c, position) => [tx.shopId, key.ownerType, key.ownerId, locationId, position, c.input.action, c.input.nodeId,
        c.input.replacementNodeId ?? null, c.quantity, c.waste]));
    await enqueueStorefrontRecomputes(tx.em, tx.shopId, storefrontChangeOf(key));
    return { ...key, version: await recordPendingBillVersion(tx, key, 'location_rules', author.savedBy) };
  });
}

/** Removes the bill's rule at the location (none there: nothing saved, version null). */
export async function removeLocationRule(ctx: ShopContext, key: BillKey, locationId: string, author: SaveAuthor): Promise<BillSaveResult> {
  return inShopTransaction(ctx, async (tx) => {
    await lockBill(tx, key);
    if (!(await deleteRule(tx, key, locationId))) return { ...key, version: null };
    await enqueueStorefrontRecomputes(tx.em, tx.shopId, storefrontChangeOf(key));
    return { ...key, version: await recordPendingBillVersion(tx, key, 'location_rules', author.savedBy) };
  });
}

/** Deletes the rule and its overrides in one statement; returns whether there was a rule. */
async function deleteRule(tx: ShopContext, key: BillKey, locationId: string): Promise<boolean> {
  const rows = await runSql(tx.em, recipesSql
    .with('o', (db) => db.deleteFrom('location_rule_overrides')
      .where('shop_id', '=', tx.shopId).where('owner_type', '=', key.ownerType).where('owner_id', '=', key.ownerId).where('location_id', '=', locationId))
    .deleteFrom('location_rules')
    .where('shop_id', '=', tx.shopId).where('owner_type', '=', key.ownerType).where('owner_id', '=', key.ownerId).where('location_id', '=', locationId)
    .returning('location_id'));
  return rows.length > 0;
}

async function requireLocation(tx: ShopContext, locationId: string): Promise<void> {
  const locations = await tx.platform.listLocations();
  if (!locations.some((l) => l.locationId === locationId)) throw DomainError.notFound('location', locationId);
}
