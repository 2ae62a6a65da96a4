import { sql } from 'kysely';
import { STOCKED_LINE_TYPES } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

/**
 * Every bill that consumes a material at any depth, as the recursive CTEs `edges` and
 * `parents(owner_type, owner_id)` of a query to select from `parents`: bills whose own raw lines
 * name it or whose location rules add it or swap it in, then, upward, every bill whose
 * sub-assembly lines (or rule-added / swapped-in assemblies) lead to one of those. One CTE,
 * whatever the depth. Whether the material really reaches a parent at a given location is left to
 * the recipe engine (a rule may remove it there).
 */
export function materialParents(shopId: string, variantId: string) {
  return recipesSql
    .withRecursive('edges(owner_type, owner_id, child, via_assembly)', (db) => db.selectFrom('recipe_lines')
      .select(['owner_type', 'owner_id', 'node_id as child', sql<boolean | null>`line_type = 'sub'`.as('via_assembly')])
      .where('shop_id', '=', shopId).where('line_type', 'in', STOCKED_LINE_TYPES.map((t) => sql.lit(t)))
      .unionAll(db.selectFrom('location_rule_overrides')
        .select(['owner_type', 'owner_id', sql<string>`case when action = 'add' then node_id else replacement_node_id end`.as('child'), sql<boolean | null>`null`.as('via_assembly')])
        .where('shop_id', '=', shopId).where(sql<boolean>`action in ('add', 'replace')`)))
    .withRecursive('parents(owner_type, owner_id)', (db) => db.selectFrom('edges').select(['owner_type', 'owner_id']).distinct()
      .where('child', '=', variantId).where(sql<boolean>`via_assembly is not true`)
      .union(db.selectFrom('edges as e').innerJoin('parents as p', (j) => j.on('p.owner_type', '=', sql.lit('sub_assembly')).onRef('e.child', '=', 'p.owner_id'))
        .select(['e.owner_type', 'e.owner_id']).where(sql<boolean>`e.via_assembly is not false`)));
}

/**
 * Every bill that consumes any of `childIds` at any depth — a material, or an assembly bill (its
 * shelf) — as the recursive CTEs `edges` and `parents(owner_type, owner_id)`: the bills whose own
 * lines or location rules name one of them, then, upward, every bill whose sub-assembly lines lead
 * to one of those. One CTE, whatever the depth or the number of ids.
 */
export function billsUsingAny(shopId: string, childIds: readonly string[]) {
  return recipesSql
    .withRecursive('edges(owner_type, owner_id, child)', (db) => db.selectFrom('recipe_lines')
      .select(['owner_type', 'owner_id', 'node_id as child'])
      .where('shop_id', '=', shopId).where('line_type', 'in', STOCKED_LINE_TYPES.map((t) => sql.lit(t)))
      .unionAll(db.selectFrom('location_rule_overrides')
        .select(['owner_type', 'owner_id', sql<string>`case when action = 'add' then node_id else replacement_node_id end`.as('child')])
        .where('shop_id', '=', shopId).where(sql<boolean>`action in ('add', 'replace')`)))
    .withRecursive('parents(owner_type, owner_id)', (db) => db.selectFrom('edges').select(['owner_type', 'owner_id']).distinct()
      .where('child', 'in', [...new Set(childIds)])
      .union(db.selectFrom('edges as e').innerJoin('parents as p', (j) => j.on('p.owner_type', '=', sql.lit('sub_assembly')).onRef('e.child', '=', 'p.owner_id'))
        .select(['e.owner_type', 'e.owner_id'])));
}
