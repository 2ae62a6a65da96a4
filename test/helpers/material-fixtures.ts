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

const wo = (id: string, status: string, loc: { production?: string; consumption?: string }, items: [string, string, number][], extra: Json = {}): Json => ({
  workOrderId: id, name: `Work order ${id}`, status, priority: 'normal', assigneeId: null, sourceType: 'bom',
  productionLocationId: loc.production ?? null, defaultConsumptionLocationId: loc.consumption ?? null,
  createdAt: '2026-11-01T09:00:00.000Z', updatedAt: '2026-11-02T10:00:00.000Z',
  items: items.map(([ownerType, ownerId, quantity], i) => ({ itemId: `${id}_i${i}`, ownerType, ownerId, quantity })),
  ...extra,
});

const run = (id: string, status: string, picks: [string, string, number][]): Json => ({
  buildRunId: id, status, runType: 'production', startedAt: '2026-11-02T10:00:00.000Z', completedAt: null, items: [],
  picks: picks.map(([variantId, locationId, quantity]) => ({ variantId, locationId, quantity })),
});

/**
 * materialShop plus stock bookkeeping: ASM-2 (2 × ASM-1 + 0.3 of 44001 at 10 % waste), shelves,
 * reservations, residuals and work orders in every kind of state. The expected figures in the
 * tests are worked out by hand from the dataset rules, not read back from the service.
 */
export function stockShop(shopId: string): Json {
  const base = materialShop(shopId) as any;
  return {
    ...base,
    platform: { ...base.platform, orders: [...base.platform.orders, { orderId: '5002', name: '#1002', lineItems: [] }] },
    assemblyBills: [...base.assemblyBills, { assemblyId: 'ASM-2', name: 'Double wick', rawMaterialReferences: [{ nodeId: '44001', quantity: 0.3, wastePercentage: 10 }],
      subAssemblyReferences: [{ nodeId: 'ASM-1', quantity: 2 }], costFactorReferences: [] }],
    preassembled: [
      { itemId: '44100', locationId: '101', quantity: 5 }, { itemId: '44100', locationId: '102', quantity: 2 },
      { itemId: 'ASM-1', locationId: '101', quantity: 3 }, { itemId: '44200', locationId: '101', quantity: 4 },
      { itemId: 'ASM-2', locationId: '101', quantity: 1 },
    ],
    residuals: [
      { itemId: '44001', locationId: '101', kind: 'buildRun', quantity: 0.2 }, { itemId: '44001', locationId: '101', kind: 'safetyStock', quantity: 0.5 },
      { itemId: '44001', locationId: '102', kind: 'buildRun', quantity: 0.75 },
    ],
    reservations: [
      { kind: 'order', itemId: '44100', locationId: '101', orderId: '5001', quantity: 3, fulfilledQuantity: 1 },
      { kind: 'safetyStock', itemId: '44100', locationId: '101', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 1, active: true },
      { kind: 'order', itemId: '44001', locationId: '101', orderId: '5001', quantity: 3, fulfilledQuantity: 1 },
      { kind: 'order', itemId: '44001', locationId: '101', orderId: '5002', quantity: 1 },
      { kind: 'safetyStock', itemId: '44001', locationId: '101', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 4, active: true },
      { kind: 'safetyStock', itemId: '44001', locationId: '101', ownerType: 'bom', ownerId: 'BOM-1002', quantity: 9, active: false },
      { kind: 'order', itemId: '44001', locationId: '102', orderId: '5001', quantity: 2, fulfilledQuantity: 2 },
    ],
    workOrders: [
      wo('wo_a', 'in_progress', { production: '101', consumption: '101' }, [['bom', 'BOM-1001', 10]], {
        manualMaterials: [{ variantId: '44001', quantity: 2, locationId: null, note: 'spare' }],
        buildRuns: [run('run-a1', 'started', [['44001', '101', 1.68]]), run('run-a2', 'reversed', [['44001', '101', 5]])],
      }),
      wo('wo_b', 'ready', { production: '102' }, [['bom', 'BOM-1001', 4], ['bom', 'BOM-1002', 5]]),
      wo('wo_c', 'draft', {}, [['sub_assembly', 'ASM-2', 3]]),
      wo('wo_d', 'completed', { production: '101' }, [['bom', 'BOM-1001', 100]]),
      wo('wo_e', 'cancelled', { production: '101' }, [['bom', 'BOM-1002', 50]], { buildRuns: [{ ...run('run-e1', 'completed', [['44001', '101', 7]]), completedAt: '2026-11-03T10:00:00.000Z' }] }),
    ],
  };
}
