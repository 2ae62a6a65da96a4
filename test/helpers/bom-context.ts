import { contextDeps } from '../../src/app/composition.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { withQueryStats, type QueryStats } from '../../src/db/query-stats.ts';
import type { Orm } from '../../src/db/orm.ts';
import { shopContextFor, type ShopContext } from '../../src/kernel/shop-context.ts';

/** A ShopContext for calling services directly in domain tests (what a request would get). */
export function shopContext(orm: Orm, shopId: string): ShopContext {
  return shopContextFor(contextDeps(orm, { ...loadConfig({}), dataDir: 'memory://' }), shopId, { requestId: 'test', apiKeyId: null, scopes: ['read'] });
}

/** Runs `fn` and returns its result with the number of SQL round trips it made. */
export async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; count: number; queries: string[] }> {
  const stats: QueryStats = { count: 0, queries: [] };
  const result = await withQueryStats(fn, stats);
  return { result, count: stats.count, queries: stats.queries };
}

type Json = Record<string, unknown>;

/** A platform variant of the test datasets (finished good or platform-linked material). */
export function variantJson(variantId: string, name: string, levels: { locationId: string; available: number }[] = [], extra: Json = {}): Json {
  return {
    variantId, productId: `9${variantId}`, inventoryItemId: `7${variantId}`, productName: name, variantName: 'Default', sku: `SKU-${variantId}`,
    vendor: 'V', price: 10, cost: 1, imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null,
    levels, ...extra,
  };
}

/** A virtual material with levels. */
export function virtualJson(suffix: string, name: string, levels: { locationId: string; available: number }[] = [], extra: Json = {}): Json {
  return {
    variantId: `VMAT-VAR-${suffix}`, productId: `VMAT-PROD-${suffix}`, inventoryItemId: `VMAT-INV-${suffix}`, productName: name, variantName: null,
    sku: `V-${suffix}`, vendor: 'V', unit: 'pcs', unitCost: 1, unitPrice: 0, levels, ...extra,
  };
}

export function assemblyJson(assemblyId: string, raw: [string, number, number?][], sub: [string, number][] = [], extra: Json = {}): Json {
  return {
    assemblyId, name: `Assembly ${assemblyId}`,
    rawMaterialReferences: raw.map(([nodeId, quantity, wastePercentage]) => ({ nodeId, quantity, wastePercentage: wastePercentage ?? 0 })),
    subAssemblyReferences: sub.map(([nodeId, quantity]) => ({ nodeId, quantity })), costFactorReferences: [], ...extra,
  };
}

export function bomJson(bomId: string, variantId: string | null, raw: [string, number, number?][], sub: [string, number][] = [], extra: Json = {}): Json {
  return {
    bomId, name: `Bom ${bomId}`, status: 'active', variantId,
    rawMaterialReferences: raw.map(([nodeId, quantity, wastePercentage]) => ({ nodeId, quantity, wastePercentage: wastePercentage ?? 0 })),
    subAssemblyReferences: sub.map(([nodeId, quantity]) => ({ nodeId, quantity })), costFactorReferences: [], ...extra,
  };
}
