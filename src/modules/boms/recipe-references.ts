import { sql } from 'kysely';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import {
  billKeyString, effectiveLines, loadRecipeForest, type BillKey, type EngineBill, type EngineLine, type EngineOverride, type RecipeForest,
} from './engine/index.ts';
import type { CatalogBlockerCode, RecipeLineType } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

// What recipes reference, for the catalogue writes: whether the nodes a new line names exist (and
// are not archived), which active BOMs still reach a node someone wants to archive, and whether a
// save would close a recipe cycle.

/** A node a recipe line can name: a material (`raw`), an assembly bill (`sub`) or a cost factor (`cost`). */
export type NodeKind = RecipeLineType;

export interface NodeState { exists: boolean; archived: boolean }

/** Existence and archive state of the named nodes, in one statement; absent ids map to `exists: false`. */
export async function nodeStates(ctx: ShopContext, ids: { raw: readonly string[]; sub: readonly string[]; cost: readonly string[] }): Promise<Map<string, NodeState>> {
  const out = new Map<string, NodeState>();
  if (ids.raw.length + ids.sub.length + ids.cost.length === 0) return out;
  const s = ctx.shopId;
  const anyOf = (list: readonly string[]) => sql<string>`any(${textArrayLiteral(list)}::text[])`;
  const rows = await runSql(ctx.em, recipesSql.selectFrom('assembly_bills')
    .select([sql<NodeKind>`'sub'`.as('kind'), 'assembly_id as id', sql<boolean>`archived_at is not null`.as('archived')])
    .where('shop_id', '=', s).where('assembly_id', '=', anyOf(ids.sub))
    .unionAll(recipesSql.selectFrom('cost_factors')
      .select([sql<NodeKind>`'cost'`.as('kind'), 'cost_factor_id as id', sql<boolean>`archived_at is not null`.as('archived')])
      .where('shop_id', '=', s).where('cost_factor_id', '=', anyOf(ids.cost)))
    // Materials are the materials module's: their select comes from the shop context's catalogue sources.
    .unionAll(ctx.catalog.materialStates(s, ids.raw)));
  for (const r of rows) out.set(`${r.kind}:${r.id}`, { exists: true, archived: Boolean(r.archived) });
  return out;
}

/** Which of the BOMs are archived (unknown ids: not archived). One statement. */
export async function archivedBomIds(ctx: ShopContext, bomIds: readonly string[]): Promise<Set<string>> {
  if (bomIds.length === 0) return new Set();
  const rows = await runSql(ctx.em, recipesSql.selectFrom('boms').select('bom_id')
    .where('shop_id', '=', ctx.shopId).where('bom_id', '=', sql<string>`any(${textArrayLiteral(bomIds)}::text[])`).where('archived_at', 'is not', null));
  return new Set(rows.map((r) => r.bom_id));
}

/** How many active BOMs the refusal names at most (the rest are counted). */
const MAX_NAMED_BOMS = 20;

/**
 * Active, unarchived BOMs whose recipe reaches the node — through base lines or location-rule
 * overrides that add or swap it in, at any depth of assembly bills. One statement (a recursive walk
 * up the recipes). Returns up to MAX_NAMED_BOMS + 1 ids, sorted.
 */
export async function activeBomsReaching(ctx: ShopContext, kind: NodeKind, nodeId: string): Promise<string[]> {
  const s = ctx.shopId;
  const introduced = sql<string>`coalesce(o.replacement_node_id, o.node_id)`;
  const rows = await runSql(ctx.em, recipesSql
    .withRecursive('up(owner_type, owner_id)', (db) => db.selectFrom('recipe_lines as l').select(['l.owner_type', 'l.owner_id'])
      .where('l.shop_id', '=', s).where('l.line_type', '=', kind).where('l.node_id', '=', nodeId)
      .union(db.selectFrom('location_rule_overrides as o').select(['o.owner_type', 'o.owner_id'])
        .where('o.shop_id', '=', s).where('o.action', 'in', ['add', 'replace']).where(introduced, '=', nodeId))
      .union(db.selectFrom('up as u')
        .innerJoinLateral((eb) => eb.selectFrom('recipe_lines as l').select(['l.owner_type', 'l.owner_id'])
          .where('l.shop_id', '=', s).where('l.line_type', '=', 'sub').whereRef('l.node_id', '=', 'u.owner_id')
          .unionAll(eb.selectFrom('location_rule_overrides as o').select(['o.owner_type', 'o.owner_id'])
            .where('o.shop_id', '=', s).where('o.action', 'in', ['add', 'replace']).where(introduced, '=', sql<string>`u.owner_id`))
          .as('p'), (j) => j.onTrue())
        .select(['p.owner_type', 'p.owner_id'])
        .where('u.owner_type', '=', 'sub_assembly')))
    .selectFrom('up as u')
    .innerJoin('boms as b', (j) => j.on('b.shop_id', '=', s).onRef('b.bom_id', '=', 'u.owner_id'))
    .select('b.bom_id')
    .where('u.owner_type', '=', 'bom').where('b.status', '=', 'active').where('b.archived_at', 'is', null)
    .orderBy('b.bom_id').limit(MAX_NAMED_BOMS + 1));
  return rows.map((r) => r.bom_id);
}

