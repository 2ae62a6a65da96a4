import { sql, type Expression } from 'kysely';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { recipesSql } from './tables.ts';
import type { BillOwnerType, LocationRuleAction, MaterialUsageSource } from './recipe-vocabulary.ts';

// What the materials module (a higher tier) reads of the recipes: fragments it puts into its own
// list statements (a page and its usage figures stay one statement) and the uses of materials.

/** The raw recipe lines naming a material (correlated to the caller's row): `exists (…)` is "used". */
export function rawLinesNaming(shopId: Expression<string>, variantId: Expression<string>) {
  return recipesSql.selectFrom('recipe_lines as r').select(sql.lit(1).as('one'))
    .where('r.shop_id', '=', shopId).where('r.line_type', '=', sql.lit('raw')).where('r.node_id', '=', variantId);
}

/** How many bills of one owner type name a material in a raw line, as a scalar subquery correlated to the caller's row. */
export function rawUseCount(shopId: Expression<string>, variantId: Expression<string>, ownerType: BillOwnerType) {
  return recipesSql.selectFrom('recipe_lines as r')
    .select((eb) => eb.fn.count<string>('r.owner_id').distinct().as('uses'))
    .where('r.shop_id', '=', shopId).where('r.line_type', '=', sql.lit('raw')).where('r.node_id', '=', variantId)
    .where('r.owner_type', '=', sql.lit(ownerType)).$asScalar();
}

/**
 * Every use of the materials by a bill, in one read: the raw lines of base recipes (every location)
 * and the location-rule overrides that add, adjust, replace or remove them (the quantity that
 * results there: 0 when removed or replaced by another node), with the bill's name and status,
 * ordered by material, bill, location (base recipe first), position.
 */
export async function materialUses(ctx: ShopContext, variantIds: readonly string[]) {
  const ids = textArrayLiteral(variantIds);
  const shopId = ctx.shopId;
  // The override leaves the material out at its location: removed, or replaced by another node.
  const leftOut = sql`o.action = 'remove' or (o.action = 'replace' and o.replacement_node_id is distinct from m.variant_id)`;
  const uses = recipesSql.selectFrom('recipe_lines as r')
    .select([
      'r.node_id as material_id', sql<MaterialUsageSource>`'recipe'`.as('source'), 'r.owner_type', 'r.owner_id',
      sql<string | null>`null`.as('location_id'), sql<LocationRuleAction | null>`null`.as('action'),
      'r.quantity', 'r.waste_percentage', 'r.position',
    ])
    .where('r.shop_id', '=', shopId).where('r.line_type', '=', sql.lit('raw')).where('r.node_id', '=', sql<string>`any(${ids}::text[])`)
    .unionAll(recipesSql.selectFrom('location_rule_overrides as o')
      .innerJoin(sql<{ variant_id: string }>`unnest(${ids}::text[])`.as<'m'>(sql`m(variant_id)`),
        (join) => join.on(sql<boolean>`o.node_id = m.variant_id or o.replacement_node_id = m.variant_id`))
      .leftJoinLateral((eb) => eb.selectFrom('recipe_lines as l').select(['l.quantity', 'l.waste_percentage'])
        .whereRef('l.shop_id', '=', 'o.shop_id').whereRef('l.owner_type', '=', 'o.owner_type').whereRef('l.owner_id', '=', 'o.owner_id')
        .where('l.line_type', '=', sql.lit('raw')).whereRef('l.node_id', '=', 'o.node_id')
        .orderBy('l.position').limit(1).as('base'), (join) => join.onTrue())
      .select([
        'm.variant_id as material_id', sql<'locationRule'>`'locationRule'`.as('source'), 'o.owner_type', 'o.owner_id', 'o.location_id', 'o.action',
        sql<string>`case when ${leftOut} then 0 else coalesce(o.quantity, base.quantity, 0) end`.as('quantity'),
        sql<string>`case when ${leftOut} then 0 else coalesce(o.waste_percentage, base.waste_percentage, 0) end`.as('waste_percentage'),
        'o.position',
      ])
      .where('o.shop_id', '=', shopId));
  return runSql(ctx.em, recipesSql.selectFrom(uses.as('u'))
    .leftJoin('boms as b', (join) => join.on('b.shop_id', '=', shopId).on('u.owner_type', '=', sql.lit('bom')).onRef('b.bom_id', '=', 'u.owner_id'))
    .leftJoin('assembly_bills as a', (join) => join.on('a.shop_id', '=', shopId).on('u.owner_type', '=', sql.lit('sub_assembly')).onRef('a.assembly_id', '=', 'u.owner_id'))
    .selectAll('u')
    .select((eb) => [eb.fn.coalesce('b.name', 'a.name', 'u.owner_id').as('name'), 'b.status'])
    .orderBy('u.material_id').orderBy('u.owner_id').orderBy(sql`u.location_id nulls first`).orderBy('u.position'));
}
