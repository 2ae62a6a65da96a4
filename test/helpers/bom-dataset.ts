import { datasetJson, toDataset } from './dataset-factory.ts';
import { assemblyJson, bomJson, variantJson, virtualJson } from './bom-context.ts';

/**
 * The BOM test shop (figures worked out by hand in test/boms/boms.test.ts): a candle whose store
 * location swaps wax for jars and uses more fragrance, a gift set built around an
 * only-consume-pre-assembled gift box whose finished good has no per-location data, and a BOM with
 * no variant whose only countable part is a pre-assembled sticker.
 */
export function bomShopDataset(shopId: string) {
  return toDataset(datasetJson(shopId, {
    platform: {
      locations: [{ id: '101', name: 'Main Workshop' }, { id: '102', name: 'Downtown Store' }, { id: '103', name: 'Annex' }],
      variants: [
        variantJson('44001', 'Soy wax', [{ locationId: '101', available: 40 }, { locationId: '102', available: 3 }, { locationId: '103', available: -2 }], { cost: 6.2, sku: 'WAX-1KG' }),
        variantJson('44002', 'Glass jar', [{ locationId: '101', available: 10 }, { locationId: '102', available: 5 }], { cost: 1.5, sku: 'JAR' }),
        variantJson('44100', 'Large candle', [{ locationId: '101', available: 2 }], { price: 30, sku: 'CANDLE-L' }),
        variantJson('44200', 'Gift set', [], { price: 45, sku: 'GIFT-SET' }),
      ],
      orders: [],
    },
    materials: [
      { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false },
      { variantId: '44002', unit: 'pcs', isNonEssentialMaterial: false },
      virtualJson('0001', 'Cotton wick', [{ locationId: '101', available: 500.5 }, { locationId: '102', available: 7 }], { unitCost: 0.05 }),
      virtualJson('0002', 'Fragrance oil', [{ locationId: '101', available: 3 }, { locationId: '102', available: 1.2 }], { unitCost: 2, unit: 'l' }),
      virtualJson('0003', 'Label', [], { unitCost: 0.01, isNonEssentialMaterial: true }),
    ],
    costFactors: [{ costFactorId: 'CF-1', name: 'Labour', kind: 'labor', unit: 'hour', unitCost: 20 }],
    assemblyBills: [
      assemblyJson('ASM-1', [['VMAT-VAR-0001', 1], ['VMAT-VAR-0003', 1]]),
      assemblyJson('ASM-2', [['VMAT-VAR-0002', 0.3]]),
      assemblyJson('ASM-3', [['44002', 1]], [['ASM-1', 2]], { onlyConsumePreassembled: true, name: 'Gift box' }),
      assemblyJson('ASM-4', [['VMAT-VAR-0003', 1]], [], { name: 'Sticker' }),
    ],
    boms: [
      bomJson('BOM-1001', '44100', [['44001', 0.4, 5]], [['ASM-1', 1], ['ASM-2', 1]], { name: 'Large candle', costFactorReferences: [{ costFactorId: 'CF-1', quantity: 0.25 }] }),
      bomJson('BOM-1002', '44200', [['44001', 0.4, 5]], [['ASM-3', 1], ['ASM-2', 2]], { name: 'Gift set' }),
      bomJson('BOM-1003', null, [['VMAT-VAR-0001', 2]], [['ASM-4', 1]], { name: 'sticker pack', status: 'inactive' }),
    ],
    locationRules: [
      { ownerType: 'bom', ownerId: 'BOM-1001', locationId: '102', overrides: [{ action: 'replace', nodeId: '44001', replacementNodeId: '44002', quantity: 0.5, wastePercentage: 0 }] },
      { ownerType: 'sub_assembly', ownerId: 'ASM-2', locationId: '102', overrides: [{ action: 'adjust', nodeId: 'VMAT-VAR-0002', quantity: 0.4 }] },
      { ownerType: 'bom', ownerId: 'BOM-1001', locationId: '103', overrides: [{ action: 'add', nodeId: 'ASM-4', quantity: 1 }] },
    ],
    preassembled: [
      { itemId: '44100', locationId: '101', quantity: 5 }, { itemId: '44100', locationId: '102', quantity: 2 },
      { itemId: 'ASM-1', locationId: '101', quantity: 3 }, { itemId: 'ASM-3', locationId: '101', quantity: 1 },
      { itemId: 'ASM-4', locationId: '101', quantity: 5 }, { itemId: 'ASM-4', locationId: '102', quantity: 1 },
    ],
    billVersions: [1, 2, 3, 4].map((version) => ({
      ownerType: 'bom', ownerId: 'BOM-1001', version, state: version === 4 ? 'pending' : 'ready', savedAt: `2026-11-0${version}T09:00:00.000Z`,
      savedBy: version === 2 ? null : 'Ana', trigger: 'manual', contentHash: `sha256:${version}`,
      changes: { recipeFields: version, materials: 2, locationRules: 0, overrides: 1 },
    })),
  }));
}
