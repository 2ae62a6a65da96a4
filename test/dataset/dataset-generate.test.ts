import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GENERATE_OPTIONS, generateDataset } from '../../src/dataset/generate.ts';
import type { GenerateOptions } from '../../src/dataset/generate.ts';
import { parseDatasetText } from '../../src/dataset/parse.ts';
import { serializeDataset } from '../../src/dataset/serialize.ts';
import type { Dataset, DatasetError } from '../../src/dataset/types.ts';

const SMALL: GenerateOptions = { materials: 120, boms: 40, depth: 3, locations: 3, workOrders: 24, orders: 20, seed: 7 };

/** The validator's verdict on a generated dataset, through the file format (as `bomcore load` sees it). */
function problemsOf(dataset: Dataset): DatasetError[] {
  const result = parseDatasetText(serializeDataset(dataset));
  return result.ok ? [] : result.errors;
}

/** Longest chain of nested assembly bills below any bill (1 = a bill without sub-assemblies). */
function nestingDepth(dataset: Dataset): number {
  const children = new Map(dataset.assemblyBills.map((bill) => [bill.assemblyId, bill.subAssemblyReferences.map((line) => line.nodeId)]));
  const memo = new Map<string, number>();
  const depthOf = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const depth = 1 + Math.max(0, ...(children.get(id) ?? []).map(depthOf));
    memo.set(id, depth);
    return depth;
  };
  return Math.max(0, ...dataset.assemblyBills.map((bill) => depthOf(bill.assemblyId)));
}

