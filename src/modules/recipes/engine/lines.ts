import { ZERO } from './exact.ts';
import { billKeyString, type BillKey, type EngineBill, type EngineLine, type RecipeForest } from './types.ts';

export function hasBill(forest: RecipeForest, bill: BillKey): boolean {
  return forest.bills.has(billKeyString(bill));
}

export function getBill(forest: RecipeForest, bill: BillKey): EngineBill | undefined {
  return forest.bills.get(billKeyString(bill));
}

/** The location ids at which `bill` has a location rule (possibly with no overrides). */
export function ruleLocations(forest: RecipeForest, bill: BillKey): string[] {
  return [...(getBill(forest, bill)?.rules.keys() ?? [])];
}

/**
 * A bill's lines at a location (null = base recipe) with that bill's location-rule overrides for
 * that location applied: replace (quantity/waste default to the replaced line's), remove, add
 * (appended after the lines of its type), adjust (null keeps the line's value). An override whose
 * target line is missing changes nothing. Unknown bills have no lines. Memoised per forest: do not mutate the result.
 */
export function effectiveLines(forest: RecipeForest, bill: BillKey, locationId: string | null): EngineLine[] {
  const cacheKey = `${billKeyString(bill)}@${locationId ?? ''}`;
  const cached = forest.lineCache.get(cacheKey);
  if (cached) return cached;
  const record = getBill(forest, bill);
  const overrides = locationId === null ? undefined : record?.rules.get(locationId);
  let lines = record?.lines ?? [];
  if (overrides && overrides.length > 0) {
    lines = lines.map((l) => ({ ...l }));
    for (const o of overrides) {
      const index = lines.findIndex((l) => l.lineType !== 'cost' && l.nodeId === o.nodeId);
      if (o.action === 'add') {
        if (index >= 0) continue;
        const lineType = o.introducesAssembly ? 'sub' : 'raw';
        const position = Math.max(-1, ...lines.filter((l) => l.lineType === lineType).map((l) => l.position)) + 1;
        lines.push({ lineType, nodeId: o.nodeId, quantity: o.quantity!, wastePercentage: lineType === 'sub' ? ZERO : (o.wastePercentage ?? ZERO), position, changedBy: 'add' });
        continue;
      }
      if (index < 0) continue;
      const line = lines[index]!;
      if (o.action === 'remove') lines.splice(index, 1);
      else if (o.action === 'replace') {
        lines[index] = { ...line, nodeId: o.replacementNodeId ?? line.nodeId, quantity: o.quantity ?? line.quantity,
          wastePercentage: o.wastePercentage ?? line.wastePercentage, changedBy: 'replace' };
      } else {
        lines[index] = { ...line, quantity: o.quantity ?? line.quantity, wastePercentage: o.wastePercentage ?? line.wastePercentage, changedBy: 'adjust' };
      }
    }
    const order = { raw: 0, sub: 1, cost: 2 } as const;
    lines.sort((a, b) => order[a.lineType] - order[b.lineType] || a.position - b.position);
  }
  forest.lineCache.set(cacheKey, lines);
  return lines;
}
