import { exact } from '../../numbers/index.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import type { ShopContext } from '../../shop-context.ts';
import type { BillOwnerType, BomStatus, LocationRuleAction } from '../recipes/recipe-vocabulary.ts';
import type { MaterialUsageSource } from './material-vocabulary.ts';

/**
 * One use of a material by a bill. `source: "recipe"` is a line of the bill's own (base) recipe and
 * applies at every location (`locationId` null) unless a location rule changes it there;
 * `source: "locationRule"` is an override of the bill's rule for `locationId` that adds, adjusts,
 * replaces or removes this material there, with the quantity that results at that location
 * (0 when the rule removes it or replaces it by another node).
 */
export interface MaterialConnection {
  ownerType: BillOwnerType;
  ownerId: string;
  name: string;
  status: BomStatus | null;
  quantity: string;
  wastePercentage: string;
  source: MaterialUsageSource;
  action: LocationRuleAction | null;
  locationId: string | null;
  locationName: string | null;
}

export interface MaterialConnections { boms: MaterialConnection[]; subAssemblies: MaterialConnection[] }

/** Which bills use a material, directly or through a location rule. Two round trips (the uses, the location names). */
export async function materialConnections(ctx: ShopContext, variantId: string): Promise<MaterialConnections> {
  return (await materialConnectionsOf(ctx, [variantId]))[0]!;
}

/**
 * `materialConnections` of each of `variantIds`, in the same two round trips whatever their number
 * (a page of materials, each with its uses, is one read of the uses and one of the location names).
 */
export async function materialConnectionsOf(ctx: ShopContext, variantIds: readonly string[]): Promise<MaterialConnections[]> {
  const ids = textArrayLiteral(variantIds);
  const [rows, locations] = await Promise.all([
    ctx.em.execute<Record<string, any>[]>(
      `select u.*, coalesce(b.name, a.name, u.owner_id) as name, b.status
         from (
           select r.node_id as material_id, 'recipe' as source, r.owner_type, r.owner_id, null as location_id, null as action,
                  r.quantity, r.waste_percentage, r.position
             from recipe_lines r
            where r.shop_id = ? and r.line_type = 'raw' and r.node_id = any(?::text[])
           union all
           select m.variant_id, 'locationRule', o.owner_type, o.owner_id, o.location_id, o.action,
                  case when o.action = 'remove' or (o.action = 'replace' and o.replacement_node_id is distinct from m.variant_id) then 0
                       else coalesce(o.quantity, base.quantity, 0) end,
                  case when o.action = 'remove' or (o.action = 'replace' and o.replacement_node_id is distinct from m.variant_id) then 0
                       else coalesce(o.waste_percentage, base.waste_percentage, 0) end,
                  o.position
             from location_rule_overrides o
             join unnest(?::text[]) as m(variant_id) on o.node_id = m.variant_id or o.replacement_node_id = m.variant_id
             left join lateral (
               select l.quantity, l.waste_percentage from recipe_lines l
                where l.shop_id = o.shop_id and l.owner_type = o.owner_type and l.owner_id = o.owner_id
                  and l.line_type = 'raw' and l.node_id = o.node_id
                order by l.position limit 1) base on true
            where o.shop_id = ?
         ) u
         left join boms b on b.shop_id = ? and u.owner_type = 'bom' and b.bom_id = u.owner_id
         left join assembly_bills a on a.shop_id = ? and u.owner_type = 'sub_assembly' and a.assembly_id = u.owner_id
        order by u.material_id, u.owner_id, u.location_id nulls first, u.position`,
      [ctx.shopId, ids, ids, ctx.shopId, ctx.shopId, ctx.shopId],
    ),
    ctx.platform.listLocations(),
  ]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  const byMaterial = new Map<string, MaterialConnections>(variantIds.map((id) => [id, { boms: [], subAssemblies: [] }]));
  for (const r of rows) {
    const entry: MaterialConnection = {
      ownerType: r.owner_type, ownerId: r.owner_id, name: r.name, status: r.status ?? null,
      quantity: exact(r.quantity).toFixed(), wastePercentage: exact(r.waste_percentage).toFixed(),
      source: r.source, action: r.action ?? null, locationId: r.location_id ?? null,
      locationName: r.location_id ? (names.get(r.location_id) ?? null) : null,
    };
    const uses = byMaterial.get(r.material_id)!;
    (entry.ownerType === 'bom' ? uses.boms : uses.subAssemblies).push(entry);
  }
  return variantIds.map((id) => byMaterial.get(id)!);
}
