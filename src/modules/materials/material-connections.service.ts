import { exact } from '../../numbers/index.ts';
import type { ShopContext } from '../../shop-context.ts';

/**
 * One use of a material by a bill. `source: "recipe"` is a line of the bill's own (base) recipe and
 * applies at every location (`locationId` null) unless a location rule changes it there;
 * `source: "locationRule"` is an override of the bill's rule for `locationId` that adds, adjusts,
 * replaces or removes this material there, with the quantity that results at that location
 * (0 when the rule removes it or replaces it by another node).
 */
export interface MaterialConnection {
  ownerType: 'bom' | 'sub_assembly';
  ownerId: string;
  name: string;
  status: string | null;
  quantity: string;
  wastePercentage: string;
  source: 'recipe' | 'locationRule';
  action: 'add' | 'adjust' | 'replace' | 'remove' | null;
  locationId: string | null;
  locationName: string | null;
}

export interface MaterialConnections { boms: MaterialConnection[]; subAssemblies: MaterialConnection[] }

/** Which bills use a material, directly or through a location rule. Two round trips (the uses, the location names). */
export async function materialConnections(ctx: ShopContext, variantId: string): Promise<MaterialConnections> {
  const [rows, locations] = await Promise.all([
    ctx.em.execute<Record<string, any>[]>(
      `select u.*, coalesce(b.name, a.name, u.owner_id) as name, b.status
         from (
           select 'recipe' as source, r.owner_type, r.owner_id, null as location_id, null as action, r.quantity, r.waste_percentage, r.position
             from recipe_lines r
            where r.shop_id = ? and r.line_type = 'raw' and r.node_id = ?
           union all
           select 'locationRule', o.owner_type, o.owner_id, o.location_id, o.action,
                  case when o.action = 'remove' or (o.action = 'replace' and o.replacement_node_id is distinct from ?) then 0
                       else coalesce(o.quantity, base.quantity, 0) end,
                  case when o.action = 'remove' or (o.action = 'replace' and o.replacement_node_id is distinct from ?) then 0
                       else coalesce(o.waste_percentage, base.waste_percentage, 0) end,
                  o.position
             from location_rule_overrides o
             left join lateral (
               select l.quantity, l.waste_percentage from recipe_lines l
                where l.shop_id = o.shop_id and l.owner_type = o.owner_type and l.owner_id = o.owner_id
                  and l.line_type = 'raw' and l.node_id = o.node_id
                order by l.position limit 1) base on true
            where o.shop_id = ? and (o.node_id = ? or o.replacement_node_id = ?)
         ) u
         left join boms b on b.shop_id = ? and u.owner_type = 'bom' and b.bom_id = u.owner_id
         left join assembly_bills a on a.shop_id = ? and u.owner_type = 'sub_assembly' and a.assembly_id = u.owner_id
        order by u.owner_id, u.location_id nulls first, u.position`,
      [ctx.shopId, variantId, variantId, variantId, ctx.shopId, variantId, variantId, ctx.shopId, ctx.shopId],
    ),
    ctx.platform.listLocations(),
  ]);
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  const entries = rows.map((r): MaterialConnection => ({
    ownerType: r.owner_type, ownerId: r.owner_id, name: r.name, status: r.status ?? null,
    quantity: exact(r.quantity).toFixed(), wastePercentage: exact(r.waste_percentage).toFixed(),
    source: r.source, action: r.action ?? null, locationId: r.location_id ?? null,
    locationName: r.location_id ? (names.get(r.location_id) ?? null) : null,
  }));
  return { boms: entries.filter((e) => e.ownerType === 'bom'), subAssemblies: entries.filter((e) => e.ownerType === 'sub_assembly') };
}
