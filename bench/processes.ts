// Child processes of the benchmark: bomcore CLI commands, the servers under test, the load runner.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Node 24 (the one running this script: `npm run bench` puts the project's node first). */
export const NODE = process.execPath;

const began = Date.now();
/** Progress on stderr, with the elapsed time. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)}s] ${message}\n`);
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function spawnNode(args: string[], env: NodeJS.ProcessEnv, logFile: string): { pid: number; done: Promise<string> } {
  const fd = openSync(logFile, 'a');
  const child = spawn(NODE, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', fd] });
  closeSync(fd);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`node ${args.join(' ')} exited with ${code ?? signal}; last lines of ${logFile}:\n${tail(logFile)}`));
    });
  });
  return { pid: child.pid!, done };
}

/** Runs `node ARGS` from the project root; resolves with its stdout; stderr goes to `logFile`. */
export function runNode(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<string> {
  return spawnNode(args, env, logFile).done;
}

export interface MeasuredRun {
  out: string;
  seconds: number;
  /** The larger of the largest process's peak and the tree's highest total (MB). */
  peakRssMB: number | null;
  /** The largest single process's peak (VmHWM), MB: what `time -v` or a process supervisor reports. */
  largestMB: number | null;
}

const kibToMB = (kib: number | null) => (kib === null ? null : Math.round((kib * 1024) / 1e6));

/**
 * Polls the process tree of `pid` every 50 ms: the highest VmHWM of any one process (a command may
 * run its work in a child process: bin/node-flags.js) and the highest total VmRSS of the tree.
 */
export function treePeak(pid: number): { stop: () => { largestMB: number | null; treeMB: number | null } } {
  let largestKiB: number | null = null;
  let treeKiB: number | null = null;
  const poll = () => {
    let total = 0;
    for (const member of processTree(pid)) {
      const hwm = statusKiB(member, 'VmHWM');
      if (hwm !== null) largestKiB = Math.max(largestKiB ?? 0, hwm);
      total += statusKiB(member, 'VmRSS') ?? 0;
    }
    if (total > 0) treeKiB = Math.max(treeKiB ?? 0, total);
  };
  poll();
  const timer = setInterval(poll, 50);
  return {
    stop: () => {
      poll();
      clearInterval(timer);
      return { largestMB: kibToMB(largestKiB), treeMB: kibToMB(treeKiB) };
    },
  };
}

/**
 * runNode, with the child's wall time and its peak RSS in MB: the larger of the highest VmHWM of
 * any process of its tree and the highest total VmRSS of the tree (treePeak), and the first alone.
 */
export async function runNodeMeasured(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<MeasuredRun> {
  const started = performance.now();
  // Each Node process of the run also writes its own peak (VmHWM) when it exits: a
  // command that ends within the first poll (`--help` from the compile cache: ~60 ms) is never seen
  // by the sampler, which then read the just-forked process (0 MB). Through NODE_OPTIONS, so a
  // relayed child (bin/node-flags.js) reports too.
  const reports = `${logFile}.maxrss-${process.pid}-${++measuredRuns}`;
  const reporting = { ...env, BENCH_MAXRSS_FILE: reports, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${MAXRSS_REPORTER}`.trim() };
  const { pid, done } = spawnNode(args, reporting, logFile);
  const peak = treePeak(pid);
  let figures: { largestMB: number | null; treeMB: number | null } | null = null;
  try {
    const out = await done;
    figures = peak.stop();
    const reported = reportedPeakMB(reports);
    const largestMB = reported === null ? figures.largestMB : Math.max(reported, figures.largestMB ?? 0);
    const treeMB = figures.treeMB;
    return { out, seconds: (performance.now() - started) / 1000, peakRssMB: largestMB === null && treeMB === null ? null : Math.max(largestMB ?? 0, treeMB ?? 0), largestMB };
  } finally {
    if (!figures) peak.stop();
  }
}

let measuredRuns = 0;

/**
 * A module each measured Node process imports first: at exit it appends its VmHWM (KiB, the peak of
 * its own address space) to BENCH_MAXRSS_FILE. Not getrusage's maxRSS: Linux keeps the forking
 * parent's high-water mark across exec, so a command spawned by a 280 MB test worker reported 280 MB. No spaces and no quotes: NODE_OPTIONS splits on the first and strips the second. */
const MAXRSS_REPORTER = 'data:text/javascript,process.on(`exit`,()=>{try{const{appendFileSync,readFileSync}=process.getBuiltinModule(`fs`);appendFileSync(process.env.BENCH_MAXRSS_FILE,/VmHWM:[^0-9]*([0-9]+)/.exec(readFileSync(`/proc/self/status`,`utf8`))[1]+String.fromCharCode(10))}catch{}})';

/** The largest peak the processes of a run reported, in MB; null when none did. */
function reportedPeakMB(file: string): number | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  rmSync(file, { force: true });
  const kib = text.split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
  return kib.length === 0 ? null : kibToMB(Math.max(...kib));
}

/** `pid` and its descendants (Linux /proc/<pid>/task/<tid>/children); just `pid` where that is not readable. */
function processTree(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${found[i]}/task`)) {
        const children = readFileSync(`/proc/${found[i]}/task/${tid}/children`, 'utf8').trim();
        if (children !== '') found.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // gone, or no /proc
    }
  }
  return found;
}

export interface Server {
  name: string;
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  logFile: string;
}

/** Starts a server (stdout and stderr to `logFile`) and waits until `readyPath` answers 200. */
export async function startServer(name: string, args: string[], env: NodeJS.ProcessEnv, port: number, readyPath: string, logFile: string): Promise<Server> {
  const fd = openSync(logFile, 'a');
  const child = spawn(NODE, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited: string | null = null;
  child.on('exit', (code, signal) => (exited = String(code ?? signal)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before it was ready; last lines of ${logFile}:\n${tail(logFile)}`);
    try {
      const response = await fetch(baseUrl + readyPath, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return { name, child, pid: child.pid!, baseUrl, logFile };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} was not ready within 120 s; see ${logFile}`);
}

export async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const hwmKiB = (pid: number) => statusKiB(pid, 'VmHWM');

/** Resident set (VmRSS) of a process now, in MiB, or null where /proc is not available. */
export function rssMiB(pid: number): number | null {
  const kiB = statusKiB(pid, 'VmRSS');
  return kiB === null ? null : Math.round(kiB / 1024);
}

/** Peak resident set (VmHWM) of a process in MiB, or null where /proc is not available. */
export function peakRssMiB(pid: number): number | null {
  const kiB = hwmKiB(pid);
  return kiB === null ? null : Math.round(kiB / 1024);
}

/** Resets VmHWM to the current RSS (Linux clear_refs "5"), so each scenario gets its own peak. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until a server has finished the requests a load run abandoned at the end of its window:
 * its health check answers quickly twice in a row and the database runs no other statement.
 */
export async function waitIdle(server: Server, activeStatements: () => Promise<number>, maxSeconds = 180): Promise<void> {
  const deadline = Date.now() + maxSeconds * 1000;
  let quiet = 0;
  while (Date.now() < deadline && quiet < 2) {
    const started = performance.now();
    const healthy = await fetch(`${server.baseUrl}/healthz`, { signal: AbortSignal.timeout(30_000) }).then((r) => r.ok, () => false);
    const fast = healthy && performance.now() - started < 25;
    quiet = fast && (await activeStatements()) === 0 ? quiet + 1 : 0;
    if (quiet < 2) await new Promise((r) => setTimeout(r, 100));
  }
}
