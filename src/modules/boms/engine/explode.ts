import { ONE, type Exact } from '../../../kernel/numbers/index.ts';
import { effectiveLinesOf } from './lines.ts';
import { billKeyString, type BillKey, type RecipeForest } from './types.ts';

/** A raw line's need per unit of its bill: quantity × (1 + waste/100). */
export function lineNeed(quantity: Exact, wastePercentage: Exact): Exact {
  return wastePercentage.isZero() ? quantity : quantity.times(ONE.plus(wastePercentage.divPow10(2)));
}

/**
 * Leaf raw-material need for ONE unit of a bill at `locationId`: Σ over every path of (product of
 * sub-assembly quantities) × line quantity × (1 + waste/100), each nested bill expanded with ITS
 * rules at the same location. Exact, unrounded. Key = material variantId. Materials in `exclude`
 * (e.g. the non-essential ones) are left out. The returned function expands each bill once for all
 * its calls (memoised), so assemblies shared within a tree or between the bills asked about (an
 * order's BOMs) cost nothing extra. Its maps are the memo: read them, never change them.
 */
export function leafExpander(
  forest: RecipeForest, locationId: string | null, options: { exclude?: ReadonlySet<string> } = {},
): (bill: BillKey) => ReadonlyMap<string, Exact> {
  const memo = new Map<string, Map<string, Exact>>();
  // By key string (billKeyString): no BillKey object per line walked.
  const expandId = (id: string): Map<string, Exact> => {
    const known = memo.get(id);
    if (known) return known;
    const result = new Map<string, Exact>();
    memo.set(id, result); // a cycle (refused on load) would read a partial map instead of looping
    for (const line of effectiveLinesOf(forest, id, locationId)) {
      if (line.lineType === 'raw') {
        if (options.exclude?.has(line.nodeId)) continue;
        const need = lineNeed(line.quantity, line.wastePercentage);
        const before = result.get(line.nodeId);
        result.set(line.nodeId, before === undefined ? need : before.plus(need));
      } else if (line.lineType === 'sub') {
        for (const [leaf, need] of expandId(`sub_assembly:${line.nodeId}`)) {
          const add = need.times(line.quantity);
          const before = result.get(leaf);
          result.set(leaf, before === undefined ? add : before.plus(add));
        }
      }
    }
    return result;
  };
  const expand = (key: BillKey): Map<string, Exact> => expandId(billKeyString(key));
  return expand;
}

/** The leaf needs of one bill (see leafExpander), as a map of the caller's own. */
export function explodeToLeaves(
  forest: RecipeForest, bill: BillKey, locationId: string | null, options: { exclude?: ReadonlySet<string> } = {},
): Map<string, Exact> {
  return new Map(leafExpander(forest, locationId, options)(bill));
}
