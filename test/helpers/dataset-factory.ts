import { validateDataset } from '../../src/dataset/parse.ts';
import type { Dataset } from '../../src/dataset/types.ts';

type Json = Record<string, unknown>;

/**
 * A small valid dataset for a shop, as plain JSON (the file format). `extra` replaces top-level
 * parts; the result goes through the real validator, so tests load only what `bomcore load` would.
 */
export function datasetJson(shopId: string, extra: Partial<Record<string, unknown>> = {}): Json {
  return {
    formatVersion: 1,
    shop: { id: shopId, name: `Shop ${shopId}`, settings: { allowNegativeInventory: false, materialRequirementsMetafield: false } },
    platform: {
      locations: [{ id: '101', name: 'Main Workshop' }, { id: '102', name: 'Downtown Store' }, { id: '103', name: 'Annex' }],
      variants: [
        { variantId: '44001', productId: '8001', inventoryItemId: '46001', productName: 'Soy wax', variantName: '1 kg bag', sku: 'WAX-1KG',
          vendor: 'WaxCo', price: 12.5, cost: 6.2, imageUrl: null, productType: 'Wax', productCategory: 'Raw', weightValue: 1, weightUnitId: 'kg',
          levels: [{ locationId: '101', available: 40 }, { locationId: '102', available: 3 }] },
        { variantId: '44100', productId: '8100', inventoryItemId: '46100', productName: 'Large candle', variantName: 'Default', sku: 'CANDLE-L',
          vendor: 'Acme', price: 30, cost: null, imageUrl: null, productType: 'Candle', productCategory: 'Finished', weightValue: null, weightUnitId: null,
          levels: [{ locationId: '101', available: 2 }] },
      ],
      orders: [{ orderId: '5001', name: '#1001', lineItems: [{ variantId: '44100', productId: '8100', sku: 'CANDLE-L', title: 'Large candle', quantity: 2 }] }],
    },
    materials: [
      { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false, specifications: 'Food-grade' },
      { variantId: 'VMAT-VAR-0001', productId: 'VMAT-PROD-0001', inventoryItemId: 'VMAT-INV-0001', productName: 'Cotton wick', variantName: '15 cm',
        sku: 'WICK-15', vendor: 'WickWorks', unit: 'pcs', unitCost: 0.05, unitPrice: 0, levels: [{ locationId: '101', available: 500.5 }] },
    ],
    costFactors: [{ costFactorId: 'CF-1', name: 'Labour', kind: 'labor', unit: 'hour', unitCost: 20 }],
    assemblyBills: [{ assemblyId: 'ASM-1', name: 'Wick assembly', rawMaterialReferences: [{ nodeId: 'VMAT-VAR-0001', quantity: 1 }], subAssemblyReferences: [], costFactorReferences: [] }],
    boms: [{ bomId: 'BOM-1001', name: 'Large candle', status: 'active', variantId: '44100',
      rawMaterialReferences: [{ nodeId: '44001', quantity: 0.4, wastePercentage: 5 }], subAssemblyReferences: [{ nodeId: 'ASM-1', quantity: 1 }],
      costFactorReferences: [{ costFactorId: 'CF-1', quantity: 0.25 }] }],
    locationRules: [],
    preassembled: [],
    residuals: [],
    reservations: [],
    assignees: [
      { assigneeId: 'asg_zoe', displayName: 'Zoe', active: true },
      { assigneeId: 'asg_ana', displayName: 'Ana', active: true },
      { assigneeId: 'asg_bob', displayName: 'Bob', active: false },
    ],
    flows: [],
    tasks: [],
    workOrders: [],
    billVersions: [],
    ...extra,
  };
}

export function workOrderJson(id: string, status: string, assigneeId: string | null): Json {
  return {
    workOrderId: id, name: `Work order ${id}`, status, priority: 'normal', assigneeId, sourceType: 'empty',
    productionLocationId: '101', createdAt: '2026-11-01T09:00:00.000Z', updatedAt: '2026-11-02T10:00:00.000Z', items: [],
  };
}

export function toDataset(json: Json): Dataset {
  const result = validateDataset(JSON.parse(JSON.stringify(json)));
  if (!result.ok) throw new Error(`test dataset is invalid: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return result.dataset;
}
