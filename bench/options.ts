// Command-line options of `npm run bench -- [options]`.
import { parseArgs } from 'node:util';
import type { ShopSize } from './shop.ts';

export const HELP = `npm run bench -- [options]

Shop (bomcore generate):  --materials 20000 --boms 2000 --depth 5 --locations 20 --work-orders 500 --orders 2000 --seed 7
Load:      --warmup 2 --duration 10 (seconds per measurement) --connections 16 (the loaded runs; unloaded runs use 1)
Growth:    --growth-sizes 2000,20000,100000 (each read's unloaded p50 at these sizes; BOMs and orders = materials/10,
           work orders = materials/40; the main size is reused) · --no-growth
Workers:   --workers 1,2 (the rows run on \`serve --workers 1\`; each further count reruns the reads at N connections on
           one server with that many workers; a smoke run uses 1)
Embedded:  --no-pglite (skip \`bomcore load\` of the main shop into a fresh PGlite database, measured for its peak RSS)
Memory:    --no-memory (skip the peaks of --help, print-schema and print-openapi, 3 runs each, and of \`npm start\` on
           the demo shop; the server's settled and peak RSS come from the rows either way)
Scope:     --only materials-list,bom-deep,…  (scenario ids; default all)
Output:    --out bench/results · --no-docs (do not update docs/performance.md; only the default size updates it)
Database:  --pg postgres://postgres@127.0.0.1:5432/postgres (admin URL; a fresh database per shop size) · --keep (keep
           the databases and the work directory)
Server:    --log-level info (LOG_LEVEL of the servers; logs go to files in the work directory) · --cpu-prof (bomcore
           runs with node --cpu-prof; the .cpuprofile files stay in the work directory; combine with --only)
--smoke    tiny shop, very short runs, no growth, no files written; fails when a request fails or a scenario's SQL
           statement count exceeds its maximum in bench/expected-query-counts.ts`;

export interface Options {
  size: ShopSize;
  defaultSize: boolean;
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  growthSizes: number[];
  only: string[] | null;
  outDir: string;
  docs: boolean;
  adminUrl: string;
  keep: boolean;
  logLevel: string;
  smoke: boolean;
  timeoutSeconds: number;
  cpuProf: boolean;
  /** Worker counts of `serve`: the first for every row, the others for the reads at N connections. */
  workers: number[];
  pglite: boolean;
  /** Measure the no-database commands and `npm start` (bench/memory.ts). */
  memory: boolean;
}

export const DEFAULT_SIZE: ShopSize = { materials: 20000, boms: 2000, depth: 5, locations: 20, workOrders: 500, orders: 2000, seed: 7 };
const SMOKE_SIZE: ShopSize = { materials: 300, boms: 30, depth: 3, locations: 3, workOrders: 12, orders: 60, seed: 7 };

function number(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${value}"`);
  return n;
}

export function parseOptions(argv: string[]): Options | null {
  const text = { type: 'string' } as const;
  const flag = { type: 'boolean' } as const;
  const { values } = parseArgs({
    args: argv,
    allowNegative: true,
    options: {
      materials: text, boms: text, depth: text, locations: text, 'work-orders': text, orders: text, seed: text,
      warmup: text, duration: text, connections: text, 'growth-sizes': text, growth: flag, only: text, out: text, docs: flag,
      pg: text, keep: flag, workers: text, pglite: flag, memory: flag, 'log-level': text, smoke: flag, 'cpu-prof': flag, help: flag,
    },
  });
  if (values.help) return null;
  const smoke = values.smoke ?? false;
  const base = smoke ? SMOKE_SIZE : DEFAULT_SIZE;
  const size: ShopSize = {
    materials: number(values.materials, '--materials', base.materials),
    boms: number(values.boms, '--boms', base.boms),
    depth: number(values.depth, '--depth', base.depth),
    locations: number(values.locations, '--locations', base.locations),
    workOrders: number(values['work-orders'], '--work-orders', base.workOrders),
    orders: number(values.orders, '--orders', base.orders),
    seed: number(values.seed, '--seed', base.seed),
  };
  const growth = !smoke && (values.growth ?? true);
  const growthSizes = growth ? (values['growth-sizes'] ?? '2000,20000,100000').split(',').map((s) => number(s.trim(), '--growth-sizes', 0)) : [];
  return {
    size,
    defaultSize: JSON.stringify(size) === JSON.stringify(DEFAULT_SIZE),
    warmupSeconds: number(values.warmup, '--warmup', smoke ? 0 : 2),
    durationSeconds: number(values.duration, '--duration', smoke ? 0.4 : 10),
    connections: number(values.connections, '--connections', smoke ? 2 : 16),
    growthSizes,
    only: values.only ? values.only.split(',').map((s) => s.trim()) : null,
    outDir: values.out ?? 'bench/results',
    docs: !smoke && (values.docs ?? true),
    adminUrl: values.pg ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    keep: values.keep ?? false,
    logLevel: values['log-level'] ?? 'info',
    smoke,
    timeoutSeconds: smoke ? 30 : 120,
    cpuProf: values['cpu-prof'] ?? false,
    workers: (values.workers ?? (smoke ? '1' : '1,2')).split(',').map((s) => Math.max(1, Math.round(number(s.trim(), '--workers', 1)))),
    pglite: !smoke && (values.pglite ?? true),
    memory: !smoke && (values.memory ?? true),
  };
}