/** CONFLICT when active BOMs still reach the node: archiving it would leave them unbuildable from the catalogue. */
export async function refuseArchiveWhileUsed(ctx: ShopContext, kind: NodeKind, nodeId: string, label: string): Promise<void> {
  const boms = await activeBomsReaching(ctx, kind, nodeId);
  if (boms.length === 0) return;
  const named = boms.slice(0, MAX_NAMED_BOMS).join(', ') + (boms.length > MAX_NAMED_BOMS ? ' and more' : '');
  throw new DomainError('CONFLICT', `${label} ${nodeId} is still used by active BOMs (${named}); remove it from their recipes or make them inactive first`, {
    blockers: boms.slice(0, MAX_NAMED_BOMS).map((bomId) => ({ code: 'USED_BY_ACTIVE_BOM' satisfies CatalogBlockerCode, message: bomId })),
  });
}

/**
 * A sub-assembly path from `start` back to itself, or null. Iterative depth-first search over
 * `edges` (recipes can be deep); the path repeats its first id at the end.
 */
function cycleThrough(start: string, edges: (assemblyId: string) => readonly string[]): string[] | null {
  const visited = new Set<string>([start]);
  const path: string[] = [start];
  const next: number[] = [0];
  while (path.length > 0) {
    const top = path.length - 1;
    const out = edges(path[top]!);
    const i = next[top]!;
    if (i >= out.length) {
      path.pop();
      next.pop();
      continue;
    }
    next[top] = i + 1;
    const to = out[i]!;
    if (to === start) return [...path, start];
    if (visited.has(to)) continue;
    visited.add(to);
    path.push(to);
    next.push(0);
  }
  return null;
}

/**
 * Refuses (INVALID_INPUT on `field`) a save of an assembly bill whose recipe would reach the bill
 * itself: in the base recipes, or at a location whose rules add or swap in assembly bills. `change`
 * is the bill as it will be saved: new base lines, or its new rule at one location (null: removed);
 * absent = as stored. One statement:
 * the forest of the bill and of every node the change names.
 */
export async function refuseRecipeCycle(
  tx: ShopContext, assemblyId: string, change: { lines?: readonly EngineLine[]; ruleAt?: { locationId: string; overrides: EngineOverride[] | null } }, field: string,
): Promise<void> {
  const self: BillKey = { ownerType: 'sub_assembly', ownerId: assemblyId };
  // Roots: the bill and every id the change names (ids that are not assembly bills are simply absent).
  const named = new Set<string>();
  for (const line of change.lines ?? []) if (line.lineType === 'sub') named.add(line.nodeId);
  for (const o of change.ruleAt?.overrides ?? []) named.add(o.replacementNodeId ?? o.nodeId);
  const loaded = await loadRecipeForest(tx, [self, ...[...named].map((id) => ({ ownerType: 'sub_assembly' as const, ownerId: id }))]);
  const current = loaded.bills.get(billKeyString(self));
  const saved: EngineBill = {
    key: self, name: current?.name ?? '', onlyConsumePreassembled: current?.onlyConsumePreassembled ?? false, variantId: null, status: null,
    lines: [...(change.lines ?? current?.lines ?? [])],
    rules: new Map(current?.rules ?? []),
  };
  if (change.ruleAt) {
    if (change.ruleAt.overrides === null) saved.rules.delete(change.ruleAt.locationId);
    else saved.rules.set(change.ruleAt.locationId, change.ruleAt.overrides);
  }
  const forest: RecipeForest = { bills: new Map([...loaded.bills, [billKeyString(self), saved]]), lineCache: new Map() };
  const locations = new Set<string>();
  for (const bill of forest.bills.values()) for (const locationId of bill.rules.keys()) locations.add(locationId);
  for (const locationId of [null, ...[...locations].sort()]) {
    const path = cycleThrough(assemblyId, (id) =>
      effectiveLines(forest, { ownerType: 'sub_assembly', ownerId: id }, locationId).filter((l) => l.lineType === 'sub').map((l) => l.nodeId));
    if (path) {
      const where = locationId === null ? '' : ` at location ${locationId} (with the location rules there)`;
      throw DomainError.invalid(field, `would make a recipe cycle${where}: ${path.join(' → ')}`);
    }
  }
}
