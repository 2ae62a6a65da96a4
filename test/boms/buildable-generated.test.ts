import { Decimal as BaseDecimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import type { Dataset, DatasetRecipe } from '../../src/dataset/types.ts';
import { bomBuildable } from '../../src/modules/boms/buildable/buildable.service.ts';
import { shopContext } from '../helpers/bom-context.ts';
import { openTestOrm, uniqueShopId } from '../helpers/database.ts';

// A dataset nobody tuned: the synthetic generator (deep trees, shared assemblies, shelves,
// only-consume-pre-assembled bills, location rules, fractional quantities, finished goods without
// per-location data). Every BOM's figures are checked against a direct simulation written from the
// dataset document itself (its own rule application, its own push-down), not from the database.

const D = BaseDecimal.clone({ precision: 200 });
type D = BaseDecimal;
const zero = new D(0);

interface Line { sub: boolean; node: string; q: D; w: D }

function oracleFor(ds: Dataset) {
  const assemblies = new Map(ds.assemblyBills.map((a) => [a.assemblyId, a]));
  const nonEssential = new Set(ds.materials.filter((m) => m.isNonEssentialMaterial).map((m) => m.variantId));
  const levels = new Map<string, Map<string, D>>(); // variant → location → clamped level
  const put = (id: string, loc: string, v: string) => {
    const m = levels.get(id) ?? new Map<string, D>();
    levels.set(id, m);
    m.set(loc, D.max(new D(v), 0));
  };
  const platformMaterials = new Set(ds.materials.filter((m) => m.origin === 'platform').map((m) => m.variantId));
  for (const v of ds.platform.variants) if (platformMaterials.has(v.variantId)) for (const l of v.levels) put(v.variantId, l.locationId, l.available);
  for (const m of ds.materials) if (m.origin === 'virtual') for (const l of m.levels) put(m.variantId, l.locationId, l.available);
  const shelves = new Map<string, Map<string, D>>();
  for (const p of ds.preassembled) {
    const m = shelves.get(p.itemId) ?? new Map<string, D>();
    shelves.set(p.itemId, m);
    m.set(p.locationId, (m.get(p.locationId) ?? zero).plus(p.quantity));
  }
  const at = (map: Map<string, Map<string, D>>, id: string, locs: string[]) => locs.reduce((s, l) => s.plus(map.get(id)?.get(l) ?? zero), zero);

  const linesOf = (ownerType: 'bom' | 'sub_assembly', recipe: DatasetRecipe, ownerId: string, loc: string | null): Line[] => {
    let lines: Line[] = [
      ...recipe.rawMaterialReferences.map((l) => ({ sub: false, node: l.nodeId, q: new D(l.quantity), w: new D(l.wastePercentage) })),
      ...recipe.subAssemblyReferences.map((l) => ({ sub: true, node: l.nodeId, q: new D(l.quantity), w: zero })),
    ];
    const rule = loc === null ? undefined : ds.locationRules.find((r) => r.ownerType === ownerType && r.ownerId === ownerId && r.locationId === loc);
    for (const o of rule?.overrides ?? []) {
      if (o.action === 'remove') lines = lines.filter((l) => l.node !== o.nodeId);
      else if (o.action === 'replace') lines = lines.map((l) => (l.node === o.nodeId ? { ...l, node: o.replacementNodeId, q: o.quantity ? new D(o.quantity) : l.q, w: o.wastePercentage ? new D(o.wastePercentage) : l.w } : l));
      else if (o.action === 'adjust') lines = lines.map((l) => (l.node === o.nodeId ? { ...l, q: o.quantity ? new D(o.quantity) : l.q, w: o.wastePercentage ? new D(o.wastePercentage) : l.w } : l));
    }
    for (const o of rule?.overrides ?? []) if (o.action === 'add') lines.push({ sub: assemblies.has(o.nodeId), node: o.nodeId, q: new D(o.quantity), w: new D(o.wastePercentage) });
    return lines;
  };

  /** Largest N (simulated) for one BOM with the stock of `locs`, rules of `loc`. */
  return (bomId: string, loc: string | null, locs: string[], mode: 'max' | 'sellable'): number => {
    const bom = ds.boms.find((b) => b.bomId === bomId)!;
    const lines = (id: string | null) => (id === null ? linesOf('bom', bom, bomId, loc) : linesOf('sub_assembly', assemblies.get(id)!, id, loc));
    const order: string[] = [];
    const seen = new Set<string>();
    const visit = (id: string | null) => { for (const l of lines(id)) if (l.sub && !seen.has(l.node)) { seen.add(l.node); visit(l.node); order.unshift(l.node); } };
    visit(null);
    // reverse post-order of a DFS is a topological order (parents first)
    const evaluate = (n: D): { ok: boolean; constraints: number } => {
      const demand = new Map<string, D>();
      const leaf = new Map<string, D>();
      let ok = true;
      let constraints = 0;
      const push = (from: string | null, qty: D) => {
        for (const l of lines(from)) {
          if (l.sub) demand.set(l.node, (demand.get(l.node) ?? zero).plus(qty.times(l.q)));
          else if (!nonEssential.has(l.node)) leaf.set(l.node, (leaf.get(l.node) ?? zero).plus(qty.times(l.q).times(new D(1).plus(l.w.div(100)))));
        }
      };
      push(null, n);
      for (const a of order) {
        const d = demand.get(a) ?? zero;
        const s = at(shelves, a, locs);
        const essential = lines(a).some((l) => l.sub || !nonEssential.has(l.node));
        if (!essential || (mode === 'sellable' && assemblies.get(a)!.onlyConsumePreassembled)) { constraints++; if (d.gt(s)) ok = false; }
        else push(a, D.max(d.minus(s), 0));
      }
      for (const [m, d] of leaf) { constraints++; if (d.gt(at(levels, m, locs))) ok = false; }
      return { ok, constraints };
    };
    if (evaluate(new D(1)).constraints === 0) return 0;
    let hi = 1;
    while (evaluate(new D(hi)).ok) hi *= 2;
    let lo = hi / 2 < 1 ? 0 : hi / 2; // feasible (or 0)
    while (hi - lo > 1) { const mid = Math.floor((lo + hi) / 2); if (evaluate(new D(mid)).ok) lo = mid; else hi = mid; }
    return lo;
  };
}

let orm: Orm;
const shop = uniqueShopId('gen');
let ds: Dataset;

beforeAll(async () => {
  orm = await openTestOrm();
  ds = generateDataset({ materials: 80, boms: 40, depth: 4, locations: 3, workOrders: 0, orders: 0, seed: 20261122, shopId: shop });
  await loadDataset(orm.em, ds);
});
afterAll(() => orm.close());

describe('buildable on a generated dataset', () => {
  it('the generated shop holds what the rules must handle', () => {
    expect(ds.assemblyBills.some((a) => a.onlyConsumePreassembled)).toBe(true);
    expect(ds.locationRules.length).toBeGreaterThan(0);
    expect(ds.preassembled.some((p) => p.itemId.startsWith('ASM-'))).toBe(true);
    const finishedGoods = new Map(ds.platform.variants.map((v) => [v.variantId, v]));
    expect(ds.boms.some((b) => b.variantId !== null && finishedGoods.get(b.variantId)!.levels.length === 0)).toBe(true);
  });

  it('every BOM: per-location maxBuildable and sellable, totals and globalFallback equal the direct simulation', async () => {
    const simulate = oracleFor(ds);
    const locations = ds.platform.locations.map((l) => l.id);
    const variants = new Map(ds.platform.variants.map((v) => [v.variantId, v]));
    let fallbacks = 0;
    const figures: number[][] = [];
    for (const bom of ds.boms) {
      const got = await bomBuildable(shopContext(orm, shop), bom.bomId, null);
      const fallback = bom.variantId === null || variants.get(bom.variantId)!.levels.length === 0;
      expect([bom.bomId, got.globalFallback]).toEqual([bom.bomId, fallback]);
      if (fallback) {
        fallbacks++;
        expect([bom.bomId, got.totals]).toEqual([bom.bomId, { maxBuildable: simulate(bom.bomId, null, locations, 'max'), sellable: simulate(bom.bomId, null, locations, 'sellable') }]);
        continue;
      }
      const expected = [...ds.platform.locations].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map((l) => [l.id, simulate(bom.bomId, l.id, [l.id], 'max'), simulate(bom.bomId, l.id, [l.id], 'sellable')]);
      expect([bom.bomId, got.perLocation.map((l) => [l.locationId, l.maxBuildable, l.sellable])]).toEqual([bom.bomId, expected]);
      figures.push(...got.perLocation.map((l) => [l.maxBuildable, l.sellable]));
      for (const l of got.perLocation) if (l.limitingComponents.length) expect(l.limitingComponents[0]!.maxUnitsByThisComponent).toBe(l.maxBuildable);
    }
    expect(fallbacks).toBeGreaterThan(0);
    console.info(`generated: ${ds.boms.length} BOMs, ${fallbacks} fallbacks, ${figures.filter(([m]) => m! > 0).length}/${figures.length} locations buildable, ${figures.filter(([m, s]) => s! < m!).length} with a sellable split`);
    expect(figures.filter(([m]) => m! > 0).length).toBeGreaterThan(0);
  });
});
