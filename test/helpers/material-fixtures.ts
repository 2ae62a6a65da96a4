import { datasetJson } from './dataset-factory.ts';

type Json = Record<string, unknown>;

const virtual = (n: string, productName: string, variantName: string | null, sku: string, vendor: string | null, levels: Json[], extra: Json = {}) => ({
  variantId: `VMAT-VAR-${n}`, productId: `VMAT-PROD-${n}`, inventoryItemId: `VMAT-INV-${n}`, productName, variantName, sku, vendor,
  unit: 'pcs', unitCost: 0.05, unitPrice: 0, levels, ...extra,
});

/**
 * A shop for the materials routes: two platform-linked materials (44001 at 101 and 102, 44002 at
 * 101), three virtual ones (0001 with fractional levels 0.1 + 0.2, 0002 with none, 0003 at 101),
 * BOM-1001 (44001 + ASM-1, a rule at 102 replacing 44001 by 44002) and inactive BOM-1002.
 */
export function materialShop(shopId: string, extra: Json = {}): Json {
  const base = datasetJson(shopId);
  const platform = base.platform as Json;
  return datasetJson(shopId, {
    platform: {
      ...platform,
      variants: [
        ...(platform.variants as Json[]),
        { variantId: '44002', productId: '8002', inventoryItemId: '46002', productName: 'Paraffin wax', variantName: '5 kg', sku: 'PAR-5',
          vendor: 'WaxCo', price: 20, cost: 9, imageUrl: null, productType: 'Wax', productCategory: 'Raw', weightValue: 5, weightUnitId: 'kg',
          levels: [{ locationId: '101', available: 7 }] },
        { variantId: '44200', productId: '8200', inventoryItemId: '46200', productName: 'Small candle', variantName: 'Default', sku: 'CANDLE-S',
          vendor: 'Acme', price: 15, cost: null, imageUrl: null, productType: 'Candle', productCategory: 'Finished', weightValue: null, weightUnitId: null, levels: [] },
      ],
    },
    materials: [
      { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false, specifications: 'Food-grade' },
      { variantId: '44002', unit: 'kg', isNonEssentialMaterial: false, specifications: null },
      virtual('0001', 'Cotton wick', '15 cm', 'WICK-15', 'WickWorks', [{ locationId: '101', available: 0.1 }, { locationId: '102', available: 0.2 }]),
      virtual('0002', 'Wick sticker', 'Round', 'STK-1', 'WickWorks', []),
      virtual('0003', 'Candle box', 'Small', 'BOX-S', 'Acme', [{ locationId: '101', available: 0 }]),
    ],
    assemblyBills: [{ assemblyId: 'ASM-1', name: 'Wick assembly', rawMaterialReferences: [{ nodeId: 'VMAT-VAR-0001', quantity: 1 }], subAssemblyReferences: [], costFactorReferences: [] }],
    boms: [
      { bomId: 'BOM-1001', name: 'Large candle', status: 'active', variantId: '44100',
        rawMaterialReferences: [{ nodeId: '44001', quantity: 0.4, wastePercentage: 5 }], subAssemblyReferences: [{ nodeId: 'ASM-1', quantity: 1 }],
        costFactorReferences: [{ costFactorId: 'CF-1', quantity: 0.25 }] },
      { bomId: 'BOM-1002', name: 'Small candle', status: 'inactive', variantId: '44200',
        rawMaterialReferences: [{ nodeId: '44001', quantity: 0.2 }, { nodeId: '44002', quantity: 0.1 }], subAssemblyReferences: [], costFactorReferences: [] },
    ],
    locationRules: [
      { ownerType: 'bom', ownerId: 'BOM-1001', locationId: '102', overrides: [{ action: 'replace', nodeId: '44001', replacementNodeId: '44002', quantity: 0.5 }] },
    ],
    ...extra,
  });
}

/** `n` virtual materials (for query-count tests). */
export function manyMaterials(n: number): Json[] {
  return Array.from({ length: n }, (_, i) => virtual(String(i).padStart(4, '0'), `Material ${String(i).padStart(4, '0')}`, null, `SKU-${i}`, `Vendor ${i % 7}`,
    [{ locationId: '101', available: i }]));
}
