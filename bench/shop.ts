// One benchmark shop: a generated dataset loaded into a fresh PostgreSQL database, an API key, and
// the ids the scenarios use, picked from the generated file.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { GenerateOptions } from '../src/dataset/generate.ts';
import { progress, runNode, runNodeMeasured, type MeasuredRun } from './processes.ts';

/** The generator's size options (bench/ passes them to `bomcore generate`). */
export type ShopSize = Omit<GenerateOptions, 'shopId' | 'onProgress'>;

/** The growth rule: BOMs and orders a tenth of the materials, work orders a fortieth. */
export function scaledSize(materials: number, base: ShopSize): ShopSize {
  return { ...base, materials, boms: Math.max(1, Math.round(materials / 10)), orders: Math.max(1, Math.round(materials / 10)), workOrders: Math.max(1, Math.round(materials / 40)) };
}

export function sizeLabel(size: ShopSize): string {
  return size.materials >= 1000 && size.materials % 1000 === 0 ? `${size.materials / 1000}k` : String(size.materials);
}

export interface Picks {
  shopId: string;
  deepBom: { bomId: string; depth: number; assemblies: number };
  orderIds: string[];
  workOrder: string;
  buildRunWorkOrders: { workOrderId: string; itemId: string; updatedAt: string }[];
  inventory: { variantId: string; locationId: string; available: number };
}

export interface Shop {
  size: ShopSize;
  label: string;
  dbName: string;
  databaseUrl: string;
  key: string;
  picks: Picks;
  /** The generated dataset file. */
  file: string;
  /** `bomcore load` into PostgreSQL: wall time and peak RSS of the process. */
  load: { seconds: number; peakRssMB: number | null };
}

interface Bill { assemblyId?: string; bomId?: string; subAssemblyReferences: { nodeId: string }[] }
interface DatasetSubset {
  shop: { id: string };
  platform: { orders: { orderId: string; lineItems: { variantId: string }[] }[] };
  materials: { variantId: string; levels?: { locationId: string; available: number }[] }[];
  assemblyBills: (Bill & { assemblyId: string })[];
  boms: (Bill & { bomId: string; variantId: string | null })[];
  workOrders: { workOrderId: string; status: string; productionLocationId: string | null; updatedAt: string; items: { itemId: string }[] }[];
}

/** The ids each scenario reads or writes. */
export function pickTargets(file: string): Picks {
  const d = JSON.parse(readFileSync(file, 'utf8')) as DatasetSubset;
  const bills = new Map(d.assemblyBills.map((a) => [a.assemblyId, a]));
  const depthMemo = new Map<string, number>();
  const depth = (bill: Bill): number => {
    const id = bill.assemblyId;
    if (id && depthMemo.has(id)) return depthMemo.get(id)!;
    const value = 1 + Math.max(0, ...bill.subAssemblyReferences.map((s) => depth(bills.get(s.nodeId)!)));
    if (id) depthMemo.set(id, value);
    return value;
  };
  const reach = (bill: Bill, seen = new Set<string>()): Set<string> => {
    for (const s of bill.subAssemblyReferences) if (!seen.has(s.nodeId)) reach(bills.get(s.nodeId)!, seen.add(s.nodeId));
    return seen;
  };
  let deepBom = { bomId: '', depth: -1, assemblies: 0 };
  for (const bom of d.boms) {
    const candidate = { bomId: bom.bomId, depth: depth(bom) - 1, assemblies: reach(bom).size };
    if (candidate.depth > deepBom.depth || (candidate.depth === deepBom.depth && candidate.assemblies > deepBom.assemblies)) deepBom = candidate;
  }
  const finishedGoods = new Set(d.boms.map((b) => b.variantId).filter((v) => v !== null));
  const withBom = d.platform.orders.filter((o) => o.lineItems.some((l) => finishedGoods.has(l.variantId)));
  const orderIds = [...withBom, ...d.platform.orders.filter((o) => !withBom.includes(o))].slice(0, 50).map((o) => o.orderId);
  const running = d.workOrders
    .filter((w) => w.status === 'in_progress' && w.productionLocationId !== null && w.items.length > 0)
    .sort((a, b) => b.items.length - a.items.length || a.workOrderId.localeCompare(b.workOrderId));
  if (running.length === 0) throw new Error(`${file}: no in_progress work order with a production location and items`);
  const buildRunners = running.length > 1 ? running.slice(1) : running;
  let inventory = { variantId: '', locationId: '', available: -1 };
  for (const m of d.materials) {
    if (!m.variantId.startsWith('VMAT-')) continue;
    for (const level of m.levels ?? []) if (level.available > inventory.available) inventory = { variantId: m.variantId, ...level };
  }
  if (!inventory.variantId) throw new Error(`${file}: no virtual material with a level`);
  return {
    shopId: d.shop.id,
    deepBom,
    orderIds,
    workOrder: running[0]!.workOrderId,
    buildRunWorkOrders: buildRunners.map((w) => ({ workOrderId: w.workOrderId, itemId: w.items[0]!.itemId, updatedAt: w.updatedAt })),
    inventory,
  };
}

