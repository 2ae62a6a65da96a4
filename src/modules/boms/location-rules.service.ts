import { DomainError } from '../../kernel/domain-error.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { effectiveLines, explodeToLeaves, getBill, loadRecipeForest, type BillKey, type RecipeForest } from './engine/index.ts';
import { forestNodeIds, loadMaterials } from './recipe-data.ts';
import type { BillOwnerType, LocationRuleAction, StockedLineType } from './recipe-vocabulary.ts';

export interface LineChangeView {
  change: LocationRuleAction; lineType: StockedLineType; nodeId: string; replacesNodeId: string | null;
  quantity: string | null; wastePercentage: string | null; baseQuantity: string | null; baseWastePercentage: string | null;
}
export interface BillRuleView { ownerType: BillOwnerType; ownerId: string; name: string; lineChanges: LineChangeView[] }
export interface MaterialNeedChangeView { variantId: string; name: string | null; baseQuantityPerUnit: string; quantityPerUnit: string }
export interface LocationRulesLocationView {
  locationId: string; locationName: string; usesBaseRecipe: boolean; rules: BillRuleView[]; materialChanges: MaterialNeedChangeView[];
}
export interface LocationRulesView { bomId: string; locations: LocationRulesLocationView[] }

/** Bills of the tree as a location sees it (rules applied), the root first. */
function billsAt(forest: RecipeForest, root: BillKey, locationId: string): BillKey[] {
  const seen = new Set<string>();
  const out: BillKey[] = [root];
  const walk = (key: BillKey) => {
    for (const l of effectiveLines(forest, key, locationId)) {
      if (l.lineType !== 'sub' || seen.has(l.nodeId)) continue;
      seen.add(l.nodeId);
      out.push({ ownerType: 'sub_assembly', ownerId: l.nodeId });
      walk({ ownerType: 'sub_assembly', ownerId: l.nodeId });
    }
  };
  walk(root);
  return out;
}

function lineChanges(forest: RecipeForest, key: BillKey, locationId: string): LineChangeView[] {
  const bill = getBill(forest, key)!;
  const base = (nodeId: string) => bill.lines.find((l) => l.lineType !== 'cost' && l.nodeId === nodeId);
  const now = effectiveLines(forest, key, locationId);
  const changes: LineChangeView[] = [];
  for (const o of bill.rules.get(locationId) ?? []) {
    const before = base(o.nodeId);
    if (o.action === 'add') {
      const added = now.find((l) => l.changedBy === 'add' && l.nodeId === o.nodeId);
      if (added && added.lineType !== 'cost') {
        changes.push({ change: 'add', lineType: added.lineType, nodeId: added.nodeId, replacesNodeId: null, quantity: added.quantity.toFixed(),
          wastePercentage: added.wastePercentage.toFixed(), baseQuantity: null, baseWastePercentage: null });
      }
      continue;
    }
    if (!before || before.lineType === 'cost') continue;
    const after = o.action === 'remove' ? undefined
      : now.find((l) => l.lineType === before.lineType && l.position === before.position);
    changes.push({
      change: o.action, lineType: before.lineType, nodeId: after?.nodeId ?? before.nodeId, replacesNodeId: o.action === 'replace' ? before.nodeId : null,
      quantity: after?.quantity.toFixed() ?? null, wastePercentage: after?.wastePercentage.toFixed() ?? null,
      baseQuantity: before.quantity.toFixed(), baseWastePercentage: before.wastePercentage.toFixed(),
    });
  }
  return changes;
}

/**
 * What the BOM does at every location: the rules that apply there (the BOM's own and those of every
 * assembly bill the tree reaches at that location, with each changed line against the base recipe),
 * and the leaf materials whose need per finished unit differs from the base recipe (waste included,
 * non-essential materials too). Locations by name then id. Round trips: forest, materials, locations.
 */
export async function bomLocationRules(ctx: ShopContext, bomId: string): Promise<LocationRulesView> {
  const root: BillKey = { ownerType: 'bom', ownerId: bomId };
  const forest = await loadRecipeForest(ctx, [root]);
  if (!getBill(forest, root)) throw DomainError.notFound('bom', bomId);
  const materials = await loadMaterials(ctx, forestNodeIds(forest).materials);
  const locations = await ctx.platform.listLocations();
  const base = explodeToLeaves(forest, root, null);
  return {
    bomId,
    locations: locations.map((location) => {
      const rules = billsAt(forest, root, location.locationId)
        .filter((key) => getBill(forest, key)?.rules.has(location.locationId))
        .map((key) => ({ ownerType: key.ownerType, ownerId: key.ownerId, name: getBill(forest, key)!.name, lineChanges: lineChanges(forest, key, location.locationId) }));
      const here = explodeToLeaves(forest, root, location.locationId);
      const ids = [...new Set([...base.keys(), ...here.keys()])].sort();
      const materialChanges = ids
        .filter((id) => !(base.get(id)?.eq(here.get(id) ?? -1) ?? false))
        .map((id) => ({ variantId: id, name: materials.get(id)?.productName ?? null, baseQuantityPerUnit: base.get(id)?.toFixed() ?? '0', quantityPerUnit: here.get(id)?.toFixed() ?? '0' }));
      return {
        locationId: location.locationId, locationName: location.name,
        usesBaseRecipe: rules.every((r) => r.lineChanges.length === 0), rules, materialChanges,
      };
    }),
  };
}