describe('dataset generator', () => {
  it('is deterministic: the same seed gives byte-identical serialized output', () => {
    expect(serializeDataset(generateDataset(SMALL))).toBe(serializeDataset(generateDataset(SMALL)));
  });

  it('a different seed gives a different dataset', () => {
    expect(serializeDataset(generateDataset({ ...SMALL, seed: 8 }))).not.toBe(serializeDataset(generateDataset(SMALL)));
  });

  it.each([
    ['an empty shop (no materials, BOMs, orders or work orders)', { materials: 0, boms: 0, depth: 0, locations: 1, workOrders: 0, orders: 0, seed: 1 }],
    ['no assembly bills (depth 0)', { materials: 30, boms: 10, depth: 0, locations: 2, workOrders: 16, orders: 5, seed: 2 }],
    ['bills but no materials', { materials: 0, boms: 6, depth: 2, locations: 1, workOrders: 8, orders: 3, seed: 3 }],
    ['the small shop', SMALL],
    ['deep nesting (depth 8) over many locations', { materials: 300, boms: 80, depth: 8, locations: 9, workOrders: 40, orders: 30, seed: 4 }],
    ['the default options', DEFAULT_GENERATE_OPTIONS],
    ['20k materials', { materials: 20_000, boms: 2_000, depth: 4, locations: 4, workOrders: 500, orders: 500, seed: 5 }],
  ])('generates a valid dataset: %s', (_name, options) => {
    expect(problemsOf(generateDataset(options))).toEqual([]);
  });

  it('nests assembly bills exactly `depth` levels deep', () => {
    for (const depth of [0, 1, 4, 7]) expect(nestingDepth(generateDataset({ ...SMALL, depth }))).toBe(depth);
  });

  it('serialize → parse → serialize gives the same text', () => {
    const text = serializeDataset(generateDataset(DEFAULT_GENERATE_OPTIONS));
    const reparsed = parseDatasetText(text);
    expect(reparsed.ok).toBe(true);
    if (reparsed.ok) expect(serializeDataset(reparsed.dataset)).toBe(text);
  });

  it('covers every feature of the format in a default-sized shop', () => {
    const d = generateDataset(DEFAULT_GENERATE_OPTIONS);
    expect(new Set(d.materials.map((m) => m.origin))).toEqual(new Set(['platform', 'virtual']));
    expect(d.materials.some((m) => m.origin === 'virtual' && m.levels.some((l) => l.available.includes('.')))).toBe(true);
    expect(d.materials.some((m) => m.isNonEssentialMaterial)).toBe(true);
    expect(d.boms.some((b) => b.rawMaterialReferences.some((l) => l.quantity.includes('.') && l.wastePercentage !== '0'))).toBe(true);
    expect(d.boms.some((b) => b.variantId === null)).toBe(true);
    expect(new Set(d.boms.map((b) => b.status))).toEqual(new Set(['active', 'inactive']));
    expect(d.assemblyBills.some((b) => b.onlyConsumePreassembled)).toBe(true);
    const parentsPerBill = new Map<string, number>();
    for (const recipe of [...d.assemblyBills, ...d.boms]) {
      for (const line of recipe.subAssemblyReferences) parentsPerBill.set(line.nodeId, (parentsPerBill.get(line.nodeId) ?? 0) + 1);
    }
    expect(Math.max(...parentsPerBill.values())).toBeGreaterThan(1);
    expect(new Set(d.costFactors.map((c) => c.kind)).size).toBe(5);
    expect(new Set(d.locationRules.flatMap((r) => r.overrides.map((o) => o.action)))).toEqual(new Set(['replace', 'remove', 'add', 'adjust']));
    expect(new Set(d.locationRules.map((r) => r.ownerType))).toEqual(new Set(['bom', 'sub_assembly']));
    expect(d.preassembled.some((p) => p.itemId.startsWith('ASM-')) && d.preassembled.some((p) => /^\d+$/.test(p.itemId))).toBe(true);
    expect(new Set(d.residuals.map((r) => r.kind))).toEqual(new Set(['buildRun', 'safetyStock']));
    expect(new Set(d.reservations.map((r) => r.kind))).toEqual(new Set(['order', 'safetyStock']));
    expect(d.assignees.some((a) => !a.active)).toBe(true);
    const finishedGoods = new Set(d.boms.map((b) => b.variantId));
    expect(d.platform.orders.some((o) => o.lineItems.some((l) => finishedGoods.has(l.variantId)))).toBe(true);
    expect(d.platform.orders.some((o) => o.lineItems.some((l) => !finishedGoods.has(l.variantId)))).toBe(true);
    expect(new Set(d.workOrders.map((w) => w.status)).size).toBe(8);
    expect(d.workOrders.some((w) => w.manualMaterials.length > 0)).toBe(true);
    expect(d.workOrders.some((w) => w.buildRuns.some((r) => r.picks.length > 0))).toBe(true);
    expect(d.workOrders.some((w) => w.qcReviews.length > 0 && w.reworkItems.length > 0)).toBe(true);
    expect(d.workOrders.some((w) => w.sourceFlowId !== null) && d.workOrders.some((w) => w.sourceOrderIds.length > 0)).toBe(true);
    expect(new Set(d.billVersions.map((v) => v.state))).toEqual(new Set(['ready', 'pending']));
  });

  it('property: any small options give a valid dataset', () => {
    const options = fc.record({
      materials: fc.integer({ min: 0, max: 60 }),
      boms: fc.integer({ min: 0, max: 25 }),
      depth: fc.integer({ min: 0, max: 6 }),
      locations: fc.integer({ min: 1, max: 5 }),
      workOrders: fc.integer({ min: 0, max: 20 }),
      orders: fc.integer({ min: 0, max: 15 }),
      seed: fc.integer(),
    });
    fc.assert(fc.property(options, (opts) => {
      expect(problemsOf(generateDataset(opts))).toEqual([]);
    }), { numRuns: 80 });
  });

  it('refuses options it cannot honour (no location, negative or fractional counts)', () => {
    expect(() => generateDataset({ ...SMALL, locations: 0 })).toThrow(RangeError);
    expect(() => generateDataset({ ...SMALL, materials: -1 })).toThrow(RangeError);
    expect(() => generateDataset({ ...SMALL, boms: 1.5 })).toThrow(RangeError);
  });

  it('reports progress per phase, ending each phase at its total', () => {
    const last = new Map<string, [number, number]>();
    generateDataset({ ...SMALL, onProgress: (phase, done, total) => last.set(phase, [done, total]) });
    expect([...last.keys()]).toEqual(expect.arrayContaining(['materials', 'assemblyBills', 'boms', 'orders', 'workOrders']));
    for (const [done, total] of last.values()) expect(done).toBe(total);
  });

  it('generates 100k materials within 10 s (measured about 1 s)', () => {
    const started = performance.now();
    const dataset = generateDataset({ ...DEFAULT_GENERATE_OPTIONS, materials: 100_000, boms: 5_000, workOrders: 2_000, orders: 2_000 });
    const elapsed = performance.now() - started;
    expect(dataset.materials).toHaveLength(100_000);
    expect(elapsed).toBeLessThan(10_000);
  });
});
