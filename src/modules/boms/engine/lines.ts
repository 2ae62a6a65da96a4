import { ZERO } from '../../../kernel/numbers/index.ts';
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
 * (appended after the lines of its type, even when a replacement already brought the same node in),
 * adjust (null keeps the line's value). Overrides target base lines; one whose line is missing
 * changes nothing. Unknown bills have no lines. Memoised per forest: do not mutate the result.
 */
export function effectiveLines(forest: RecipeForest, bill: BillKey, locationId: string | null): EngineLine[] {
  return effectiveLinesOf(forest, billKeyString(bill), locationId);
}

/** effectiveLines of the bill whose key string (billKeyString) is `id`. */
export function effectiveLinesOf(forest: RecipeForest, id: string, locationId: string | null): EngineLine[] {
  let atLocation = forest.lineCache.get(locationId ?? '');
  if (!atLocation) forest.lineCache.set(locationId ?? '', atLocation = new Map());
  const cached = atLocation.get(id);
  if (cached) return cached;
  const record = forest.bills.get(id);
  const overrides = locationId === null ? undefined : record?.rules.get(locationId);
  let lines = record?.lines ?? [];
  if (overrides && overrides.length > 0) {
    // Overrides name base lines (one override per node, checked on load), so each base line takes the
    // override of its node; adds are appended after, in rule order.
    const byNode = new Map(overrides.filter((o) => o.action !== 'add').map((o) => [o.nodeId, o]));
    const next: EngineLine[] = [];
    for (const line of lines) {
      const o = line.lineType === 'cost' ? undefined : byNode.get(line.nodeId);
      if (!o) next.push(line);
      else if (o.action === 'replace') {
        next.push({ ...line, nodeId: o.replacementNodeId ?? line.nodeId, quantity: o.quantity ?? line.quantity,
          wastePercentage: o.wastePercentage ?? line.wastePercentage, changedBy: 'replace' });
      } else if (o.action === 'adjust') {
        next.push({ ...line, quantity: o.quantity ?? line.quantity, wastePercentage: o.wastePercentage ?? line.wastePercentage, changedBy: 'adjust' });
      }
    }
    for (const o of overrides) {
      if (o.action !== 'add' || o.quantity === null) continue;
      const lineType = o.introducesAssembly ? 'sub' : 'raw';
      const position = Math.max(-1, ...next.filter((l) => l.lineType === lineType).map((l) => l.position)) + 1;
      next.push({ lineType, nodeId: o.nodeId, quantity: o.quantity, wastePercentage: lineType === 'sub' ? ZERO : (o.wastePercentage ?? ZERO), position, changedBy: 'add' });
    }
    const order = { raw: 0, sub: 1, cost: 2 } as const;
    lines = next.sort((a, b) => order[a.lineType] - order[b.lineType] || a.position - b.position);
  }
  atLocation.set(id, lines);
  return lines;
}

/**
 * Assembly bills reachable from the roots at the location, parents before children (reverse
 * post-order of one walk over all roots): pushing demand down in this order lets an assembly
 * needed in several places collect all of it before it is expanded.
 */
export function assembliesTopDown(forest: RecipeForest, roots: readonly BillKey[], locationId: string | null): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (id: string) => {
    for (const line of effectiveLinesOf(forest, id, locationId)) {
      if (line.lineType !== 'sub' || done.has(line.nodeId)) continue;
      done.add(line.nodeId);
      visit(`sub_assembly:${line.nodeId}`);
      order.push(line.nodeId);
    }
  };
  for (const root of roots) visit(billKeyString(root));
  return order.reverse();
}
