import fc from 'fast-check';
import { Decimal as BaseDecimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { explodeToLeaves } from '../../src/modules/boms/engine/explode.ts';
import { exact } from '../../src/kernel/numbers/index.ts';
import type { BillKey, EngineBill, EngineOverride } from '../../src/modules/boms/engine/types.ts';

// Random DAGs (assembly i uses only assemblies j > i; the BOM is recipe 0) with random location rules at
// location "L"; the oracle applies the overrides its own way and enumerates every path without memoisation.

const MATERIALS = ['M0', 'M1', 'M2', 'M3', 'M4'];
const Q = fc.constantFrom('0.1', '0.25', '0.5', '1', '2', '3.333333');
const W = fc.constantFrom('0', '5', '12.5');

interface RawLine { node: string; q: string; w: string }
interface SubLine { node: number; q: string }
interface Override { action: 'replace' | 'remove' | 'add' | 'adjust'; sub: boolean; node: string; replacement: string | null; q: string | null; w: string | null }
interface Recipe { raw: RawLine[]; sub: SubLine[]; overrides: Override[] }

const recipeArb = (i: number, count: number): fc.Arbitrary<Recipe> => fc.record({
  raw: fc.uniqueArray(fc.record({ node: fc.constantFrom(...MATERIALS), q: Q, w: W }), { selector: (r) => r.node, maxLength: 3 }),
  sub: i >= count ? fc.constant<SubLine[]>([]) : fc.uniqueArray(fc.record({ node: fc.integer({ min: i + 1, max: count }), q: Q }), { selector: (r: SubLine) => r.node, maxLength: 3 }),
  seed: fc.array(fc.record({ pick: fc.nat(), action: fc.constantFrom('replace', 'remove', 'add', 'adjust'), q: fc.option(Q), w: fc.option(W), other: fc.nat() }), { maxLength: 3 }),
}).map(({ raw, sub, seed }): Recipe => {
  const overrides: Override[] = [];
  const touched = new Set<string>();
  const lines = [...raw.map((l) => ({ sub: false, node: l.node })), ...sub.map((l) => ({ sub: true, node: `A${l.node}` }))];
  const present = new Set(lines.map((l) => l.node));
  for (const s of seed) {
    if (s.action === 'add') {
      const candidates = [...MATERIALS, ...Array.from({ length: count - i }, (_, k) => `A${i + 1 + k}`)].filter((n) => !present.has(n) && !touched.has(n));
      const node = candidates[s.pick % Math.max(candidates.length, 1)];
      if (!node) continue;
      touched.add(node);
      overrides.push({ action: 'add', sub: node.startsWith('A'), node, replacement: null, q: s.q ?? '1', w: node.startsWith('A') ? '0' : (s.w ?? '0') });
      continue;
    }
    const target = lines[s.pick % Math.max(lines.length, 1)];
    if (!target || touched.has(target.node)) continue;
    touched.add(target.node);
    if (s.action === 'replace') {
      const pool = target.sub ? Array.from({ length: count - i }, (_, k) => `A${i + 1 + k}`) : MATERIALS;
      const replacement = pool.filter((n) => !present.has(n))[s.other % pool.length];
      if (!replacement) continue;
      overrides.push({ action: 'replace', sub: target.sub, node: target.node, replacement, q: s.q, w: target.sub ? null : s.w });
    } else if (s.action === 'adjust') {
      overrides.push({ action: 'adjust', sub: target.sub, node: target.node, replacement: null, q: s.q ?? '2', w: target.sub ? null : s.w });
    } else overrides.push({ action: 'remove', sub: target.sub, node: target.node, replacement: null, q: null, w: null });
  }
  return { raw, sub, overrides };
});

const caseArb = fc.integer({ min: 0, max: 5 }).chain((count) => fc.tuple(...Array.from({ length: count + 1 }, (_, i) => recipeArb(i, count))));

// The oracle's own exact arithmetic (decimal.js's default 20 digits would round deep products).
const Decimal = BaseDecimal.clone({ precision: 200 });
type Decimal = BaseDecimal;

const keyOf = (i: number): BillKey => (i === 0 ? { ownerType: 'bom', ownerId: 'BOM-1' } : { ownerType: 'sub_assembly', ownerId: `A${i}` });
const d = (v: string) => new Decimal(v);

/** The forest in the engine's own numbers (src/kernel/numbers). */
function toForest(recipes: Recipe[]) {
  const bills = new Map<string, EngineBill>();
  recipes.forEach((r, i) => {
    const key = keyOf(i);
    const overrides: EngineOverride[] = r.overrides.map((o, position) => ({
      action: o.action, position, nodeId: o.node, replacementNodeId: o.replacement, quantity: o.q === null ? null : exact(o.q),
      wastePercentage: o.w === null ? null : exact(o.w), introducesAssembly: (o.action === 'add' && o.sub) || (o.action === 'replace' && o.sub),
    }));
    bills.set(`${key.ownerType}:${key.ownerId}`, {
      key, name: key.ownerId, onlyConsumePreassembled: false, variantId: null, status: null,
      lines: [
        ...r.raw.map((l, p) => ({ lineType: 'raw' as const, nodeId: l.node, quantity: exact(l.q), wastePercentage: exact(l.w), position: p, changedBy: null })),
        ...r.sub.map((l, p) => ({ lineType: 'sub' as const, nodeId: `A${l.node}`, quantity: exact(l.q), wastePercentage: exact('0'), position: p, changedBy: null })),
      ],
      rules: new Map([['L', overrides]]),
    });
  });
  return { bills, lineCache: new Map() };
}

/** The recipe at L, applied naively: a list of [isSub, node, quantity, waste]. */
function linesAt(r: Recipe, atL: boolean): [boolean, string, string, string][] {
  let lines: [boolean, string, string, string][] = [...r.raw.map((l) => [false, l.node, l.q, l.w] as [boolean, string, string, string]), ...r.sub.map((l) => [true, `A${l.node}`, l.q, '0'] as [boolean, string, string, string])];
  if (!atL) return lines;
  for (const o of r.overrides) {
    if (o.action === 'add') lines.push([o.sub, o.node, o.q!, o.w ?? '0']);
    if (o.action === 'remove') lines = lines.filter((l) => l[1] !== o.node);
    if (o.action === 'replace' || o.action === 'adjust') {
      lines = lines.map((l) => (l[1] === o.node ? [l[0], o.replacement ?? l[1], o.q ?? l[2], o.w ?? l[3]] : l));
    }
  }
  return lines;
}

function oracle(recipes: Recipe[], atL: boolean): Map<string, string> {
  const total = new Map<string, Decimal>();
  const walk = (i: number, factor: Decimal) => {
    for (const [isSub, node, q, w] of linesAt(recipes[i]!, atL)) {
      if (isSub) walk(Number(node.slice(1)), factor.times(q));
      else total.set(node, (total.get(node) ?? d('0')).plus(factor.times(q).times(d('1').plus(d(w).div(100)))));
    }
  };
  walk(0, d('1'));
  return new Map([...total].map(([k, v]) => [k, v.toFixed()]));
}

describe('explodeToLeaves against path enumeration', () => {
  it('base recipe and recipe at a location with random replace/remove/add/adjust rules on every bill: exact sums over every path', () => {
    fc.assert(fc.property(caseArb, (recipes) => {
      const forest = toForest(recipes);
      for (const atL of [false, true]) {
        const got = new Map([...explodeToLeaves(forest, keyOf(0), atL ? 'L' : null)].map(([k, v]) => [k, v.toFixed()]));
        expect(got).toEqual(oracle(recipes, atL));
      }
    }), { numRuns: 3000, seed: 7 });
  });
});
