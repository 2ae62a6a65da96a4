import { STOCKED_LINE_TYPES } from './recipe-vocabulary.ts';

/**
 * SQL (a `with recursive` prefix) for every bill that consumes a material at any depth: bills whose
 * own raw lines name it or whose location rules add it or swap it in, then, upward, every bill
 * whose sub-assembly lines (or rule-added / swapped-in assemblies) lead to one of those. One CTE,
 * whatever the depth. Parameters: shopId, shopId, variantId. Yields `parents(owner_type, owner_id)`.
 * Whether the material really reaches a parent at a given location is left to the recipe engine
 * (a rule may remove it there).
 */
export const PARENTS_CTE = `with recursive edges as (
    select owner_type, owner_id, node_id as child, line_type = 'sub' as via_assembly
      from recipe_lines where shop_id = ? and line_type in (${STOCKED_LINE_TYPES.map((t) => `'${t}'`).join(', ')})
    union all
    select owner_type, owner_id, case when action = 'add' then node_id else replacement_node_id end, null
      from location_rule_overrides where shop_id = ? and action in ('add', 'replace')
  ), parents(owner_type, owner_id) as (
    select distinct owner_type, owner_id from edges where child = ? and via_assembly is not true
    union
    select e.owner_type, e.owner_id from edges e join parents p on p.owner_type = 'sub_assembly' and e.child = p.owner_id and e.via_assembly is not false
  )`;
