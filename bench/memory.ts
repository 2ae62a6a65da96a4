// The memory figures of a run (issue 32): the commands that need no database, `npm start` on the
// demo shop, and (from the scenario rows) a PostgreSQL worker settled and at its peak.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScenarioResult } from './bench-shop.ts';
import { freePort, NODE, progress, ROOT, runNodeMeasured, treePeak } from './processes.ts';

/** Peak RSS in MB (10^6 bytes) of one process, or null where /proc is not available. */
export interface MemoryFigures {
  /** Median over the runs of each command's peak: its largest process (a relaying first process is the smaller). */
  commands: Record<string, number | null>;
  /** `npm start` on a new embedded data directory (the demo shop's load): its largest process until it answers, and the whole tree. */
  demoStart: { peakMB: number | null; treePeakMB: number | null; seconds: number } | null;
  /** The bomcore server of the scenario rows (PostgreSQL, 1 worker): its resident set after each row's runs, idle, at most (and which row). */
  workerSettled: { mb: number | null; scenario: string | null };
  /** Its peak over every row's runs (and which row), and over every row but planning. */
  workerPeak: { mb: number | null; scenario: string | null; withoutPlanningMB: number | null };
}

/** The commands measured: each needs no database. */
export const NO_DATABASE_COMMANDS = ['--help', 'print-schema', 'print-openapi'] as const;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)]!;
};
export const mibToMB = (mib: number | null) => (mib === null ? null : Math.round((mib * 1024 * 1024) / 1e6));

/** Each no-database command `runs` times as a user runs it (`bin/bomcore.js`, output discarded): the median of its peaks. */
export async function measureCommands(workDir: string, runs: number): Promise<Record<string, number | null>> {
  const env: NodeJS.ProcessEnv = { ...process.env, BOMCORE_DATA_DIR: join(workDir, 'no-such-data-dir') };
  delete env.DATABASE_URL;
  const figures: Record<string, number | null> = {};
  for (const command of NO_DATABASE_COMMANDS) {
    const peaks: number[] = [];
    for (let i = 0; i < runs; i++) {
      const run = await runNodeMeasured(['bin/bomcore.js', command], env, join(workDir, 'commands.log'));
      if (run.largestMB !== null) peaks.push(run.largestMB);
    }
    figures[command] = median(peaks);
    progress(`bomcore ${command}: peak ${figures[command] ?? 'n/a'} MB (median of ${runs})`);
  }
  return figures;
}

/**
 * `npm start` (`node src/cli/main.ts serve`) on a new embedded data directory: it migrates, loads the
 * demo shop, warms up and answers /readyz; its peak until then, then it is stopped.
 */
export async function measureDemoStart(workDir: string): Promise<MemoryFigures['demoStart']> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bomcore-bench-demo-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, BOMCORE_DATA_DIR: join(dataDir, 'data'), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const fd = openSync(join(workDir, 'demo-start.log'), 'a');
  const started = performance.now();
  const child = spawn(NODE, ['src/cli/main.ts', 'serve'], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const peak = treePeak(child.pid!);
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    const deadline = Date.now() + 300_000;
    while (!exited && Date.now() < deadline) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
      if (ready) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - started) / 1000;
    const { largestMB, treeMB } = peak.stop();
    if (exited) throw new Error(`npm start exited before it answered; see ${join(workDir, 'demo-start.log')}`);
    progress(`npm start (demo shop, new embedded data directory): ready in ${seconds.toFixed(1)} s, peak ${largestMB ?? 'n/a'} MB (largest process), ${treeMB ?? 'n/a'} MB (process tree)`);
    return { peakMB: largestMB, treePeakMB: treeMB, seconds };
  } finally {
    if (!exited) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The server's figures from the rows: settled (after each row, idle) at most, and the peak of its runs. */
export function workerFigures(results: ScenarioResult[]): Pick<MemoryFigures, 'workerSettled' | 'workerPeak'> {
  let settled: { mb: number | null; scenario: string | null } = { mb: null, scenario: null };
  let peak: { mb: number | null; scenario: string | null } = { mb: null, scenario: null };
  let withoutPlanning: number | null = null;
  for (const r of results) {
    const s = mibToMB(r.settledRssMiB);
    if (s !== null && (settled.mb === null || s > settled.mb)) settled = { mb: s, scenario: r.id };
    // REST and /graphql run in the same server; the floor and PostGraphile are other processes.
    const rows = [r.runs.rest, r.runs.graphql].flatMap((run) => (run ? [run.unloaded.rssMiB, run.loaded?.rssMiB ?? null] : []));
    for (const mib of rows) {
      const mb = mibToMB(mib);
      if (mb === null) continue;
      if (peak.mb === null || mb > peak.mb) peak = { mb, scenario: r.id };
      if (r.id !== 'planning') withoutPlanning = Math.max(withoutPlanning ?? 0, mb);
    }
  }
  return { workerSettled: settled, workerPeak: { ...peak, withoutPlanningMB: withoutPlanning } };
}
