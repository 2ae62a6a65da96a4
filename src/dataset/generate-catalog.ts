import type { Prng } from './prng.ts';
import type {
  DatasetAssemblyBill, DatasetBom, DatasetCostFactor, DatasetLevel, DatasetLocation, DatasetMaterial, DatasetRecipe, DatasetVariant,
} from './types.ts';
import { COST_FACTOR_KINDS } from './types.ts';

// Synthetic catalogue: locations, platform variants, materials, cost factors, assembly bills
// (a layered DAG) and BOMs. Every reference points at something generated earlier, so the
// result is valid by construction.

export type Progress = (phase: string, done: number, total: number) => void;

/** Calls `progress` at the start, every `every` items and at the end of a phase. */
export function loop(total: number, phase: string, progress: Progress, body: (index: number) => void, every = 10_000): void {
  progress(phase, 0, total);
  for (let i = 0; i < total; i++) {
    body(i);
    if ((i + 1) % every === 0 && i + 1 < total) progress(phase, i + 1, total);
  }
  progress(phase, total, total);
}

const LOCATION_NAMES = ['Main Workshop', 'Downtown Store', 'Warehouse', 'Harbour Studio', 'Pop-up Market', 'East Depot'];

export function generateLocations(count: number): DatasetLocation[] {
  return Array.from({ length: count }, (_, i) => ({
    id: String(101 + i),
    name: LOCATION_NAMES[i] ?? `Site ${i + 1}`,
  }));
}

interface MaterialKind {
  type: string;
  unit: string;
  names: string[];
  sizes: string[];
  /** Unit cost range in currency units. */
  cost: [number, number];
}

const MATERIAL_KINDS: MaterialKind[] = [
  { type: 'Wax', unit: 'kg', names: ['Soy wax', 'Beeswax', 'Paraffin wax', 'Coconut wax', 'Rapeseed wax'], sizes: ['1 kg bag', '5 kg sack', '20 kg case'], cost: [3, 15] },
  { type: 'Wick', unit: 'pcs', names: ['Cotton wick', 'Wooden wick', 'Hemp wick', 'Pre-tabbed wick'], sizes: ['10 cm', '15 cm', '20 cm'], cost: [0.02, 0.5] },
  { type: 'Fragrance', unit: 'ml', names: ['Lavender oil', 'Vanilla oil', 'Cedarwood oil', 'Bergamot oil', 'Fig oil'], sizes: ['100 ml', '500 ml', '1 l'], cost: [0.05, 0.4] },
  { type: 'Dye', unit: 'g', names: ['Red dye chips', 'Blue liquid dye', 'Ochre dye', 'Black dye chips'], sizes: ['50 g', '250 g'], cost: [0.01, 0.2] },
  { type: 'Container', unit: 'pcs', names: ['Amber jar', 'Clear tumbler', 'Travel tin', 'Ceramic vessel'], sizes: ['small', 'medium', 'large'], cost: [0.4, 6] },
  { type: 'Lid', unit: 'pcs', names: ['Bamboo lid', 'Metal lid', 'Cork lid'], sizes: ['70 mm', '85 mm'], cost: [0.1, 1.5] },
  { type: 'Label', unit: 'pcs', names: ['Front label', 'Warning label', 'Bottom sticker'], sizes: ['roll of 500', 'sheet of 24'], cost: [0.01, 0.3] },
  { type: 'Packaging', unit: 'pcs', names: ['Gift box', 'Shipping carton', 'Tissue sheet', 'Crinkle paper'], sizes: ['S', 'M', 'L'], cost: [0.05, 2] },
];
const VENDORS = ['WaxCo', 'WickWorks', 'Scentsation', 'ColorLab', 'GlassHouse', 'PackRight', 'LabelPro'];

/** Numeric platform ids, unique across variants, products and inventory items. */
export class PlatformIds {
  private counter = 0;
  next(): { variantId: string; productId: string; inventoryItemId: string } {
    this.counter += 1;
    return { variantId: String(44_000_000 + this.counter), productId: String(8_000_000 + this.counter), inventoryItemId: String(46_000_000 + this.counter) };
  }
}

/** Levels at up to three locations; whole numbers for the platform, fractions for virtual stock. */
function levelsFor(rng: Prng, locations: DatasetLocation[], fractional: boolean): DatasetLevel[] {
  const chosen = locations.length <= 3 ? locations.filter(() => rng.chance(0.85)) : rng.pickDistinct(locations, rng.int(1, 3));
  return chosen
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((location) => ({ locationId: location.id, available: fractional ? rng.decimal(0, 800, 2) : String(rng.int(0, 500)) }));
}

