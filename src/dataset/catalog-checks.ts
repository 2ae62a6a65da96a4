import { Decimal } from 'decimal.js';
import { canonicalDecimal } from './exact-number.ts';
import type { BillLines, CheckContext } from './check-context.ts';
import { expectKnown, expectLocation, present, resolveOwner, UniqueKeys } from './check-context.ts';
import type { ProblemKind } from './problems.ts';
import type {
  DatasetBom, DatasetLevel, DatasetLocationOverride, DatasetLocationRule, DatasetMaterial, DatasetRecipe, DatasetVariant,
} from './types.ts';

// Cross-record rules of the catalogue: platform variants, materials, recipes and location rules,
// one record at a time.

function checkLevels(ctx: CheckContext, kind: ProblemKind, levels: readonly DatasetLevel[] | null, path: string, mayBeNegative: boolean): void {
  for (const [level, j] of present(levels)) {
    expectLocation(ctx, kind, `${path}[${j}].locationId`, level.locationId);
    if (!mayBeNegative && level.available !== null && level.available.startsWith('-')) {
      ctx.problems.add(kind, `${path}[${j}].available`, `must be at least 0 unless shop.settings.allowNegativeInventory is true, got ${level.available}`);
    }
  }
  UniqueKeys.check(ctx.problems, kind, levels, (l) => [l.locationId], (j) => `${path}[${j}].locationId`, (l) => `level for location "${l.locationId}"`);
}

export function checkVariant(ctx: CheckContext, variant: DatasetVariant, i: number): void {
  // Platform levels are the platform's own truth: an oversold platform may report negatives.
  checkLevels(ctx, 'catalog:variants', variant.levels, `$.platform.variants[${i}].levels`, true);
  // A platform-linked material without cachedQuantity gets this sum.
  if (typeof variant.variantId === 'string' && ctx.variantLevelSums && !ctx.variantLevelSums.has(variant.variantId)) {
    const total = (variant.levels ?? []).reduce((sum, level) => (level?.available ? sum.plus(level.available) : sum), new Decimal(0));
    ctx.variantLevelSums.set(variant.variantId, canonicalDecimal(total));
  }
}

export function checkMaterial(ctx: CheckContext, material: DatasetMaterial, i: number): void {
  const path = `$.materials[${i}]`;
  if (material.origin === 'virtual') {
    checkLevels(ctx, 'catalog:materials', material.levels, `${path}.levels`, ctx.allowNegativeInventory);
    return;
  }
  if (typeof material.variantId !== 'string') return;
  if (!ctx.variants.has(material.variantId)) {
    ctx.problems.add('catalog:materials', `${path}.variantId`, `unknown platform variant "${material.variantId}"`);
    return;
  }
  if (material.cachedQuantity === null) {
    // Filling the default here, where the variant's levels are at hand, keeps it next to its rule.
    material.cachedQuantity = ctx.variantLevelSums?.get(material.variantId) ?? '0';
  }
}

export function checkRecipe(ctx: CheckContext, kind: ProblemKind, recipe: DatasetRecipe, path: string): void {
  for (const [line, j] of present(recipe.rawMaterialReferences)) {
    expectKnown(ctx, kind, `${path}.rawMaterialReferences[${j}].nodeId`, line.nodeId, ctx.materials, 'material');
  }
  for (const [line, j] of present(recipe.subAssemblyReferences)) {
    expectKnown(ctx, kind, `${path}.subAssemblyReferences[${j}].nodeId`, line.nodeId, ctx.assemblyBills, 'assembly bill');
  }
  for (const [line, j] of present(recipe.costFactorReferences)) {
    expectKnown(ctx, kind, `${path}.costFactorReferences[${j}].costFactorId`, line.costFactorId, ctx.costFactors, 'cost factor');
  }
  // A node named twice in one list would make location rules (which target a node) ambiguous.
  for (const list of ['rawMaterialReferences', 'subAssemblyReferences'] as const) {
    UniqueKeys.check(ctx.problems, kind, recipe[list], (l) => [l.nodeId], (j) => `${path}.${list}[${j}].nodeId`, (l) => `line for "${l.nodeId}"`);
  }
  UniqueKeys.check(ctx.problems, kind, recipe.costFactorReferences, (l) => [l.costFactorId], (j) => `${path}.costFactorReferences[${j}].costFactorId`,
    (l) => `line for "${l.costFactorId}"`);
}

/** What location rules need of a bill: the node ids of its material and assembly lines. */
export function billLines(recipe: DatasetRecipe, index: number): BillLines {
  const ids = <T extends { nodeId: string }>(lines: readonly T[] | null) => [...present(lines)].map(([line]) => line.nodeId).filter((id) => typeof id === 'string');
  return { index, materials: ids(recipe.rawMaterialReferences), assemblies: ids(recipe.subAssemblyReferences) };
}

