import {
  generateAssemblyBills, generateBoms, generateCostFactors, generateLocations, generateMaterials, PlatformIds,
} from './generate-catalog.ts';
import {
  generateLocationRules, generateMerchVariants, generateOrders, generatePreassembled, generateReservations, generateResiduals,
} from './generate-stock.ts';
import { generateAssignees, generateBillVersions, generateFlows, generateTasks, generateWorkOrders } from './generate-work-orders.ts';
import { Prng } from './prng.ts';
import type { Dataset, DatasetVariant } from './types.ts';
import { DATASET_FORMAT_VERSION, DEFAULT_SHOP_PLAN } from './types.ts';

// A synthetic shop for benchmarks and property tests. The same options give the same dataset,
// and every dataset passes validateDataset.

export interface GenerateOptions {
  /** Raw materials (about 60% platform-linked, 40% virtual). */
  materials: number;
  boms: number;
  /** Layers of nested assembly bills; 0 = no assembly bills. */
  depth: number;
  /** At least 1. */
  locations: number;
  workOrders: number;
  orders: number;
  seed: number;
  shopId?: string;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export const DEFAULT_GENERATE_OPTIONS = {
  materials: 1000,
  boms: 200,
  depth: 3,
  locations: 3,
  workOrders: 200,
  orders: 200,
  seed: 1,
  shopId: 'bench',
} as const satisfies GenerateOptions;

function checkOptions(opts: GenerateOptions): void {
  for (const key of ['materials', 'boms', 'depth', 'locations', 'workOrders', 'orders'] as const) {
    if (!Number.isSafeInteger(opts[key]) || opts[key] < 0) throw new RangeError(`${key} must be a whole number ≥ 0, got ${opts[key]}`);
  }
  if (opts.locations < 1) throw new RangeError('locations must be at least 1');
  if (!Number.isSafeInteger(opts.seed)) throw new RangeError(`seed must be a whole number, got ${opts.seed}`);
}

export function generateDataset(opts: GenerateOptions): Dataset {
  checkOptions(opts);
  const rng = new Prng(opts.seed);
  const progress = opts.onProgress ?? (() => {});
  const ids = new PlatformIds();
  const variants: DatasetVariant[] = [];

  const locations = generateLocations(opts.locations);
  const materials = generateMaterials(rng, opts.materials, locations, ids, variants, progress);
  const materialIds = materials.map((material) => material.variantId);
  const materialVariants = [...variants];
  const costFactors = generateCostFactors(rng, Math.min(500, 5 + Math.floor(opts.boms / 100)));
  const costFactorIds = costFactors.map((factor) => factor.costFactorId);
  const billCount = opts.depth > 0 ? Math.max(opts.depth, Math.round(opts.boms / 2)) : 0;
  const { bills, layers } = generateAssemblyBills(rng, billCount, opts.depth, materialIds, costFactorIds, progress);
  const firstFinishedGood = variants.length;
  const boms = generateBoms(rng, opts.boms, locations, ids, variants, materialIds, costFactorIds, bills, layers, progress);
  const finishedGoods = variants.slice(firstFinishedGood);
  const merch = generateMerchVariants(rng, ids, locations);
  variants.push(...merch);

  const locationRules = generateLocationRules(rng, boms, bills, layers, materialIds, locations, progress);
  const preassembled = generatePreassembled(rng, boms, bills, locations);
  const residuals = generateResiduals(rng, [...materialIds, ...bills.map((bill) => bill.assemblyId)], locations);
  // A quick phase: reported once done, with the rows it made (a fixed "0 / 1" said nothing).
  const stockRows = preassembled.length + residuals.length;
  progress('stock', stockRows, stockRows);
  const orders = generateOrders(rng, opts.orders, finishedGoods, [...merch, ...materialVariants.slice(0, 50)], progress);
  const reservations = generateReservations(rng, orders, boms, bills, locations);

  const assignees = generateAssignees(Math.max(4, Math.min(200, Math.ceil(opts.workOrders / 20))));
  const flows = generateFlows(Math.max(2, Math.min(100, Math.ceil(opts.workOrders / 50))));
  const tasks = generateTasks(Math.max(3, Math.min(200, Math.ceil(opts.workOrders / 30))));
  const workOrders = generateWorkOrders(rng, opts.workOrders, {
    boms, bills, materialIds, locations, assignees, flows, tasks, orderIds: orders.map((order) => order.orderId),
  }, progress);
  const billVersions = generateBillVersions(rng, boms, bills, assignees);

  return {
    formatVersion: DATASET_FORMAT_VERSION,
    shop: {
      id: opts.shopId ?? DEFAULT_GENERATE_OPTIONS.shopId,
      name: `Synthetic Candle Works (seed ${opts.seed})`,
      plan: DEFAULT_SHOP_PLAN,
      settings: { allowNegativeInventory: false, materialRequirementsMetafield: false },
    },
    platform: { locations, variants, orders },
    materials, costFactors, assemblyBills: bills, boms, locationRules, preassembled, residuals, reservations,
    assignees, flows, tasks, workOrders, billVersions,
  };
}