export function databaseUrlFor(adminUrl: string, dbName: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
}

export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(adminUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Generates the dataset, creates and fills a fresh database, creates a read-write key — the user's
 * path: `bomcore migrate`, `bomcore load` (which analyzes the tables it wrote), nothing else; the
 * first read of the server started next is measured as it comes (docs/performance.md).
 */
export async function prepareShop(size: ShopSize, options: { adminUrl: string; workDir: string; stamp: string }): Promise<Shop> {
  const label = sizeLabel(size);
  const log = join(options.workDir, `setup-${label}.log`);
  const file = join(options.workDir, `dataset-${label}.json`);
  progress(`${label}: generating the dataset (${JSON.stringify(size)})`);
  await runNode([
    'src/cli/main.ts', 'generate', '--materials', String(size.materials), '--boms', String(size.boms), '--depth', String(size.depth),
    '--locations', String(size.locations), '--work-orders', String(size.workOrders), '--orders', String(size.orders),
    '--seed', String(size.seed), '--out', file,
  ], process.env, log);
  const dbName = `bomcore_bench_${options.stamp}_${label}`;
  const databaseUrl = databaseUrlFor(options.adminUrl, dbName);
  progress(`${label}: creating database ${dbName}, migrating, loading`);
  await adminQuery(options.adminUrl, `create database "${dbName}"`);
  const env = { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production' };
  await runNode(['src/cli/main.ts', 'migrate'], env, log);
  const loaded = await runNodeMeasured(['src/cli/main.ts', 'load', file], env, log);
  const picks = pickTargets(file);
  const created = await runNode(['src/cli/main.ts', 'key', 'create', '--shop', picks.shopId, '--scopes', 'read,write', '--name', 'bench', '--json'], env, log);
  const key = (JSON.parse(created) as { key: string }).key;
  const load = { seconds: loaded.seconds, peakRssMB: loaded.peakRssMB };
  progress(`${label}: bomcore load into PostgreSQL took ${load.seconds.toFixed(1)} s, peak RSS ${load.peakRssMB ?? 'n/a'} MB`);
  return { size, label, dbName, databaseUrl, key, picks, file, load };
}

/** `bomcore load` of the shop's dataset into a fresh embedded database (PGlite, on disk in the work directory). */
export async function loadIntoPglite(shop: Shop, workDir: string): Promise<MeasuredRun> {
  const dataDir = join(workDir, `pglite-${shop.label}`);
  const env: NodeJS.ProcessEnv = { ...process.env, BOMCORE_DATA_DIR: dataDir, NODE_ENV: 'production' };
  delete env.DATABASE_URL;
  progress(`${shop.label}: bomcore load into the embedded database (PGlite) in ${dataDir}`);
  try {
    const run = await runNodeMeasured(['bin/bomcore.js', 'load', shop.file], env, join(workDir, `pglite-load-${shop.label}.log`));
    progress(`${shop.label}: PGlite load took ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMB ?? 'n/a'} MB`);
    return run;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function dropShop(shop: Shop, adminUrl: string): Promise<void> {
  await adminQuery(adminUrl, `drop database if exists "${shop.dbName}" with (force)`);
}
