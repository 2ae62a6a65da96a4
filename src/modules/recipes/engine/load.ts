import { textArrayLiteral } from '../../../db/sql-arrays.ts';
import type { ShopContext } from '../../../shop-context.ts';
import { exact } from '../../../numbers/index.ts';
import type { BillOwnerType, BomStatus, LocationRuleAction, RecipeLineType } from '../recipe-vocabulary.ts';
import { billKeyString, type BillKey, type EngineBill, type EngineLine, type RecipeForest } from './types.ts';

interface ForestRow {
  kind: 'bill' | 'line' | 'rule' | 'override';
  owner_type: BillOwnerType;
  owner_id: string;
  name: string | null;
  only_consume: boolean | null;
  variant_id: string | null;
  status: BomStatus | null;
  line_type: RecipeLineType | null;
  position: number | null;
  node_id: string | null;
  quantity: string | null;
  waste: string | null;
  location_id: string | null;
  action: LocationRuleAction | null;
  replacement_node_id: string | null;
  introduces_assembly: boolean | null;
}

// One statement: the recursive CTE walks sub-assembly lines and the assemblies location rules add or
// swap in (UNION de-duplicates, so shared assemblies are visited once and the walk ends on a DAG);
// then the bills, their lines, rules and overrides come back as one tagged row set. The planner
// cannot estimate how many bills the walk reaches, and with a guess it hashes whole tables; the
// lateral subqueries (fenced with `offset 0` so they are not flattened back into joins) make every
// table an index probe per reached bill, so the cost follows the recipe, not the shop.
const SEED_ROOTS = `select r.owner_type, r.owner_id from unnest(?::text[], ?::text[]) as r(owner_type, owner_id)`;
const SEED_ALL_BOMS = `select 'bom'::text, b.bom_id::text from boms b where b.shop_id = ?`;

function forestSql(seed: string): string {
  return `
with recursive reach(owner_type, owner_id) as (
  ${seed}
  union
  select 'sub_assembly'::text, e.node_id::text
    from reach r
    join lateral (
      select l.node_id from recipe_lines l
       where l.shop_id = ? and l.owner_type = r.owner_type and l.owner_id = r.owner_id and l.line_type = 'sub'
      union all
      select coalesce(o.replacement_node_id, o.node_id) from location_rule_overrides o
        join assembly_bills x on x.shop_id = o.shop_id and x.assembly_id = coalesce(o.replacement_node_id, o.node_id)
       where o.shop_id = ? and o.owner_type = r.owner_type and o.owner_id = r.owner_id and o.action in ('add', 'replace')
    ) e on true
)
select 'bill' as kind, r.owner_type, r.owner_id, coalesce(b.name, a.name) as name, a.only_consume_preassembled as only_consume,
       b.variant_id, b.status, null as line_type, null::int as position, null as node_id, null as quantity, null as waste,
       null as location_id, null as action, null as replacement_node_id, null::boolean as introduces_assembly
  from reach r
  left join lateral (select b.name, b.variant_id, b.status, b.bom_id from boms b
                      where r.owner_type = 'bom' and b.shop_id = ? and b.bom_id = r.owner_id offset 0) b on true
  left join lateral (select a.name, a.only_consume_preassembled, a.assembly_id from assembly_bills a
                      where r.owner_type = 'sub_assembly' and a.shop_id = ? and a.assembly_id = r.owner_id offset 0) a on true
 where b.bom_id is not null or a.assembly_id is not null
union all
select 'line', r.owner_type, r.owner_id, null, null, null, null, l.line_type, l.position, l.node_id, l.quantity::text,
       l.waste_percentage::text, null, null, null, null
  from reach r cross join lateral (select l.line_type, l.position, l.node_id, l.quantity, l.waste_percentage from recipe_lines l
                                    where l.shop_id = ? and l.owner_type = r.owner_type and l.owner_id = r.owner_id offset 0) l
union all
select 'rule', r.owner_type, r.owner_id, null, null, null, null, null, null, null, null, null, g.location_id, null, null, null
  from reach r cross join lateral (select g.location_id from location_rules g
                                    where g.shop_id = ? and g.owner_type = r.owner_type and g.owner_id = r.owner_id offset 0) g
union all
select 'override', r.owner_type, r.owner_id, null, null, null, null, null, o.position, o.node_id, o.quantity::text,
       o.waste_percentage::text, o.location_id, o.action, o.replacement_node_id, (x.assembly_id is not null)
  from reach r cross join lateral (select o.* from location_rule_overrides o
                                    where o.shop_id = ? and o.owner_type = r.owner_type and o.owner_id = r.owner_id offset 0) o
  left join assembly_bills x on x.shop_id = o.shop_id and x.assembly_id = coalesce(o.replacement_node_id, o.node_id)`;
}

