import type { Decimal } from 'decimal.js';
import { HUNDRED, ONE, ZERO } from './exact.ts';
import { effectiveLines } from './lines.ts';
import { billKeyString, type BillKey, type RecipeForest } from './types.ts';

/** A raw line's need per unit of its bill: quantity × (1 + waste/100). */
export function lineNeed(quantity: Decimal, wastePercentage: Decimal): Decimal {
  return quantity.times(ONE.plus(wastePercentage.div(HUNDRED)));
}

/**
 * Leaf raw-material need for ONE unit of `bill` at `locationId`: Σ over every path of (product of
 * sub-assembly quantities) × line quantity × (1 + waste/100), each nested bill expanded with ITS
 * rules at the same location. Exact, unrounded. Key = material variantId. Materials in `exclude`
 * (e.g. the non-essential ones) are left out. Each bill is expanded once (memoised), so shared
 * assemblies cost nothing extra.
 */
export function explodeToLeaves(
  forest: RecipeForest, bill: BillKey, locationId: string | null, options: { exclude?: ReadonlySet<string> } = {},
): Map<string, Decimal> {
  const memo = new Map<string, Map<string, Decimal>>();
  const expand = (key: BillKey): Map<string, Decimal> => {
    const id = billKeyString(key);
    const known = memo.get(id);
    if (known) return known;
    const result = new Map<string, Decimal>();
    memo.set(id, result); // a cycle (refused on load) would read a partial map instead of looping
    for (const line of effectiveLines(forest, key, locationId)) {
      if (line.lineType === 'raw') {
        if (options.exclude?.has(line.nodeId)) continue;
        const need = lineNeed(line.quantity, line.wastePercentage);
        result.set(line.nodeId, (result.get(line.nodeId) ?? ZERO).plus(need));
      } else if (line.lineType === 'sub') {
        for (const [leaf, need] of expand({ ownerType: 'sub_assembly', ownerId: line.nodeId })) {
          const add = need.times(line.quantity);
          result.set(leaf, (result.get(leaf) ?? ZERO).plus(add));
        }
      }
    }
    return result;
  };
  return new Map(expand(bill));
}
