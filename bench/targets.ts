// The performance targets of issues 21 and 32 and whether a run met them. Latency targets are ratios to
// `GET /api/v1/locations` measured in the same run (the cheapest authenticated read: key lookup,
// facade, envelope), so a busier or quieter machine moves both sides of each ratio.
import type { ScenarioResult } from './bench-shop.ts';
import type { MemoryFigures } from './memory.ts';

/** The scenario every p50 is divided by. */
export const REFERENCE = 'locations';
/** p50 (1 connection) ÷ the reference's p50, per read; null: shown, no target. */
export const P50_OVER_REFERENCE: Record<string, number | null> = {
  // search=a matches most materials: its exact totalCount is O(matches), shown on its own line.
  'materials-list': null,
  // A selective search walks the trigram index (O(matches)): its growth is held to GROWTH_RATIO.
  'materials-search': 2,
  'materials-by-quantity': 2, 'bom-list': 2, 'work-order-list': 2,
  // Issue 32: the reads that walk a recipe tree or a whole work order, ≤ 3× the reference.
  'bom-deep': 3, 'buildable': 3, 'work-order-read': 3, 'material-plan': 3,
  'breakdown-50': 6,
  'buildable-304': 1.2,
  // Issue 32: the write the workshop floor makes all day (a build run start), ≤ 4× the reference.
  'build-run': 4,
};
/** The whole shop's plan (GraphQL `planning`) at the main size: p50 (ms) and the server's peak RSS (MiB). */
export const PLANNING_P50_MS = 2000;
export const PLANNING_PEAK_MIB = 300;
/** Planning's p50 at 100k ÷ at the main size: it reads the whole shop, so it may grow, but not faster than the shop. */
export const PLANNING_GROWTH_RATIO = 6;
/** The first read of a fresh server after `bomcore load` ÷ the warm p50 of the same read. */
export const FIRST_READ_OVER_WARM = 1.5;
/** req/s at N connections with the last --workers count ÷ with one worker. */
export const WORKERS_THROUGHPUT = 1.7;
/**
 * p99 ÷ p50 of the same run at N connections (the last --workers count): the tail against the median
 * under the same load. (Against the 1-connection p50 it could not be met: 16 requests in flight on
 * 2 workers wait ≥ 8 service times by queueing alone.)
 */
export const P99_OVER_P50 = 4;
export const REST_OVER_GRAPHQL = 1.1;
export const FLOOR_THROUGHPUT = 0.8;
/** Paged reads: p50 at 100k ÷ p50 at the main size. */
export const GROWTH_RATIO = 1.5;
/** `bomcore load` of the main shop into the embedded database: peak RSS, MB. */
export const PGLITE_LOAD_MB = 400;

/** Unloaded REST p50 per scenario id, per size label (e.g. "2k"). */
export type Growth = Record<string, Record<string, number | null>>;

export interface TargetRow {
  /** The scenario id (null: a row of its own). */
  scenario: string | null;
  /** The matrix column (or the row's name when `scenario` is null). */
  column: string;
  target: string;
  limit: string;
  measured: string;
  /** null: not measured, or shown without a target. */
  met: boolean | null;
  /** How far a missed target is from its limit; empty when met. */
  miss: string;
}

export interface TargetContext {
  mainLabel: string;
  connections: number;
  workers: number[];
  /** Peak RSS (MB) of `bomcore load` of the main shop into PGlite; null when not run. */
  pgliteLoadMB: number | null;
}

const x = (v: number) => `${v.toFixed(2)}×`;
const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? a / b : null);

function row(scenario: string | null, column: string, target: string, limit: number | null, measured: number | null, atLeast = false, unit = '×'): TargetRow {
  const show = (v: number) => (unit === '×' ? x(v) : `${v} ${unit}`);
  const limitText = limit === null ? 'shown, no target' : `${atLeast ? '≥' : '≤'} ${show(limit)}`;
  if (measured === null) return { scenario, column, target, limit: limitText, measured: 'not measured', met: null, miss: '' };
  const met = limit === null ? null : atLeast ? measured >= limit : measured <= limit;
  const miss = met === false ? (unit === '×' ? `${x(Math.abs(measured - limit!))} ${atLeast ? 'short' : 'over'}` : `+${measured - limit!} ${unit}`) : '';
  return { scenario, column, target, limit: limitText, measured: show(measured), met, miss };
}

export function targetColumns(context: TargetContext): string[] {
  const n = context.workers[context.workers.length - 1]!;
  return [
    `p50 ÷ ${REFERENCE}`, 'first read ÷ p50', `req/s, ${n} workers ÷ 1`, `p99 ÷ p50 (${context.connections} conn, ${n} worker${n === 1 ? '' : 's'})`,
    'REST ÷ /graphql (p50)', 'req/s ÷ floor', `p50 100k ÷ ${context.mainLabel}`,
  ];
}

