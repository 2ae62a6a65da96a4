// `npm run bench`: the benchmark harness (docs/performance.md). Generates a shop, loads it into a
// fresh PostgreSQL database, starts bomcore (NODE_ENV=production), the floor and PostGraphile as
// their own processes, drives them with autocannon from runner processes, and writes the results.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { benchShop, type ScenarioResult } from './bench-shop.ts';
import { EXPECTED_MAX_QUERY_COUNTS } from './expected-query-counts.ts';
import { HELP, parseOptions, type Options } from './options.ts';
import { progress, ROOT } from './processes.ts';
import { renderMarkdown, updateDocs, writeReport, type Machine, type RunReport } from './report.ts';
import { adminQuery, dropShop, loadIntoPglite, prepareShop, scaledSize, sizeLabel, type Shop } from './shop.ts';
import { evaluateMemoryTargets, evaluateTargets, targetColumns, type Growth, type TargetContext } from './targets.ts';
import { measureCommands, measureDemoStart, workerFigures, type MemoryFigures } from './memory.ts';

async function machine(options: Options): Promise<Machine> {
  const [row] = await adminQuery<{ v: string }>(options.adminUrl, `select split_part(version(), ' on ', 1) as v`);
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: cpus().length, ramGiB: Math.round(totalmem() / 1024 ** 3), node: process.versions.node,
    postgres: row?.v ?? 'unknown', os: `${platform()} ${release()}`, loadBefore: loadavg()[0]!, loadAfter: 0,
  };
}

/** The code measured: `git describe --always --dirty`, or BENCH_SOURCE outside a git checkout. */
function source(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return process.env.BENCH_SOURCE ?? 'unknown (not a git checkout)';
  }
}

/** Smoke: every request answered, every scenario's statement count within its maximum. */
function smokeProblems(results: ScenarioResult[]): string[] {
  const problems: string[] = [];
  for (const r of results) {
    problems.push(...r.failures.map((f) => `${r.id}: ${f}`));
    const max = EXPECTED_MAX_QUERY_COUNTS[r.id];
    if (max === undefined) problems.push(`${r.id}: no maximum in bench/expected-query-counts.ts (it sent ${r.sql} statements)`);
    // A 304 runs no operation, so it has no X-Query-Count: a maximum of 0 means exactly that.
    else if (r.sql === null && max !== 0) problems.push(`${r.id}: the answer had no X-Query-Count header`);
    else if (r.sql !== null && r.sql > max) problems.push(`${r.id}: ${r.sql} SQL statements per request, more than the maximum ${max}`);
    else progress(`smoke: ${r.id}: ${r.sql ?? 0} SQL statements (max ${max}), ${r.failures.length === 0 ? 'no failed request' : 'FAILED'}`);
  }
  return problems;
}

async function main(argv: string[]): Promise<number> {
  let options: Options | null;
  try {
    options = parseOptions(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (!options) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const started = Date.now();
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const workDir = mkdtempSync(join(tmpdir(), 'bomcore-bench-'));
  progress(`work directory (datasets, server logs): ${workDir}`);
  const info = await machine(options);
  const shops: Shop[] = [];
  let ok = false;
  try {
    const main = await prepareShop(options.size, { adminUrl: options.adminUrl, workDir, stamp });
    shops.push(main);
    const results = await benchShop(main, options, workDir, 'full');
    const pglite = options.pglite ? await loadIntoPglite(main, workDir) : null;
    const memory: MemoryFigures = {
      commands: options.memory ? await measureCommands(workDir, 3) : {},
      demoStart: options.memory ? await measureDemoStart(workDir) : null,
      ...workerFigures(results),
    };
    if (!options.keep) await dropShop(main, options.adminUrl);
    let growth: Growth | null = null;
    const growthLabels: string[] = [];
    if (options.growthSizes.length > 0) {
      growth = {};
      const record = (label: string, rows: ScenarioResult[]) => {
        growthLabels.push(label);
        for (const r of rows) (growth![r.id] ??= {})[label] = r.runs.rest?.unloaded.p50 ?? null;
      };
      for (const materials of options.growthSizes) {
        if (materials === options.size.materials) {
          record(main.label, results.filter((r) => r.kind === 'read'));
          continue;
        }
        const shop = await prepareShop(scaledSize(materials, options.size), { adminUrl: options.adminUrl, workDir, stamp });
        shops.push(shop);
        record(shop.label, await benchShop(shop, options, workDir, 'growth'));
        if (!options.keep) await dropShop(shop, options.adminUrl);
      }
    }
    info.loadAfter = loadavg()[0]!;
    const context: TargetContext = { mainLabel: main.label, connections: options.connections, workers: options.workers, pgliteLoadMB: pglite?.peakRssMB ?? null };
    const report: RunReport = {
      date: new Date().toISOString(), source: source(), label: sizeLabel(options.size), command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
      size: { ...options.size }, settings: { warmupSeconds: options.warmupSeconds, durationSeconds: options.durationSeconds, connections: options.connections, logLevel: options.logLevel, workers: options.workers },
      loads: { postgres: main.load, pglite: pglite && { seconds: pglite.seconds, peakRssMB: pglite.peakRssMB } }, memory,
      machine: info, results, growth, growthLabels,
      targets: options.smoke ? [] : [...evaluateTargets(results, growth, context), ...evaluateMemoryTargets(memory)], targetColumns: targetColumns(context),
      minutes: (Date.now() - started) / 60_000,
    };
    process.stdout.write(`${renderMarkdown(report)}\n`);
    if (options.smoke) {
      const problems = smokeProblems(results);
      for (const problem of problems) process.stderr.write(`bench smoke: ${problem}\n`);
      ok = problems.length === 0;
      process.stderr.write(ok ? `bench smoke: ${results.length} scenarios within their SQL maxima, no failed request\n` : `bench smoke: ${problems.length} problem(s)\n`);
      return ok ? 0 : 1;
    }
    const base = writeReport(report, resolve(ROOT, options.outDir));
    progress(`wrote ${base}.md and ${base}.json`);
    if (options.docs && options.defaultSize) {
      updateDocs(report, join(ROOT, 'docs', 'performance.md'));
      progress('updated docs/performance.md');
    }
    ok = true;
    return 0;
  } finally {
    if (!options.keep) {
      for (const shop of shops) await dropShop(shop, options.adminUrl).catch(() => undefined);
      if (ok && !options.cpuProf) rmSync(workDir, { recursive: true, force: true });
      else progress(`kept ${workDir} ${ok ? '(CPU profiles of bomcore in profiles/)' : 'for its logs'}`);
    }
  }
}

process.exitCode = await main(process.argv.slice(2));
