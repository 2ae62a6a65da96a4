import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { assemblyJson, bomJson, countQueries, shopContext, variantJson, virtualJson } from '../helpers/bom-context.ts';
import type { Orm } from '../../src/db/orm.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import {
  effectiveLines, explodeToLeaves, hasBill, loadRecipeForest, type RecipeForest,
} from '../../src/modules/boms/engine/index.ts';

let orm: Orm;
const shop = uniqueShopId('eng');
const twin = uniqueShopId('eng-twin');
const BOM = { ownerType: 'bom', ownerId: 'BOM-1' } as const;

function recipeDataset(shopId: string, scale = 1) {
  return toDataset(datasetJson(shopId, {
    platform: {
      locations: [{ id: '101', name: 'Main' }, { id: '102', name: 'Store' }, { id: '103', name: 'Annex' }],
      variants: [variantJson('44001', 'Wax'), variantJson('44100', 'Candle')], orders: [],
    },
    materials: [
      { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false },
      virtualJson('WICK', 'Wick'), virtualJson('A', 'Material A'), virtualJson('B', 'Material B'), virtualJson('GLUE', 'Glue', [], { isNonEssentialMaterial: true }),
    ],
    assemblyBills: [
      assemblyJson('ASM-1', [['VMAT-VAR-WICK', 1 * scale], ['VMAT-VAR-GLUE', 0.1]]),
      assemblyJson('ASM-2', [['VMAT-VAR-A', 0.3, 10]], [['ASM-1', 2]]),
      assemblyJson('ASM-3', [['VMAT-VAR-B', 1]]),
      assemblyJson('ASM-4', [['VMAT-VAR-A', 1]]),
    ],
    boms: [bomJson('BOM-1', '44100', [['44001', 0.4, 5]], [['ASM-1', 1], ['ASM-2', 3]], {
      costFactorReferences: [{ costFactorId: 'CF-1', quantity: 0.25 }],
    })],
    locationRules: [
      { ownerType: 'bom', ownerId: 'BOM-1', locationId: '102', overrides: [
        { action: 'replace', nodeId: '44001', replacementNodeId: 'VMAT-VAR-B', quantity: 0.5, wastePercentage: 0 },
        { action: 'remove', nodeId: 'ASM-1' },
        { action: 'add', nodeId: 'ASM-3', quantity: 2 },
      ] },
      { ownerType: 'sub_assembly', ownerId: 'ASM-2', locationId: '102', overrides: [{ action: 'adjust', nodeId: 'VMAT-VAR-A', quantity: 0.6 }] },
      { ownerType: 'bom', ownerId: 'BOM-1', locationId: '103', overrides: [{ action: 'replace', nodeId: 'ASM-2', replacementNodeId: 'ASM-4' }] },
    ],
  }));
}

const asStrings = (m: Map<string, { toFixed(): string }>) => Object.fromEntries([...m].map(([k, v]) => [k, v.toFixed()]).sort());

let forest: RecipeForest;

beforeAll(async () => {
  orm = await openTestOrm();
  await loadDataset(orm.em, recipeDataset(shop));
  await loadDataset(orm.em, recipeDataset(twin, 7));
  forest = await loadRecipeForest(shopContext(orm, shop), [BOM]);
});
afterAll(() => orm.close());

describe('loadRecipeForest', () => {
  it('loads every bill reachable through sub lines and through assemblies that location rules add or swap in', () => {
    for (const id of ['ASM-1', 'ASM-2', 'ASM-3', 'ASM-4']) expect(hasBill(forest, { ownerType: 'sub_assembly', ownerId: id })).toBe(true);
    expect(hasBill(forest, BOM)).toBe(true);
  });

  it('an unknown root is simply absent', async () => {
    const f = await loadRecipeForest(shopContext(orm, shop), [{ ownerType: 'bom', ownerId: 'BOM-404' }, { ownerType: 'sub_assembly', ownerId: 'ASM-3' }]);
    expect(hasBill(f, { ownerType: 'bom', ownerId: 'BOM-404' })).toBe(false);
    expect([...f.bills.keys()]).toEqual(['sub_assembly:ASM-3']);
  });

  it('reads only the shop of the context (the twin shop has the same ids and other quantities)', async () => {
    const other = await loadRecipeForest(shopContext(orm, twin), [BOM]);
    expect(asStrings(explodeToLeaves(other, BOM, null))['VMAT-VAR-WICK']).toBe('49');
    expect(asStrings(explodeToLeaves(forest, BOM, null))['VMAT-VAR-WICK']).toBe('7');
  });

  it('costs one SQL round trip for a 6-level tree of 300 assemblies', async () => {
    const deep = uniqueShopId('eng-deep');
    const assemblies = [];
    const perLevel = 50;
    for (let level = 0; level < 6; level++) {
      for (let i = 0; i < perLevel; i++) {
        const sub: [string, number][] = level < 5 ? [[`ASM-${level + 1}-${i}`, 1], [`ASM-${level + 1}-${(i + 1) % perLevel}`, 0.5]] : [];
        assemblies.push(assemblyJson(`ASM-${level}-${i}`, [['VMAT-VAR-A', 0.1]], sub));
      }
    }
    await loadDataset(orm.em, toDataset(datasetJson(deep, {
      materials: [virtualJson('A', 'A')], assemblyBills: assemblies,
      boms: [bomJson('BOM-1', null, [], Array.from({ length: perLevel }, (_, i) => [`ASM-0-${i}`, 1] as [string, number]))],
    })));
    const { result, count } = await countQueries(() => loadRecipeForest(shopContext(orm, deep), [BOM]));
    expect(result.bills.size).toBe(301);
    expect(count).toBe(1);
    // every path: 50 roots; each level doubles the paths with factors 1 and 0.5 → Σ = 50 × 0.1 × Σ_{k=0..5} 1.5^k
    const need = explodeToLeaves(result, BOM, null).get('VMAT-VAR-A')!;
    expect(need.toFixed()).toBe('103.90625');
  });
});

