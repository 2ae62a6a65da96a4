import { Decimal } from 'decimal.js';
import { canonicalDecimal } from './exact-number.ts';
import type { CheckContext } from './check-context.ts';
import { expectKnown, expectLocation, expectUniqueKeys, present, report, resolveOwner } from './check-context.ts';
import type { DatasetLevel, DatasetLocationOverride, DatasetLocationRule, DatasetRecipe } from './types.ts';

// Cross-record rules of the catalogue: platform variants, materials, recipes and location rules.

export function checkCatalog(ctx: CheckContext): void {
  checkVariants(ctx);
  checkMaterials(ctx);
  for (const [bill, i] of present(ctx.dataset.assemblyBills)) checkRecipe(ctx, bill, `$.assemblyBills[${i}]`);
  checkBoms(ctx);
  checkLocationRules(ctx);
}

function checkLevels(ctx: CheckContext, levels: readonly DatasetLevel[] | null, path: string, mayBeNegative: boolean): void {
  for (const [level, j] of present(levels)) {
    expectLocation(ctx, `${path}[${j}].locationId`, level.locationId);
    if (!mayBeNegative && level.available !== null && level.available.startsWith('-')) {
      report(ctx, `${path}[${j}].available`, `must be at least 0 unless shop.settings.allowNegativeInventory is true, got ${level.available}`);
    }
  }
  expectUniqueKeys(ctx, levels, (l) => [l.locationId], (j) => `${path}[${j}].locationId`, (l) => `level for location "${l.locationId}"`);
}

function checkVariants(ctx: CheckContext): void {
  // Platform levels are the platform's own truth: an oversold platform may report negatives.
  for (const [variant, i] of present(ctx.dataset.platform?.variants)) {
    checkLevels(ctx, variant.levels, `$.platform.variants[${i}].levels`, true);
  }
}

function checkMaterials(ctx: CheckContext): void {
  const allowNegative = ctx.dataset.shop?.settings?.allowNegativeInventory === true;
  for (const [material, i] of present(ctx.dataset.materials)) {
    const path = `$.materials[${i}]`;
    if (material.origin === 'virtual') {
      checkLevels(ctx, material.levels, `${path}.levels`, allowNegative);
      continue;
    }
    if (typeof material.variantId !== 'string') continue;
    const variant = ctx.variants.get(material.variantId);
    if (!variant) {
      report(ctx, `${path}.variantId`, `unknown platform variant "${material.variantId}"`);
      continue;
    }
    if (material.cachedQuantity === null) {
      // Filling the default here, where the variant is at hand, keeps it next to its rule.
      const total = (variant.levels ?? []).reduce((sum, level) => (level?.available ? sum.plus(level.available) : sum), new Decimal(0));
      material.cachedQuantity = canonicalDecimal(total);
    }
  }
}

function checkRecipe(ctx: CheckContext, recipe: DatasetRecipe, path: string): void {
  for (const [line, j] of present(recipe.rawMaterialReferences)) {
    expectKnown(ctx, `${path}.rawMaterialReferences[${j}].nodeId`, line.nodeId, ctx.materials, 'material');
  }
  for (const [line, j] of present(recipe.subAssemblyReferences)) {
    expectKnown(ctx, `${path}.subAssemblyReferences[${j}].nodeId`, line.nodeId, ctx.assemblyBills, 'assembly bill');
  }
  for (const [line, j] of present(recipe.costFactorReferences)) {
    expectKnown(ctx, `${path}.costFactorReferences[${j}].costFactorId`, line.costFactorId, ctx.costFactors, 'cost factor');
  }
  // A node named twice in one list would make location rules (which target a node) ambiguous.
  for (const list of ['rawMaterialReferences', 'subAssemblyReferences'] as const) {
    expectUniqueKeys(ctx, recipe[list], (l) => [l.nodeId], (j) => `${path}.${list}[${j}].nodeId`, (l) => `line for "${l.nodeId}"`);
  }
  expectUniqueKeys(ctx, recipe.costFactorReferences, (l) => [l.costFactorId], (j) => `${path}.costFactorReferences[${j}].costFactorId`,
    (l) => `line for "${l.costFactorId}"`);
}