export function evaluateTargets(results: ScenarioResult[], growth: Growth | null, context: TargetContext): TargetRow[] {
  const [p50Col, firstCol, workersCol, p99Col, graphqlCol, floorCol, growthCol] = targetColumns(context);
  const reference = results.find((r) => r.id === REFERENCE)?.runs.rest?.unloaded.p50;
  const n = context.workers[context.workers.length - 1]!;
  const rows: TargetRow[] = [];
  for (const r of results.filter((s) => s.kind === 'write' && s.id in P50_OVER_REFERENCE)) {
    rows.push(row(r.id, p50Col!, `${p50Col}: ${r.title}`, P50_OVER_REFERENCE[r.id]!, ratio(r.runs.rest?.unloaded.p50, reference)));
  }
  for (const r of results.filter((s) => s.kind === 'read')) {
    const rest = r.runs.rest;
    const p50 = rest?.unloaded.p50;
    const add = (column: string, limit: number | null, measured: number | null, atLeast = false) =>
      rows.push(row(r.id, column, `${column}: ${r.title}`, limit, measured, atLeast));
    if (r.id === 'planning') {
      // One answer is the whole shop: its bounds are absolute (docs/planning.md), rows of their own.
      const own = (name: string, limit: number, measured: number | null, unit: string) => rows.push(row(null, name, name, limit, measured, false, unit));
      own(`Planning (GraphQL, ${context.mainLabel} shop): p50, 1 connection`, PLANNING_P50_MS, p50 == null ? null : Math.round(p50), 'ms');
      own(`Planning (GraphQL, ${context.mainLabel} shop): server peak RSS`, PLANNING_PEAK_MIB, Math.max(rest?.unloaded.rssMiB ?? 0, rest?.loaded?.rssMiB ?? 0) || null, 'MiB');
      const grown = ratio(growth?.[r.id]?.['100k'], growth?.[r.id]?.[context.mainLabel]);
      rows.push(row(null, `Planning: p50 100k ÷ ${context.mainLabel}`, `Planning: p50 100k ÷ ${context.mainLabel}`, PLANNING_GROWTH_RATIO, grown));
      continue;
    }
    if (r.id in P50_OVER_REFERENCE) add(p50Col!, P50_OVER_REFERENCE[r.id]!, ratio(p50, reference));
    if (r.firstReadMs !== null) add(firstCol!, FIRST_READ_OVER_WARM, ratio(r.firstReadMs, p50));
    const many = n === 1 ? rest?.loaded : r.workers[String(n)];
    if (n > 1) add(workersCol!, WORKERS_THROUGHPUT, ratio(many?.rps, rest?.loaded?.rps), true);
    if (rest?.loaded) add(p99Col!, P99_OVER_P50, many && many.ok > 0 ? ratio(many.p99, many.p50) : null);
    if (r.runs.graphql) add(graphqlCol!, REST_OVER_GRAPHQL, ratio(p50, r.runs.graphql.unloaded.p50));
    if (r.runs.floor) add(floorCol!, FLOOR_THROUGHPUT, ratio(rest?.loaded?.rps, r.runs.floor.loaded?.rps), true);
    if (r.paged) add(growthCol!, r.id === 'materials-list' ? null : GROWTH_RATIO, ratio(growth?.[r.id]?.['100k'], growth?.[r.id]?.[context.mainLabel]));
  }
  rows.push(row(null, `PGlite: bomcore load of the ${context.mainLabel} shop, peak RSS`, `PGlite: bomcore load of the ${context.mainLabel} shop, peak RSS`,
    PGLITE_LOAD_MB, context.pgliteLoadMB, false, 'MB'));
  return rows;
}

/** Issue 32's memory targets, MB: each command that needs no database (its largest process). */
export const NO_DATABASE_COMMAND_MB = 150;
/** `npm start` on the demo shop (a new embedded data directory), until it answers. */
export const DEMO_START_MB = 500;
/** A PostgreSQL worker (1 worker, NODE_ENV=production): idle after a row's runs, and over the runs. */
export const WORKER_SETTLED_MB = 180;
export const WORKER_PEAK_MB = 250;

/** The memory rows of the targets: one per figure of bench/memory.ts (null figures: not measured). */
export function evaluateMemoryTargets(memory: MemoryFigures | null): TargetRow[] {
  const rows: TargetRow[] = [];
  const add = (name: string, limit: number, measured: number | null) => rows.push(row(null, name, name, limit, measured, false, 'MB'));
  for (const [command, mb] of Object.entries(memory?.commands ?? { '--help': null, 'print-schema': null, 'print-openapi': null })) {
    add(`Memory: bomcore ${command} (no database), peak RSS`, NO_DATABASE_COMMAND_MB, mb);
  }
  add(`Memory: npm start on the demo shop (new embedded data directory), peak RSS until ready${memory?.demoStart?.treePeakMB ? ` (process tree ${memory.demoStart.treePeakMB} MB)` : ''}`,
    DEMO_START_MB, memory?.demoStart?.peakMB ?? null);
  const settled = memory?.workerSettled;
  add(`Memory: PostgreSQL worker settled (idle after a row's runs, largest${settled?.scenario ? `: ${settled.scenario}` : ''})`, WORKER_SETTLED_MB, settled?.mb ?? null);
  const peak = memory?.workerPeak;
  add(`Memory: PostgreSQL worker peak under the bench (largest row${peak?.scenario ? `: ${peak.scenario}` : ''}${peak?.withoutPlanningMB ? `; without planning ${peak.withoutPlanningMB} MB` : ''})`,
    WORKER_PEAK_MB, peak?.mb ?? null);
  return rows;
}