describe('effectiveLines', () => {
  it('base recipe (location null): raw, then sub, then cost lines, unchanged', () => {
    const lines = effectiveLines(forest, BOM, null);
    expect(lines.map((l) => [l.lineType, l.nodeId, l.quantity.toFixed(), l.wastePercentage.toFixed(), l.changedBy])).toEqual([
      ['raw', '44001', '0.4', '5', null], ['sub', 'ASM-1', '1', '0', null], ['sub', 'ASM-2', '3', '0', null], ['cost', 'CF-1', '0.25', '0', null],
    ]);
  });

  it('applies replace (own quantity/waste), remove and add (an assembly becomes a sub line) at the rule location', () => {
    const lines = effectiveLines(forest, BOM, '102');
    expect(lines.map((l) => [l.lineType, l.nodeId, l.quantity.toFixed(), l.wastePercentage.toFixed(), l.changedBy])).toEqual([
      ['raw', 'VMAT-VAR-B', '0.5', '0', 'replace'], ['sub', 'ASM-2', '3', '0', null], ['sub', 'ASM-3', '2', '0', 'add'], ['cost', 'CF-1', '0.25', '0', null],
    ]);
  });

  it('replace without quantity keeps the replaced line quantity; adjust changes only what it sets', () => {
    expect(effectiveLines(forest, BOM, '103').find((l) => l.lineType === 'sub' && l.changedBy === 'replace')).toMatchObject({ nodeId: 'ASM-4' });
    expect(effectiveLines(forest, BOM, '103').find((l) => l.nodeId === 'ASM-4')!.quantity.toFixed()).toBe('3');
    const adjusted = effectiveLines(forest, { ownerType: 'sub_assembly', ownerId: 'ASM-2' }, '102')[0]!;
    expect([adjusted.quantity.toFixed(), adjusted.wastePercentage.toFixed(), adjusted.changedBy]).toEqual(['0.6', '10', 'adjust']);
  });

  it('a location without rules sees the base recipe', () => {
    expect(effectiveLines(forest, BOM, '101')).toEqual(effectiveLines(forest, BOM, null));
  });
});

describe('explodeToLeaves', () => {
  it('sums every path: sub quantities × line quantity × (1 + waste/100), shared assemblies counted per path', () => {
    expect(asStrings(explodeToLeaves(forest, BOM, null))).toEqual({
      '44001': '0.42', 'VMAT-VAR-A': '0.99', 'VMAT-VAR-GLUE': '0.7', 'VMAT-VAR-WICK': '7',
    });
  });

  it('expands each nested bill with ITS rules at the same location', () => {
    expect(asStrings(explodeToLeaves(forest, BOM, '102'))).toEqual({
      'VMAT-VAR-A': '1.98', 'VMAT-VAR-B': '2.5', 'VMAT-VAR-GLUE': '0.6', 'VMAT-VAR-WICK': '6',
    });
    expect(asStrings(explodeToLeaves(forest, BOM, '103'))).toEqual({
      '44001': '0.42', 'VMAT-VAR-A': '3', 'VMAT-VAR-GLUE': '0.1', 'VMAT-VAR-WICK': '1',
    });
  });

  it('leaves out excluded (non-essential) materials', () => {
    expect([...explodeToLeaves(forest, BOM, null, { exclude: new Set(['VMAT-VAR-GLUE']) }).keys()].sort()).toEqual(['44001', 'VMAT-VAR-A', 'VMAT-VAR-WICK']);
  });

  it('is exact: no rounding however deep the products go', () => {
    const a = explodeToLeaves(forest, { ownerType: 'sub_assembly', ownerId: 'ASM-2' }, null).get('VMAT-VAR-A')!;
    expect(a.toFixed()).toBe('0.33');
    expect(a.times('0.123457').pow(6).toFixed()).toBe(a.toDecimalPlaces(2).times('0.123457').pow(6).toFixed());
  });
});