function checkBoms(ctx: CheckContext): void {
  const finishedGoods = new Map<string, string>();
  for (const [bom, i] of present(ctx.dataset.boms)) {
    const path = `$.boms[${i}]`;
    checkRecipe(ctx, bom, path);
    if (typeof bom.variantId !== 'string') continue;
    expectKnown(ctx, `${path}.variantId`, bom.variantId, ctx.variants, 'platform variant');
    // An order line finds its BOM through the variant, so one variant has one BOM.
    const other = finishedGoods.get(bom.variantId);
    if (other !== undefined) report(ctx, `${path}.variantId`, `variant "${bom.variantId}" is already the finished good of ${other}`);
    else if (typeof bom.bomId === 'string') finishedGoods.set(bom.variantId, bom.bomId);
  }
}

function checkLocationRules(ctx: CheckContext): void {
  const rules = ctx.dataset.locationRules;
  for (const [rule, i] of present(rules)) {
    const path = `$.locationRules[${i}]`;
    expectLocation(ctx, `${path}.locationId`, rule.locationId);
    const owner = resolveOwner(ctx, `${path}.ownerId`, rule.ownerType, rule.ownerId);
    if (owner) checkOverrides(ctx, rule, owner, path);
  }
  expectUniqueKeys(ctx, rules, (r) => [r.ownerType, r.ownerId, r.locationId], (i) => `$.locationRules[${i}]`,
    (r) => `rule for ${r.ownerType} "${r.ownerId}" at location "${r.locationId}"`);
}

type LineKind = 'material' | 'assembly';

function checkOverrides(ctx: CheckContext, rule: DatasetLocationRule, owner: DatasetRecipe, rulePath: string): void {
  const lineKind = new Map<string, LineKind>();
  for (const [line] of present(owner.rawMaterialReferences)) if (line.nodeId) lineKind.set(line.nodeId, 'material');
  for (const [line] of present(owner.subAssemblyReferences)) if (line.nodeId) lineKind.set(line.nodeId, 'assembly');
  const nodeKind = (nodeId: string): LineKind | undefined =>
    ctx.materials.has(nodeId) ? 'material' : ctx.assemblyBills.has(nodeId) ? 'assembly' : undefined;
  const firstOverride = new Map<string, number>();

  for (const [override, k] of present(rule.overrides)) {
    const path = `${rulePath}.overrides[${k}]`;
    const nodeId = override.nodeId;
    if (typeof nodeId !== 'string') continue;
    // Two overrides of one node in one rule would depend on their order; say it once.
    const first = firstOverride.get(nodeId);
    if (first !== undefined) report(ctx, `${path}.nodeId`, `"${nodeId}" already has an override in this rule (at ${rulePath}.overrides[${first}])`);
    else firstOverride.set(nodeId, k);

    const ownLine = lineKind.get(nodeId);
    if (override.action === 'add') {
      const kind = nodeKind(nodeId);
      if (!kind) report(ctx, `${path}.nodeId`, `unknown material or assembly bill "${nodeId}"`);
      else if (ownLine) report(ctx, `${path}.nodeId`, `"${nodeId}" is already a line of ${rule.ownerId}; use "adjust" to change it`);
      else if (kind === 'assembly') expectNoWaste(ctx, path, override);
      continue;
    }
    if (!ownLine) {
      report(ctx, `${path}.nodeId`, `"${nodeId}" is not a line of ${rule.ownerId}`);
      continue;
    }
    if (override.action === 'replace') {
      const replacement = override.replacementNodeId;
      if (typeof replacement === 'string' && nodeKind(replacement) !== ownLine) {
        const expected = ownLine === 'material' ? 'material' : 'assembly bill';
        report(ctx, `${path}.replacementNodeId`, `unknown ${expected} "${replacement}" (a replacement must be of the same kind as the replaced line)`);
      }
    }
    if (override.action === 'adjust' && override.quantity === null && override.wastePercentage === null) {
      report(ctx, path, 'an "adjust" override must set quantity or wastePercentage');
    }
    if (ownLine === 'assembly') expectNoWaste(ctx, path, override);
  }
}

/** Waste sits on raw-material lines only. */
function expectNoWaste(ctx: CheckContext, path: string, override: DatasetLocationOverride): void {
  if (override.action === 'remove' || override.wastePercentage === null) return;
  if (override.action === 'add' && override.wastePercentage === '0') return;
  report(ctx, `${path}.wastePercentage`, 'wastePercentage applies to raw-material lines only, not to assembly bills');
}
