import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { computeBuildable, type StockView } from '../../src/modules/boms/buildable/calculate.ts';
import { effectiveLines } from '../../src/modules/boms/engine/lines.ts';
import { Exact, exact } from '../../src/kernel/numbers/index.ts';
import type { BillKey, EngineBill, EngineLine, RecipeForest } from '../../src/modules/boms/engine/types.ts';

// Random small recipe trees: assemblies A0..An may use only later assemblies (a DAG with sharing),
// the BOM uses any; random shelves, onlyConsumePreassembled flags, non-essential materials, levels.
// The engine computes with src/kernel/numbers (Exact); the oracle keeps its own decimal.js arithmetic.

const MATERIALS = ['M0', 'M1', 'M2', 'M3'];
const line = (lineType: 'raw' | 'sub', nodeId: string, q: string, w: string, position: number): EngineLine =>
  ({ lineType, nodeId, quantity: exact(q), wastePercentage: exact(w), position, changedBy: null });

const recipeArb = (index: number, count: number) => fc.record({
  raw: fc.uniqueArray(fc.record({ node: fc.constantFrom(...MATERIALS), q: fc.constantFrom('0.3', '0.5', '1', '1.5', '2'), w: fc.constantFrom('0', '0', '10', '50') }), { selector: (r) => r.node, maxLength: 3 }),
  sub: index >= count ? fc.constant([]) : fc.uniqueArray(fc.record({ node: fc.integer({ min: index + 1, max: count }), q: fc.constantFrom('0.5', '1', '2', '3') }), { selector: (r) => r.node, maxLength: 3 }),
});

const caseArb = fc.integer({ min: 0, max: 5 }).chain((count) => fc.record({
  count: fc.constant(count),
  recipes: fc.tuple(...Array.from({ length: count + 1 }, (_, i) => recipeArb(i, count))),
  onlyConsume: fc.array(fc.boolean(), { minLength: count + 1, maxLength: count + 1 }),
  shelves: fc.array(fc.constantFrom('0', '0', '1', '2', '3.5', '5'), { minLength: count + 1, maxLength: count + 1 }),
  levels: fc.array(fc.constantFrom('0', '1', '2.5', '4', '7', '12', '-3'), { minLength: MATERIALS.length, maxLength: MATERIALS.length }),
  nonEssential: fc.subarray(MATERIALS, { maxLength: 2 }),
}));

type Case = { count: number; recipes: { raw: { node: string; q: string; w: string }[]; sub: { node: number; q: string }[] }[]; onlyConsume: boolean[]; shelves: string[]; levels: string[]; nonEssential: string[] };

// recipes[0] is the BOM; recipes[i] (i ≥ 1) is assembly A<i>. Sub nodes index recipes 1..count.
function toForest(c: Case): RecipeForest {
  const bills = new Map<string, EngineBill>();
  c.recipes.forEach((r, i) => {
    const key: BillKey = i === 0 ? { ownerType: 'bom', ownerId: 'BOM-1' } : { ownerType: 'sub_assembly', ownerId: `A${i}` };
    const lines = [
      ...r.raw.map((l, p) => line('raw', l.node, l.q, l.w, p)),
      ...r.sub.filter((l) => l.node > i && l.node >= 1).map((l, p) => line('sub', `A${l.node}`, l.q, '0', p)),
    ];
    bills.set(`${key.ownerType}:${key.ownerId}`, { key, name: key.ownerId, onlyConsumePreassembled: i > 0 && c.onlyConsume[i]!, variantId: null, status: null, lines, rules: new Map() });
  });
  return { bills, lineCache: new Map() };
}

function stockOf(c: Case): StockView {
  return {
    available: (id) => Exact.max(exact(c.levels[MATERIALS.indexOf(id)]!), 0),
    shelf: (id) => exact(c.shelves[Number(id.slice(1))]!),
  };
}

/** The same stock for the oracle, in decimal.js. */
function oracleStockOf(c: Case) {
  return {
    available: (id: string) => Decimal.max(new Decimal(c.levels[MATERIALS.indexOf(id)]!), 0),
    shelf: (id: string) => new Decimal(c.shelves[Number(id.slice(1))]!),
  };
}

/** An engine number as a decimal.js one, for the oracle. */
const D = (x: Exact) => new Decimal(x.toFixed());

