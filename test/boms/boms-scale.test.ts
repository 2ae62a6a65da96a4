import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { assemblyJson, bomJson, variantJson, virtualJson } from '../helpers/bom-context.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** 6 levels × 50 assemblies; each uses two assemblies of the next level (shared) and one material. */
function deepTree(shopId: string) {
  const assemblies = [];
  for (let level = 0; level < 6; level++) {
    for (let i = 0; i < 50; i++) {
      const sub: [string, number][] = level < 5 ? [[`ASM-${level + 1}-${i}`, 1], [`ASM-${level + 1}-${(i + 1) % 50}`, 0.5]] : [];
      assemblies.push(assemblyJson(`ASM-${level}-${i}`, [['VMAT-VAR-A', 0.1]], sub));
    }
  }
  return toDataset(datasetJson(shopId, {
    materials: [virtualJson('A', 'A', [{ locationId: '101', available: 1000 }])], assemblyBills: assemblies,
    boms: [
      bomJson('BOM-1', null, [], Array.from({ length: 50 }, (_, i) => [`ASM-0-${i}`, 1] as [string, number])),
      bomJson('BOM-2', null, [['VMAT-VAR-A', 1]]),
    ],
  }));
}

describe('BOM reads at scale', () => {
  it('the single read of a 6-level, 300-assembly tree costs the same SQL round trips as a one-line BOM', async () => {
    const shop = uniqueShopId('deep');
    await t.load(deepTree(shop));
    const key = await t.createKey(shop, ['read']);
    const deep = await t.get('/api/v1/bills-of-materials/BOM-1', key);
    const flat = await t.get('/api/v1/bills-of-materials/BOM-2', key);
    expect(deep.status).toBe(200);
    let depth = 0;
    for (let node = deep.body.data.subAssemblyReferences[0]; node; node = node.node.subAssemblyReferences[0]) depth++;
    expect(depth).toBe(6);
    expect(deep.headers['x-query-count']).toBe(flat.headers['x-query-count']);
    // One statement: the recipe walk with its materials, cost factors, shelves and variants attached to its rows.
    expect(Number(deep.headers['x-query-count'])).toBeLessThanOrEqual(1);
    const rules = await t.get('/api/v1/bills-of-materials/BOM-1/location-rules', key);
    expect(Number(rules.headers['x-query-count'])).toBeLessThanOrEqual(3);
    const buildable = await t.get('/api/v1/bills-of-materials/BOM-1/buildable', key);
    // need of A per unit: 50 × 0.1 × Σ 1.5^k (k = 0..5) = 103.90625 → 1000 / 103.90625 → 9
    expect(buildable.body.data.totals.maxBuildable).toBe(9);
  });

  it('buildable with 300 leaves × 50 locations: constant round trips, measured time', async () => {
    const shop = uniqueShopId('wide');
    const locations = Array.from({ length: 50 }, (_, i) => ({ id: String(2000 + i), name: `Site ${String(i).padStart(2, '0')}` }));
    const levels = (seed: number) => locations.map((l, i) => ({ locationId: l.id, available: ((seed * 7 + i * 13) % 90) + 10 }));
    const platform = Array.from({ length: 150 }, (_, i) => variantJson(String(50000 + i), `P${i}`, levels(i)));
    const virtual = Array.from({ length: 150 }, (_, i) => virtualJson(`W${i}`, `W${i}`, levels(i + 150)));
    const leafIds = [...platform.map((v) => v.variantId as string), ...virtual.map((v) => v.variantId as string)];
    const assemblies = Array.from({ length: 30 }, (_, a) => assemblyJson(`ASM-${a}`,
      leafIds.slice(a * 10, a * 10 + 10).map((id, j) => [id, (j + 1) / 10, j % 3 === 0 ? 5 : 0] as [string, number, number]),
      a < 29 ? [[`ASM-${a + 1}`, 0.5]] : []));
    await t.load(toDataset(datasetJson(shop, {
      platform: { locations, variants: [...platform, variantJson('60000', 'Finished', [{ locationId: '2000', available: 1 }])], orders: [] },
      materials: [...platform.map((v) => ({ variantId: v.variantId, unit: 'pcs', isNonEssentialMaterial: false })), ...virtual],
      assemblyBills: assemblies,
      boms: [bomJson('BOM-1', '60000', [], [['ASM-0', 1], ['ASM-5', 2]])],
      preassembled: locations.map((l, i) => ({ itemId: `ASM-${i % 30}`, locationId: l.id, quantity: 2 })),
    })));
    const key = await t.createKey(shop, ['read']);
    await t.get('/api/v1/bills-of-materials/BOM-1/buildable', key); // warm up
    const started = performance.now();
    const res = await t.get('/api/v1/bills-of-materials/BOM-1/buildable', key);
    const ms = performance.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.data.perLocation).toHaveLength(50);
    // The forest and the locations, then the materials and every stock read in one statement.
    expect(Number(res.headers['x-query-count'])).toBeLessThanOrEqual(3);
    console.info(`buildable 300 leaves × 50 locations: ${ms.toFixed(0)} ms, ${res.headers['x-query-count']} round trips`);
    expect(ms).toBeLessThan(5000);
  });
});