function sumWholeLevels(levels: DatasetLevel[]): string {
  return String(levels.reduce((sum, level) => sum + Number(level.available), 0));
}

export function generateMaterials(rng: Prng, count: number, locations: DatasetLocation[], ids: PlatformIds,
  variants: DatasetVariant[], progress: Progress): DatasetMaterial[] {
  const materials: DatasetMaterial[] = [];
  loop(count, 'materials', progress, (i) => {
    const kind = rng.pick(MATERIAL_KINDS);
    const productName = rng.pick(kind.names);
    const variantName = rng.pick(kind.sizes);
    const sku = `${kind.type.slice(0, 3).toUpperCase()}-${i + 1}`;
    const vendor = rng.pick(VENDORS);
    const unitCost = rng.decimal(kind.cost[0], kind.cost[1], 4);
    const specifications = rng.chance(0.3) ? `${kind.type} grade ${rng.int(1, 5)}` : null;
    const isNonEssentialMaterial = rng.chance(0.05);
    if (rng.chance(0.6)) {
      const platformIds = ids.next();
      const levels = rng.chance(0.05) ? [] : levelsFor(rng, locations, false);
      const weightValue = rng.chance(0.5) ? rng.decimal(0.01, 25, 3) : null;
      variants.push({
        ...platformIds, productName, variantName, sku, vendor,
        price: rng.decimal(kind.cost[1], kind.cost[1] * 2, 2), cost: unitCost,
        imageUrl: rng.chance(0.2) ? `https://cdn.example.com/materials/${platformIds.variantId}.jpg` : null,
        productType: kind.type, productCategory: 'Raw material',
        weightValue, weightUnitId: weightValue === null ? null : 'kg', levels,
      });
      materials.push({
        origin: 'platform', variantId: platformIds.variantId, unit: kind.unit, isNonEssentialMaterial, specifications,
        cachedQuantity: sumWholeLevels(levels),
      });
      return;
    }
    const uuid = rng.uuid();
    const weightValue = rng.chance(0.3) ? rng.decimal(0.001, 10, 3) : null;
    materials.push({
      origin: 'virtual', variantId: `VMAT-VAR-${uuid}`, productId: `VMAT-PROD-${uuid}`, inventoryItemId: `VMAT-INV-${uuid}`,
      productName, variantName, sku, vendor, unit: kind.unit, unitCost, unitPrice: rng.chance(0.5) ? '0' : null,
      specifications, imageUrl: null, isNonEssentialMaterial,
      weightValue, weightUnitId: weightValue === null ? null : 'kg',
      productType: kind.type, productCategory: rng.chance(0.5) ? 'Raw material' : null,
      levels: levelsFor(rng, locations, true),
    });
  });
  return materials;
}

const COST_FACTOR_NAMES: Record<string, [string, string]> = {
  labor: ['Pouring labour', 'hour'], overhead: ['Studio overhead', 'batch'], packaging: ['Packing station', 'unit'],
  machine: ['Melter time', 'hour'], other: ['Quality check', 'unit'],
};

export function generateCostFactors(rng: Prng, count: number): DatasetCostFactor[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = COST_FACTOR_KINDS[i % COST_FACTOR_KINDS.length] ?? 'other';
    const [name, unit] = COST_FACTOR_NAMES[kind] ?? ['Cost', 'unit'];
    return { costFactorId: `CF-${i + 1}`, name: `${name} ${Math.floor(i / COST_FACTOR_KINDS.length) + 1}`, kind, unit, unitCost: rng.decimal(0.5, 40, 2) };
  });
}

/** Raw-material and cost-factor lines; waste on about a third of the raw lines. */
function baseRecipe(rng: Prng, materialIds: string[], costFactorIds: string[], rawLines: number, costLines: number): DatasetRecipe {
  return {
    rawMaterialReferences: rng.pickDistinct(materialIds, rawLines).map((nodeId) => ({
      nodeId, quantity: rng.decimal(0.001, 5, 3), wastePercentage: rng.chance(0.3) ? rng.decimal(0.5, 25, 1) : '0',
    })),
    subAssemblyReferences: [],
    costFactorReferences: rng.pickDistinct(costFactorIds, costLines).map((costFactorId) => ({ costFactorId, quantity: rng.decimal(0.01, 2, 2) })),
  };
}