const LINE_ORDER = { raw: 0, sub: 1, cost: 2 } as const;

function toForest(rows: ForestRow[]): RecipeForest {
  const bills = new Map<string, EngineBill>();
  for (const r of rows) {
    if (r.kind !== 'bill') continue;
    bills.set(billKeyString({ ownerType: r.owner_type, ownerId: r.owner_id }), {
      key: { ownerType: r.owner_type, ownerId: r.owner_id },
      name: r.name ?? '',
      onlyConsumePreassembled: r.owner_type === 'sub_assembly' && r.only_consume === true,
      variantId: r.variant_id,
      status: r.status,
      lines: [],
      rules: new Map(),
    });
  }
  for (const r of rows) {
    const bill = bills.get(billKeyString({ ownerType: r.owner_type, ownerId: r.owner_id }));
    if (!bill || r.kind === 'bill') continue;
    if (r.kind === 'line') {
      const line: EngineLine = {
        lineType: r.line_type!, nodeId: r.node_id!, quantity: exact(r.quantity!), wastePercentage: exact(r.waste ?? '0'),
        position: Number(r.position), changedBy: null,
      };
      bill.lines.push(line);
    } else {
      const overrides = bill.rules.get(r.location_id!) ?? [];
      bill.rules.set(r.location_id!, overrides);
      if (r.kind === 'override') {
        overrides.push({
          action: r.action!, position: Number(r.position), nodeId: r.node_id!, replacementNodeId: r.replacement_node_id,
          quantity: r.quantity === null ? null : exact(r.quantity), wastePercentage: r.waste === null ? null : exact(r.waste),
          introducesAssembly: r.introduces_assembly === true,
        });
      }
    }
  }
  for (const bill of bills.values()) {
    bill.lines.sort((a, b) => LINE_ORDER[a.lineType] - LINE_ORDER[b.lineType] || a.position - b.position);
    for (const overrides of bill.rules.values()) overrides.sort((a, b) => a.position - b.position);
  }
  return { bills, lineCache: new Map() };
}

/**
 * Loads every bill reachable from the roots — following sub-assembly lines AND sub-assemblies added
 * or substituted by location rules — in ONE SQL round trip (recursive CTE), whatever the depth or
 * width. Unknown roots are simply absent (hasBill returns false).
 */
export async function loadRecipeForest(ctx: ShopContext, roots: readonly BillKey[]): Promise<RecipeForest> {
  if (roots.length === 0) return { bills: new Map(), lineCache: new Map() };
  const s = ctx.shopId;
  const rows = await ctx.em.execute<ForestRow[]>(forestSql(SEED_ROOTS), [
    textArrayLiteral(roots.map((r) => r.ownerType)), textArrayLiteral(roots.map((r) => r.ownerId)), s, s, s, s, s, s, s,
  ]);
  return toForest(rows);
}

/** The forest of every BOM of the shop (lists and stats), in one SQL round trip. */
export async function loadShopRecipeForest(ctx: ShopContext): Promise<RecipeForest> {
  const s = ctx.shopId;
  const rows = await ctx.em.execute<ForestRow[]>(forestSql(SEED_ALL_BOMS), [s, s, s, s, s, s, s, s]);
  return toForest(rows);
}