/** Checks BOMs one by one; remembers which variant is whose finished good. */
export class BomChecks {
  private readonly finishedGoods = new Map<string, string>();
  private readonly ctx: CheckContext;

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
  }

  check(bom: DatasetBom, i: number): void {
    const ctx = this.ctx;
    const path = `$.boms[${i}]`;
    checkRecipe(ctx, 'catalog:boms', bom, path);
    if (typeof bom.variantId !== 'string') return;
    expectKnown(ctx, 'catalog:boms', `${path}.variantId`, bom.variantId, ctx.variants, 'platform variant');
    // An order line finds its BOM through the variant, so one variant has one BOM.
    const other = this.finishedGoods.get(bom.variantId);
    if (other !== undefined) ctx.problems.add('catalog:boms', `${path}.variantId`, `variant "${bom.variantId}" is already the finished good of ${other}`);
    else if (typeof bom.bomId === 'string') this.finishedGoods.set(bom.variantId, bom.bomId);
  }
}

/** Checks location rules one by one (their composite keys too). */
export class LocationRuleChecks {
  private readonly ctx: CheckContext;
  private readonly keys: UniqueKeys<DatasetLocationRule>;

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
    this.keys = new UniqueKeys<DatasetLocationRule>(ctx.problems, 'catalog:locationRules:duplicates',
      (r) => [r.ownerType, r.ownerId, r.locationId], (i) => `$.locationRules[${i}]`,
      (r) => `rule for ${r.ownerType} "${r.ownerId}" at location "${r.locationId}"`);
  }

  check(rule: DatasetLocationRule, i: number): void {
    const ctx = this.ctx;
    const path = `$.locationRules[${i}]`;
    expectLocation(ctx, 'catalog:locationRules', `${path}.locationId`, rule.locationId);
    const owner = resolveOwner(ctx, 'catalog:locationRules', `${path}.ownerId`, rule.ownerType, rule.ownerId);
    if (owner) checkOverrides(ctx, rule, owner, path);
    this.keys.add(rule, i);
  }
}

type LineKind = 'material' | 'assembly';

function checkOverrides(ctx: CheckContext, rule: DatasetLocationRule, owner: BillLines, rulePath: string): void {
  const report = (path: string, message: string) => ctx.problems.add('catalog:locationRules', path, message);
  const lineKind = new Map<string, LineKind>();
  for (const nodeId of owner.materials) lineKind.set(nodeId, 'material');
  for (const nodeId of owner.assemblies) lineKind.set(nodeId, 'assembly');
  const nodeKind = (nodeId: string): LineKind | undefined =>
    ctx.materials.has(nodeId) ? 'material' : ctx.assemblyBills.has(nodeId) ? 'assembly' : undefined;
  const firstOverride = new Map<string, number>();

  for (const [override, k] of present(rule.overrides)) {
    const path = `${rulePath}.overrides[${k}]`;
    const nodeId = override.nodeId;
    if (typeof nodeId !== 'string') continue;
    // Two overrides of one node in one rule would depend on their order; say it once.
    const first = firstOverride.get(nodeId);
    if (first !== undefined) report(`${path}.nodeId`, `"${nodeId}" already has an override in this rule (at ${rulePath}.overrides[${first}])`);
    else firstOverride.set(nodeId, k);

    const ownLine = lineKind.get(nodeId);
    if (override.action === 'add') {
      const kind = nodeKind(nodeId);
      if (!kind) report(`${path}.nodeId`, `unknown material or assembly bill "${nodeId}"`);
      else if (ownLine) report(`${path}.nodeId`, `"${nodeId}" is already a line of ${rule.ownerId}; use "adjust" to change it`);
      else if (kind === 'assembly') expectNoWaste(report, path, override);
      continue;
    }
    if (!ownLine) {
      report(`${path}.nodeId`, `"${nodeId}" is not a line of ${rule.ownerId}`);
      continue;
    }
    if (override.action === 'replace') {
      const replacement = override.replacementNodeId;
      if (typeof replacement === 'string' && nodeKind(replacement) !== ownLine) {
        const expected = ownLine === 'material' ? 'material' : 'assembly bill';
        report(`${path}.replacementNodeId`, `unknown ${expected} "${replacement}" (a replacement must be of the same kind as the replaced line)`);
      }
    }
    if (override.action === 'adjust' && override.quantity === null && override.wastePercentage === null) {
      report(path, 'an "adjust" override must set quantity or wastePercentage');
    }
    if (ownLine === 'assembly') expectNoWaste(report, path, override);
  }
}

/** Waste sits on raw-material lines only. */
function expectNoWaste(report: (path: string, message: string) => void, path: string, override: DatasetLocationOverride): void {
  if (override.action === 'remove' || override.wastePercentage === null) return;
  if (override.action === 'add' && override.wastePercentage === '0') return;
  report(`${path}.wastePercentage`, 'wastePercentage applies to raw-material lines only, not to assembly bills');
}
