import { exact } from '../../kernel/numbers/index.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { materialUses } from '../boms/for-materials.ts';
import type { BillOwnerType, BomStatus, LocationRuleAction } from '../boms/recipe-vocabulary.ts';
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
  const [rows, locations] = await Promise.all([materialUses(ctx, variantIds), ctx.platform.listLocations()]);
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
