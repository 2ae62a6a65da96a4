// The results as markdown and JSON (bench/results/<date>-<size>.md|json) and in docs/performance.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTLE_SECONDS, type ScenarioResult, type Side } from './bench-shop.ts';
import type { MemoryFigures } from './memory.ts';
import { REFERENCE, type Growth, type TargetRow } from './targets.ts';

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  postgres: string;
  os: string;
  /** 1-minute load average before the run: other work on the machine shows here. */
  loadBefore: number;
  loadAfter: number;
}

export interface RunReport {
  date: string;
  /** The code measured (git describe). */
  source: string;
  label: string;
  command: string;
  size: Record<string, number>;
  settings: { warmupSeconds: number; durationSeconds: number; connections: number; logLevel: string; workers: number[] };
  /** `bomcore load` of the main shop: into PostgreSQL (the database measured) and into PGlite (null: not run). */
  loads: { postgres: LoadFigures; pglite: LoadFigures | null };
  /** bench/memory.ts: the no-database commands, `npm start`, the server settled and at its peak (absent in runs before it). */
  memory?: MemoryFigures;
  machine: Machine;
  results: ScenarioResult[];
  growth: Growth | null;
  growthLabels: string[];
  targets: TargetRow[];
  targetColumns: string[];
  minutes: number;
}

export interface LoadFigures { seconds: number; peakRssMB: number | null }

const SIDE_NAMES: Record<Side, string> = { rest: 'REST', graphql: '/graphql', floor: 'floor', postgraphile: 'PostGraphile' };
const f1 = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : v.toFixed(1));
const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');

function scenarioRows(report: RunReport): string[] {
  const { connections, durationSeconds, workers } = report.settings;
  const more = workers.slice(1);
  const lines = [
    `| scenario | side | SQL/req | first read (ms) | p50, 1 conn (ms) | req/s, ${connections} conn | p99, ${connections} conn (ms) |${more.map((n) => ` req/s, ${n} workers | p99, ${n} workers |`).join('')} peak RSS (MiB) | REST p50 ÷ side p50 | REST req/s ÷ side req/s |`,
    `|---|---|---:|---:|---:|---:|---:|${more.map(() => '---:|---:|').join('')}---:|---:|---:|`,
  ];
  const p99Of = (run: { ok: number; p99: number | null } | null | undefined) => (run ? (run.ok === 0 ? `none in ${durationSeconds} s` : f1(run.p99)) : 'n/a');
  for (const r of report.results) {
    const rest = r.runs.rest;
    for (const side of ['rest', 'graphql', 'floor', 'postgraphile'] as Side[]) {
      const run = r.runs[side];
      if (!run) continue;
      const loaded = run.loaded;
      const rss = Math.max(run.unloaded.rssMiB ?? 0, loaded?.rssMiB ?? 0) || null;
      const same = side === 'floor' && r.floorSameData !== null ? (r.floorSameData ? ' (same data)' : ' (data differs)') : '';
      const isRest = side === 'rest';
      const workerCells = more.map((n) => (isRest && r.workers[String(n)] ? ` ${f1(r.workers[String(n)]!.rps)} | ${p99Of(r.workers[String(n)])} |` : ' | |')).join('');
      lines.push(`| ${isRest ? r.title : ''} | ${SIDE_NAMES[side]}${same} | ${run.sql ?? (side === 'graphql' ? '= REST' : 'n/a')} | ${isRest ? f1(r.firstReadMs) : ''} | ${f1(run.unloaded.p50)}${run.unloaded.toppedUp ? '*' : ''} | ${f1(loaded?.rps)} | ${p99Of(loaded)} |${workerCells} ${rss ?? 'n/a'} | ${isRest ? '' : ratio(rest?.unloaded.p50, run.unloaded.p50)} | ${isRest ? '' : ratio(rest?.loaded?.rps, loaded?.rps)} |`);
    }
  }
  return lines;
}

/** The targets as a matrix: a row per read, a column per kind of target; a missed one in bold with ✗. */
function targetRows(report: RunReport): string[] {
  const columns = report.targetColumns;
  const limits = new Map<string, Set<string>>();
  for (const t of report.targets) if (t.scenario && t.limit !== 'shown, no target') (limits.get(t.column) ?? limits.set(t.column, new Set()).get(t.column)!).add(t.limit);
  const lines = [
    `| scenario | ${columns.map((c) => `${c} (${[...(limits.get(c) ?? [])].join(', ') || '—'})`).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
  ];
  const cell = (t: TargetRow | undefined) =>
    (!t ? '' : t.met === false ? `**${t.measured} ✗**` : t.limit === 'shown, no target' ? `${t.measured} (no target)` : `${t.measured}${t.met ? ' ✓' : ''}`);
  for (const r of report.results) {
    const mine = report.targets.filter((t) => t.scenario === r.id);
    if (mine.length === 0) continue;
    lines.push(`| ${r.title.replace(/ \(.*\)$/, '')} | ${columns.map((c) => cell(mine.find((t) => t.column === c))).join(' | ')} |`);
  }
  lines.push('', ...report.targets.filter((t) => !t.scenario).map((t) => `- ${t.target}: ${t.measured} (target ${t.limit}) — ${t.met === null ? 'not measured' : t.met ? 'met' : `**missed**, ${t.miss}`}`));
  return lines;
}

/** The memory figures (MB = 10^6 bytes; the rows' RSS column is MiB). */
function memoryLines(report: RunReport): string[] {
  const m = report.memory;
  if (!m) return [];
  const mb = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${v} MB`);
  const commands = Object.entries(m.commands);
  const settled = report.results.filter((r) => r.settledRssMiB !== null).map((r) => `${r.id} ${r.settledRssMiB}`);
  return [
    'Memory (peak RSS; MB = 10⁶ bytes):',
    '',
    `- Commands that need no database (\`./bomcore …\`, median of 3, largest process): ${commands.length ? commands.map(([c, v]) => `${c} ${mb(v)}`).join(', ') : 'not measured'}`,
    `- \`npm start\` on the demo shop, new embedded data directory, until it answers: ${m.demoStart ? `${mb(m.demoStart.peakMB)} (largest process; process tree ${mb(m.demoStart.treePeakMB)}), ready in ${m.demoStart.seconds.toFixed(0)} s` : 'not measured'}`,
    `- bomcore server of the rows (PostgreSQL, NODE_ENV=production): settled (idle ${SETTLE_SECONDS} s after a row's runs) at most ${mb(m.workerSettled.mb)}${m.workerSettled.scenario ? ` (${m.workerSettled.scenario})` : ''}; peak ${mb(m.workerPeak.mb)}${m.workerPeak.scenario ? ` (${m.workerPeak.scenario})` : ''}, without planning ${mb(m.workerPeak.withoutPlanningMB)}`,
    ...(settled.length ? [`- Settled, per row (MiB): ${settled.join(', ')}`] : []),
    '',
  ];
}

