import { datasetJson } from './dataset-factory.ts';

type Json = Record<string, any>;

export const T0 = '2026-11-02T10:00:00.000Z';

/**
 * A work order in the dataset format. Defaults: one item of BOM-1001 × 10 at location 101,
 * production source, no runs.
 */
export function workOrder(id: string, status: string, extra: Json = {}): Json {
  return {
    workOrderId: id, name: `Work order ${id}`, status, priority: 'normal', assigneeId: 'asg_ana', sourceType: 'bom',
    productionLocationId: '101', createdAt: '2026-11-01T09:00:00.000Z', updatedAt: T0,
    items: [{ itemId: 'woi_1', ownerType: 'bom', ownerId: 'BOM-1001', quantity: 10, completedQuantity: 0 }],
    ...extra,
  };
}

/**
 * A small candle shop for work-order tests:
 * - BOM-1001 (finished good 44100) = 0.4 kg wax 44001 (+5% waste) + 1 × ASM-1; ASM-1 = 1 wick VMAT-VAR-0001.
 * - BOM-2000 (no variant) = 0.4 of virtual resin VMAT-VAR-0002 (no waste): the residual-carry case.
 * - ASM-ONLY (onlyConsumePreassembled) = 1 wick; BOM-3000 = 1 × ASM-ONLY.
 * Levels at 101: wax 40 (platform), wick 500, resin 10. Location 102 has a rule on BOM-1001 replacing wax by resin.
 */
export function workOrderShop(shopId: string, workOrders: Json[], extra: Json = {}): Json {
  const base = datasetJson(shopId) as Json;
  return datasetJson(shopId, {
    materials: [
      base.materials[0],
      { ...base.materials[1], levels: [{ locationId: '101', available: 500 }] },
      { variantId: 'VMAT-VAR-0002', productId: 'VMAT-PROD-0002', inventoryItemId: 'VMAT-INV-0002', productName: 'Resin', variantName: 'Clear',
        sku: 'RESIN', vendor: 'ResinCo', unit: 'kg', unitCost: 2.5, unitPrice: 0, levels: [{ locationId: '101', available: 10 }, { locationId: '102', available: 10 }] },
    ],
    assemblyBills: [
      { assemblyId: 'ASM-1', name: 'Wick assembly', rawMaterialReferences: [{ nodeId: 'VMAT-VAR-0001', quantity: 1 }], subAssemblyReferences: [], costFactorReferences: [] },
      { assemblyId: 'ASM-ONLY', name: 'Shelf-only insert', onlyConsumePreassembled: true, rawMaterialReferences: [{ nodeId: 'VMAT-VAR-0001', quantity: 1 }],
        subAssemblyReferences: [], costFactorReferences: [] },
    ],
    boms: [
      base.boms[0],
      { bomId: 'BOM-2000', name: 'Resin coaster', status: 'active', variantId: null,
        rawMaterialReferences: [{ nodeId: 'VMAT-VAR-0002', quantity: 0.4 }], subAssemblyReferences: [], costFactorReferences: [] },
      { bomId: 'BOM-3000', name: 'Insert kit', status: 'active', variantId: null,
        rawMaterialReferences: [], subAssemblyReferences: [{ nodeId: 'ASM-ONLY', quantity: 1 }], costFactorReferences: [] },
    ],
    locationRules: [{ ownerType: 'bom', ownerId: 'BOM-1001', locationId: '102',
      overrides: [{ action: 'replace', nodeId: '44001', replacementNodeId: 'VMAT-VAR-0002', quantity: 0.5, wastePercentage: 0 }] }],
    flows: [{ flowId: 'flow_weekly', name: 'Weekly batch' }],
    tasks: [{ taskId: 'todo_42', title: 'Restock wax' }],
    workOrders,
    ...extra,
  });
}
