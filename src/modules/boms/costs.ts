import { exact, ZERO, type Exact } from '../../kernel/numbers/index.ts';
import { getBill, lineNeed, type BillKey, type RecipeForest } from './engine/index.ts';
import type { CostFactorInfo, MaterialInfo } from './recipe-data.ts';

export interface BillCosts { rawMaterialCost: Exact; subAssemblyCost: Exact; costFactorCost: Exact; total: Exact }

/**
 * Cost roll-up on base recipes (docs/datasets.md): raw lines unitCost × quantity × (1 + waste/100), sub
 * lines quantity × the assembly's unit cost, cost-factor lines quantity × unitCost. A material
 * without a unit cost counts 0. Exact; memoised per assembly, so a shared assembly is costed once
 * for a whole list.
 */
export class CostCalculator {
  readonly #memo = new Map<string, BillCosts>();
  readonly #forest: RecipeForest;
  readonly #materials: Map<string, MaterialInfo>;
  readonly #costFactors: Map<string, CostFactorInfo>;

  constructor(forest: RecipeForest, materials: Map<string, MaterialInfo>, costFactors: Map<string, CostFactorInfo>) {
    this.#forest = forest;
    this.#materials = materials;
    this.#costFactors = costFactors;
  }

  costs(bill: BillKey): BillCosts {
    const key = `${bill.ownerType}:${bill.ownerId}`;
    const known = this.#memo.get(key);
    if (known) return known;
    let raw = ZERO;
    let sub = ZERO;
    let cost = ZERO;
    for (const line of getBill(this.#forest, bill)?.lines ?? []) {
      if (line.lineType === 'raw') {
        raw = raw.plus(exact(this.#materials.get(line.nodeId)?.unitCost ?? 0).times(lineNeed(line.quantity, line.wastePercentage)));
      } else if (line.lineType === 'sub') {
        sub = sub.plus(line.quantity.times(this.costs({ ownerType: 'sub_assembly', ownerId: line.nodeId }).total));
      } else {
        cost = cost.plus(line.quantity.times(exact(this.#costFactors.get(line.nodeId)?.unitCost ?? 0)));
      }
    }
    const result = { rawMaterialCost: raw, subAssemblyCost: sub, costFactorCost: cost, total: raw.plus(sub).plus(cost) };
    this.#memo.set(key, result);
    return result;
  }
}