function growthRows(report: RunReport): string[] {
  if (!report.growth) return [];
  const labels = report.growthLabels;
  const last = labels[labels.length - 1]!;
  const compare = last !== report.label;
  const lines = [
    `| scenario (REST, p50 at 1 connection, ms) | ${labels.join(' | ')} |${compare ? ` ${last} ÷ ${report.label} |` : ''}`,
    `|---|${labels.map(() => '---:').join('|')}|${compare ? '---:|' : ''}`,
  ];
  for (const r of report.results.filter((s) => s.kind === 'read')) {
    const row = report.growth[r.id] ?? {};
    lines.push(`| ${r.title.replace(/ \(.*\)$/, '')} | ${labels.map((l) => f1(row[l])).join(' | ')} |${compare ? ` ${ratio(row[last], row[report.label])} |` : ''}`);
  }
  return lines;
}

export function renderMarkdown(report: RunReport): string {
  const m = report.machine;
  const s = report.settings;
  const met = report.targets.filter((t) => t.met === true).length;
  return [
    `### Run of ${report.date}: ${report.label} shop`,
    '',
    `- Command: \`${report.command}\` (${report.minutes.toFixed(1)} min), code \`${report.source}\``,
    `- Shop: ${Object.entries(report.size).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, ${m.os}; Node ${m.node}; ${m.postgres}; load average ${m.loadBefore.toFixed(2)} before, ${m.loadAfter.toFixed(2)} after`,
    `- Each measurement: ${s.warmupSeconds} s warm-up, then ${s.durationSeconds} s; p50 at 1 connection ("unloaded"), req/s and p99 at ${s.connections} connections; servers log at \`${s.logLevel}\` to files`,
    `- Load, the user's path (\`bomcore migrate\`, \`bomcore load\` — which analyzes what it wrote — then \`bomcore serve\`, no other step): into PostgreSQL ${report.loads.postgres.seconds.toFixed(0)} s, peak RSS ${report.loads.postgres.peakRssMB ?? 'n/a'} MB; into PGlite ${report.loads.pglite ? `${report.loads.pglite.seconds.toFixed(0)} s, peak RSS ${report.loads.pglite.peakRssMB ?? 'n/a'} MB` : 'not run'}`,
    `- First read: the first request a freshly started server answers (after \`serve\`'s own start-up warm-up, before the load generator's; a fresh server per scenario). Rows run on ${s.workers[0]} worker(s)${s.workers.length > 1 ? `; "N workers" columns: the reads again on one \`serve --workers N\`` : ''}.`,
    '- SQL/req: `X-Query-Count` of one request (statements of the operation; the API-key lookup adds one). Peak RSS: the server\'s VmHWM over that side\'s runs (/graphql runs in the REST server). `*`: fewer than 3 answers in the window, p50 from sequential requests after it.',
    '',
    ...scenarioRows(report),
    '',
    ...memoryLines(report),
    ...(report.growth ? ['Growth (BOMs and orders = materials/10, work orders = materials/40):', '', ...growthRows(report), ''] : []),
    ...(report.targets.length === 0 ? [] : [
      `Targets (issues 21 and 32; p50 ratios to \`${REFERENCE}\` of this run): ${met} of ${report.targets.filter((t) => t.met !== null).length} met.`,
      '',
      ...targetRows(report),
      '',
    ]),
  ].join('\n');
}

export function writeReport(report: RunReport, outDir: string): string {
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `${report.date.slice(0, 10)}-${report.label}`);
  writeFileSync(`${base}.md`, `# bomcore benchmark\n\n${renderMarkdown(report)}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  return base;
}

export const BEGIN = '<!-- bench:results:begin (written by npm run bench) -->';
export const END = '<!-- bench:results:end -->';

/** Replaces what is between the markers in docs/performance.md. */
export function updateDocs(report: RunReport, file: string): void {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} lacks the markers ${BEGIN} … ${END}`);
  writeFileSync(file, `${text.slice(0, start + BEGIN.length)}\n${renderMarkdown(report)}${text.slice(end)}`);
}
