import { datasetJson } from './dataset-factory.ts';

const variant = (variantId: string, productName: string, extra: Record<string, unknown> = {}) => ({
  variantId, productId: `8${variantId}`, inventoryItemId: `9${variantId}`, productName, variantName: 'Default Title', sku: `SKU-${variantId}`,
  vendor: 'Acme', price: 10, cost: 1, imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null, levels: [], ...extra,
});
const virtual = (id: string, productName: string, unitCost: number) => ({
  variantId: `VMAT-VAR-${id}`, productId: `VMAT-PROD-${id}`, inventoryItemId: `VMAT-INV-${id}`, productName, variantName: null, sku: `V-${id}`,
  vendor: 'Virtual Co', unit: 'pcs', unitCost, unitPrice: 0, imageUrl: `https://img.example/${id}.png`,
});

/**
 * Two BOMs sharing materials through several lines and depths:
 * ASM-WICK = WICK 1 + DYE 0.5 (+10 % waste); ASM-CORE = wax 0.2 (+5 %) + 2 × ASM-WICK;
 * BOM-1 (44100) = wax 0.4 (+5 %) + ASM-CORE + ASM-WICK + jar 1; BOM-2 (44200) = wax 0.1 + ASM-WICK.
 * Per unit: BOM-1 = wax 0.63, WICK 3, DYE 1.65, jar 1; BOM-2 = wax 0.1, WICK 1, DYE 0.55.
 * At location 102: BOM-1 replaces wax by SOY 0.5 (no waste) and ASM-WICK's dye is adjusted to 1.
 */
export function orderDataset(shopId: string, options: { metafield?: boolean } = {}) {
  return datasetJson(shopId, {
    shop: { id: shopId, name: `Shop ${shopId}`, settings: { allowNegativeInventory: false, materialRequirementsMetafield: options.metafield ?? false } },
    platform: {
      locations: [{ id: '101', name: 'Main' }, { id: '102', name: 'Store' }],
      variants: [
        variant('44001', 'Soy wax'), variant('44003', 'Jar', { variantName: '8 oz' }),
        variant('44100', 'Large candle', { imageUrl: 'https://img.example/large.png' }), variant('44200', 'Small candle'),
      ],
      orders: [
        { orderId: '5001', name: '#1001', lineItems: [
          { variantId: '44100', productId: '844100', sku: 'SKU-44100', title: 'Large candle', quantity: 2 },
          { variantId: '44200', productId: '844200', sku: 'SKU-44200', title: 'Small candle', quantity: 3 },
          { variantId: '44999', productId: null, sku: 'GIFT', title: 'Gift card', quantity: 1 },
        ] },
        { orderId: '5002', name: '#1002', lineItems: [{ variantId: '44999', productId: null, sku: 'GIFT', title: 'Gift card', quantity: 4 }] },
        { orderId: '5003', name: '#1003', lineItems: [{ variantId: '44200', productId: '844200', sku: 'SKU-44200', title: 'Small candle', quantity: 1 }] },
      ],
    },
    materials: [
      { variantId: '44001', unit: 'kg', isNonEssentialMaterial: false, specifications: 'Food-grade' },
      { variantId: '44003', unit: 'pcs', isNonEssentialMaterial: false },
      virtual('WICK', 'Cotton wick', 0.05), virtual('DYE', 'Red dye', 0.01), virtual('SOY', 'Soy flakes', 3),
    ],
    costFactors: [],
    assemblyBills: [
      { assemblyId: 'ASM-WICK', name: 'Wick assembly', rawMaterialReferences: [
        { nodeId: 'VMAT-VAR-WICK', quantity: 1 }, { nodeId: 'VMAT-VAR-DYE', quantity: 0.5, wastePercentage: 10 }] },
      { assemblyId: 'ASM-CORE', name: 'Core', rawMaterialReferences: [{ nodeId: '44001', quantity: 0.2, wastePercentage: 5 }],
        subAssemblyReferences: [{ nodeId: 'ASM-WICK', quantity: 2 }] },
    ],
    boms: [
      { bomId: 'BOM-1', name: 'Large candle', status: 'active', variantId: '44100',
        rawMaterialReferences: [{ nodeId: '44001', quantity: 0.4, wastePercentage: 5 }, { nodeId: '44003', quantity: 1 }],
        subAssemblyReferences: [{ nodeId: 'ASM-CORE', quantity: 1 }, { nodeId: 'ASM-WICK', quantity: 1 }] },
      { bomId: 'BOM-2', name: 'Small candle', status: 'inactive', variantId: '44200',
        rawMaterialReferences: [{ nodeId: '44001', quantity: 0.1 }], subAssemblyReferences: [{ nodeId: 'ASM-WICK', quantity: 1 }] },
    ],
    locationRules: [
      { ownerType: 'bom', ownerId: 'BOM-1', locationId: '102', overrides: [
        { action: 'replace', nodeId: '44001', replacementNodeId: 'VMAT-VAR-SOY', quantity: 0.5, wastePercentage: 0 }] },
      { ownerType: 'sub_assembly', ownerId: 'ASM-WICK', locationId: '102', overrides: [{ action: 'adjust', nodeId: 'VMAT-VAR-DYE', quantity: 1 }] },
    ],
  });
}