const subQuantity = (rng: Prng) => rng.pick(['1', '1', '1', '2', '0.5', '3']);
const BILL_NAMES = ['Wick assembly', 'Scent blend', 'Wax base', 'Vessel kit', 'Lid set', 'Gift insert', 'Label pack'];

/**
 * Assembly bills in `depth` layers, ordered by layer. A bill of layer k names at least one bill
 * of layer k−1 and only bills of lower layers, so nesting reaches `depth` and never loops.
 * Returns the bills and each bill's layer.
 */
export function generateAssemblyBills(rng: Prng, count: number, depth: number, materialIds: string[], costFactorIds: string[],
  progress: Progress): { bills: DatasetAssemblyBill[]; layers: number[] } {
  const bills: DatasetAssemblyBill[] = [];
  const layers: number[] = [];
  const layerStart: number[] = [];
  loop(count, 'assemblyBills', progress, (i) => {
    const layer = 1 + Math.floor((i * depth) / count);
    if (layerStart[layer] === undefined) layerStart[layer] = i;
    const recipe = baseRecipe(rng, materialIds, costFactorIds, rng.int(layer === 1 ? 1 : 0, 4), rng.int(0, 2));
    if (layer > 1) {
      // Bills of lower layers are exactly the indexes below this layer's start.
      const lowerCount = layerStart[layer] as number;
      const chosen = new Set([rng.int(layerStart[layer - 1] as number, lowerCount - 1)]);
      const wanted = 1 + Math.min(rng.int(0, 2), lowerCount - 1);
      while (chosen.size < wanted) chosen.add(rng.int(0, lowerCount - 1));
      recipe.subAssemblyReferences = [...chosen].map((index) => ({ nodeId: `ASM-${index + 1}`, quantity: subQuantity(rng) }));
    }
    bills.push({ assemblyId: `ASM-${i + 1}`, name: `${rng.pick(BILL_NAMES)} ${i + 1}`, onlyConsumePreassembled: rng.chance(0.1), ...recipe });
    layers.push(layer);
  }, 5_000);
  return { bills, layers };
}

const SCENTS = ['Lavender', 'Vanilla', 'Cedar', 'Bergamot', 'Fig', 'Sea salt', 'Amber', 'Rose'];
const SIZES = ['Small', 'Medium', 'Large', 'Travel', 'Triple-wick'];

/** BOMs with their finished-good variants (a few BOMs are not platform-linked). */
export function generateBoms(rng: Prng, count: number, locations: DatasetLocation[], ids: PlatformIds, variants: DatasetVariant[],
  materialIds: string[], costFactorIds: string[], bills: DatasetAssemblyBill[], layers: number[], progress: Progress): DatasetBom[] {
  const boms: DatasetBom[] = [];
  const billIds = bills.map((b) => b.assemblyId);
  const topLayer = layers.reduce((max, layer) => Math.max(max, layer), 0);
  const topBills = billIds.filter((_, i) => layers[i] === topLayer);
  loop(count, 'boms', progress, (i) => {
    const name = `${rng.pick(SCENTS)} ${rng.pick(SIZES).toLowerCase()} candle`;
    const recipe = baseRecipe(rng, materialIds, costFactorIds, rng.int(1, 5), rng.int(0, 2));
    const subs = billIds.length === 0 ? [] : rng.pickDistinct(billIds, rng.int(0, 2));
    if (topBills.length > 0 && rng.chance(0.5)) subs.push(...rng.pickDistinct(topBills, 1).filter((id) => !subs.includes(id)));
    recipe.subAssemblyReferences = subs.map((nodeId) => ({ nodeId, quantity: subQuantity(rng) }));
    let variantId: string | null = null;
    if (!rng.chance(0.05)) {
      const platformIds = ids.next();
      variantId = platformIds.variantId;
      variants.push({
        ...platformIds, productName: name, variantName: 'Default', sku: `CANDLE-${i + 1}`, vendor: 'In-house',
        price: rng.decimal(12, 80, 2), cost: null, imageUrl: null, productType: 'Candle', productCategory: 'Finished good',
        weightValue: rng.decimal(0.1, 2, 2), weightUnitId: 'kg',
        levels: rng.chance(0.1) ? [] : levelsFor(rng, locations, false),
      });
    }
    boms.push({ bomId: `BOM-${1001 + i}`, name, status: rng.chance(0.9) ? 'active' : 'inactive', variantId, ...recipe });
  }, 5_000);
  return boms;
}