/** Brute force: simulate N = 0, 1, 2, … with plain numbers; a constraint's bound is the last N before it first fails. */
function oracle(c: Case, forest: RecipeForest, mode: 'max' | 'sellable'): { all: number | null; each: Map<string, number | null> } {
  const nonEssential = new Set(c.nonEssential);
  const stock = oracleStockOf(c);
  const bom: BillKey = { ownerType: 'bom', ownerId: 'BOM-1' };
  const lines = (id: string | null) => effectiveLines(forest, id === null ? bom : { ownerType: 'sub_assembly', ownerId: id }, null);
  // Kahn's order over assemblies reachable from the BOM
  const reach = new Set<string>();
  const stack: (string | null)[] = [null];
  while (stack.length) for (const l of lines(stack.pop()!)) if (l.lineType === 'sub' && !reach.has(l.nodeId)) { reach.add(l.nodeId); stack.push(l.nodeId); }
  const indegree = new Map([...reach].map((a) => [a, 0]));
  for (const a of [null, ...reach]) for (const l of lines(a)) if (l.lineType === 'sub') indegree.set(l.nodeId, indegree.get(l.nodeId)! + 1);
  const order: string[] = [];
  const ready = [null as string | null];
  while (ready.length) { const a = ready.shift()!; if (a !== null) order.push(a); for (const l of lines(a)) if (l.lineType === 'sub') { indegree.set(l.nodeId, indegree.get(l.nodeId)! - 1); if (indegree.get(l.nodeId) === 0) ready.push(l.nodeId); } }

  const evaluate = (n: number): Map<string, boolean> => {
    const demand = new Map<string, Decimal>();
    const leaf = new Map<string, Decimal>();
    const ok = new Map<string, boolean>();
    const push = (from: string | null, qty: Decimal) => {
      for (const l of lines(from)) {
        if (l.lineType === 'sub') demand.set(l.nodeId, (demand.get(l.nodeId) ?? new Decimal(0)).plus(qty.times(D(l.quantity))));
        else if (!nonEssential.has(l.nodeId)) leaf.set(l.nodeId, (leaf.get(l.nodeId) ?? new Decimal(0)).plus(qty.times(D(l.quantity)).times(new Decimal(1).plus(D(l.wastePercentage).div(100)))));
      }
    };
    push(null, new Decimal(n));
    for (const a of order) {
      const d = demand.get(a) ?? new Decimal(0);
      const s = stock.shelf(a);
      const essential = lines(a).some((l) => l.lineType === 'sub' || !nonEssential.has(l.nodeId));
      if (!essential || (mode === 'sellable' && forest.bills.get(`sub_assembly:${a}`)!.onlyConsumePreassembled)) ok.set(`subassembly:${a}`, d.lte(s));
      else push(a, Decimal.max(d.minus(s), 0));
    }
    for (const [m, d] of leaf) ok.set(m, d.lte(stock.available(m)));
    return ok;
  };
  const each = new Map<string, number | null>();
  const seen = new Set(evaluate(1).keys());
  for (let n = 0; n <= 3000 && each.size < seen.size; n++) {
    for (const [id, fits] of evaluate(n)) { seen.add(id); if (!fits && !each.has(id)) each.set(id, n - 1); }
  }
  for (const id of seen) if (!each.has(id)) each.set(id, null);
  const bounded = [...each.values()].filter((v): v is number => v !== null);
  return { all: bounded.length ? Math.min(...bounded) : null, each };
}

describe('buildable engine against a brute-force oracle', () => {
  it('maxBuildable, sellable and every leaf bound equal the simulation (shared assemblies, shelves, shelf-only bills, waste, negative levels); the first rows asked alone are the sorted list\'s first rows', () => {
    fc.assert(fc.property(caseArb, (raw) => {
      const c = raw as Case;
      const forest = toForest(c);
      const got = computeBuildable(forest, { ownerType: 'bom', ownerId: 'BOM-1' }, null, new Set(c.nonEssential), stockOf(c));
      const max = oracle(c, forest, 'max');
      const sellable = oracle(c, forest, 'sellable');
      expect(got.maxBuildable.toNumber()).toBe(max.all ?? 0);
      expect(got.sellable.toNumber()).toBe(sellable.all ?? 0);
      expect(new Map(got.limits.map((l) => [l.nodeId, l.maxUnits === null ? null : l.maxUnits.toNumber()]))).toEqual(max.each);
      if (got.limits.length > 0) expect(got.limits[0]!.maxUnits?.toNumber() ?? 0).toBe(got.maxBuildable.toNumber());
      expect(got.sellable.lte(got.maxBuildable)).toBe(true);
      // Asking for the first rows only gives the same rows, in the same order, as the whole sorted list.
      expect(computeBuildable(forest, { ownerType: 'bom', ownerId: 'BOM-1' }, null, new Set(c.nonEssential), stockOf(c), new Map(), 2).limits).toEqual(got.limits.slice(0, 2));
    }), { numRuns: 3000, seed: 4242 });
  });

  it('3 / 0.3 builds exactly 10 (no binary floating point)', () => {
    const bills = new Map<string, EngineBill>([['bom:BOM-1', { key: { ownerType: 'bom', ownerId: 'BOM-1' }, name: 'x', onlyConsumePreassembled: false, variantId: null, status: null, lines: [line('raw', 'M0', '0.3', '0', 0)], rules: new Map() }]]);
    const got = computeBuildable({ bills, lineCache: new Map() }, { ownerType: 'bom', ownerId: 'BOM-1' }, null, new Set(), { available: () => exact(3), shelf: () => exact(0) });
    expect(got.maxBuildable.toFixed()).toBe('10');
  });
});
