// The performance targets of issue 9 and whether a run met them.
import type { ScenarioResult } from './bench-shop.ts';

/** Unloaded p50 (one connection) of each read, per scenario id, in ms (20k shop). */
export const P50_TARGETS: [string, number][] = [
  ['materials-list', 15], ['bom-deep', 15], ['buildable', 20], ['bom-list', 25], ['breakdown-50', 100],
  ['work-order-list', 25], ['work-order-read', 25], ['material-plan', 25],
];
export const BOM_LIST_100K_P50 = 50;
export const LOADED_P99 = 50;
export const FLOOR_THROUGHPUT_RATIO = 0.67;
export const REST_OVER_GRAPHQL = 1.1;
export const GROWTH_RATIO = 2;

/** Unloaded REST p50 per scenario id, per size label (e.g. "2k"). */
export type Growth = Record<string, Record<string, number | null>>;

export interface TargetRow {
  target: string;
  limit: string;
  measured: string;
  met: boolean | null;
  /** How far a missed target is from its limit; empty when met. */
  miss: string;
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${v.toFixed(1)} ms`);
const x = (v: number) => `${v.toFixed(2)}×`;

function upTo(target: string, limit: number, measured: number | null | undefined, unit: 'ms' | '×' = 'ms'): TargetRow {
  const show = (v: number) => (unit === 'ms' ? ms(v) : x(v));
  if (measured === null || measured === undefined) return { target, limit: `≤ ${show(limit)}`, measured: 'not measured', met: null, miss: '' };
  const met = measured <= limit;
  const miss = met ? '' : unit === 'ms' ? `+${(measured - limit).toFixed(1)} ms (${x(measured / limit)} the target)` : `+${(measured - limit).toFixed(3)}×`;
  return { target, limit: `≤ ${show(limit)}`, measured: show(measured), met, miss };
}

function atLeast(target: string, limit: number, measured: number | null): TargetRow {
  if (measured === null) return { target, limit: `≥ ${x(limit)}`, measured: 'not measured', met: null, miss: '' };
  const met = measured >= limit;
  return { target, limit: `≥ ${x(limit)}`, measured: x(measured), met, miss: met ? '' : `${(limit - measured).toFixed(2)}× short` };
}

const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? a / b : null);

export function evaluateTargets(results: ScenarioResult[], growth: Growth | null, mainLabel: string, connections: number, windowSeconds: number): TargetRow[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  const rows: TargetRow[] = [];
  for (const [id, limit] of P50_TARGETS) {
    const r = byId.get(id);
    if (r) rows.push(upTo(`p50 unloaded: ${r.title}`, limit, r.runs.rest?.unloaded.p50));
  }
  const at100k = growth?.['bom-list']?.['100k'];
  rows.push(upTo('p50 unloaded at 100k: BOM list with stats', BOM_LIST_100K_P50, at100k));
  for (const r of results.filter((s) => s.kind === 'read')) {
    const loaded = r.runs.rest?.loaded;
    const row = upTo(`p99 at ${connections} connections: ${r.title}`, LOADED_P99, loaded?.p99);
    if (loaded && loaded.ok === 0) Object.assign(row, { measured: `no answer within ${windowSeconds} s`, met: false, miss: `> ${windowSeconds * 1000 - LOADED_P99} ms` });
    rows.push(row);
  }
  for (const r of results.filter((s) => s.runs.floor)) {
    rows.push(atLeast(`throughput vs the floor (${connections} connections): ${r.title}`, FLOOR_THROUGHPUT_RATIO, ratio(r.runs.rest?.loaded?.rps, r.runs.floor?.loaded?.rps)));
  }
  for (const r of results.filter((s) => s.runs.graphql)) {
    rows.push(upTo(`REST p50 ÷ /graphql p50: ${r.title}`, REST_OVER_GRAPHQL, ratio(r.runs.rest?.unloaded.p50, r.runs.graphql?.unloaded.p50), '×'));
  }
  const deep = byId.get('bom-deep');
  if (deep?.runs.postgraphile) {
    const rest = deep.runs.rest!;
    const pgl = deep.runs.postgraphile;
    const p50 = ratio(rest.unloaded.p50, pgl.unloaded.p50);
    const rps = ratio(rest.loaded?.rps, pgl.loaded?.rps);
    const met = p50 !== null && rps !== null ? p50 < 1 && rps > 1 : null;
    rows.push({
      target: 'deep BOM read ahead of PostGraphile (p50 and req/s)', limit: 'p50 < 1×, req/s > 1×',
      measured: `p50 ${p50 === null ? 'n/a' : x(p50)}, req/s ${rps === null ? 'n/a' : x(rps)}`, met,
      miss: met === false ? `REST p50 ${ms(rest.unloaded.p50)} vs ${ms(pgl.unloaded.p50)}; ${rest.loaded?.rps ?? 'n/a'} vs ${pgl.loaded?.rps ?? 'n/a'} req/s` : '',
    });
  }
  for (const r of results.filter((s) => s.paged)) {
    rows.push(upTo(`p50 at 100k ÷ p50 at ${mainLabel}: ${r.title}`, GROWTH_RATIO, ratio(growth?.[r.id]?.['100k'], growth?.[r.id]?.[mainLabel]), '×'));
  }
  return rows;
}
