import cluster, { type Worker } from 'node:cluster';
import { pino } from 'pino';
import type { Config } from '../kernel/config.ts';
import { forBatchWork, migrate, openDatabase } from '../app/database.ts';
import { MemoryFailureCounter } from '../http/auth/auth-failure-counter.ts';
import { PrimaryCounters } from '../http/limits/cluster-counters.ts';
import { logOptions } from '../http/errors/log-limits.ts';
import { TokenBucketLimiter } from '../http/limits/rate-limiter.ts';
import { CommandError } from './args.ts';

// The primary of `bomcore serve --workers N`: N worker processes (node:cluster) share the port, so a
// machine's every core answers requests. Each worker is the server of server.ts; this process only
// migrates, forks, answers the workers' rate-limit questions, names the one worker that runs the
// background passes, replaces a worker that dies, and drains them all on SIGTERM / SIGINT.

/** A worker that dies within this long of its start counts towards a crash loop (its replacement waits longer). */
const QUICK_DEATH_MS = 10_000;
const RESTART_MAX_MS = 30_000;
/** Past the workers' own grace, how long the primary waits for them before it kills them and exits 1. */
const GRACE_MARGIN_MS = 5_000;

const addressOf = (a: { address: string; port: number }) => `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;

/** Migrates once, forks `n` workers and keeps them running until SIGTERM / SIGINT. Resolves when they all listen. */
export async function runPrimary(config: Config, n: number): Promise<void> {
  const log = pino({ level: config.logLevel, ...logOptions({ repeatWindowSeconds: config.logRepeatWindowSeconds }) }).child({ component: 'cluster' });
  // Once, before any worker: the workers skip it (src/cli/server.ts).
  const migrator = await openDatabase(forBatchWork(config));
  try {
    await migrate(migrator);
  } finally {
    await migrator.close();
  }
  const counters = new PrimaryCounters(new TokenBucketLimiter(config.rateLimitBurst, config.rateLimitRefillPerSecond), new MemoryFailureCounter(config.authFailuresPerMinute));
  const started = new Map<Worker, number>();
  const listening = new Set<Worker>();
  let backgroundOwner: Worker | null = null;
  let quickDeaths = 0;
  let shuttingDown = false;
  let welcomed = false;
  let exitCode = 0;

  const fork = () => {
    const worker = cluster.fork();
    started.set(worker, Date.now());
    counters.serve(worker);
  };
  // The background passes run in one worker: the first that listens, and after its death another.
  const designate = () => {
    if (shuttingDown || (backgroundOwner && listening.has(backgroundOwner))) return;
    backgroundOwner = [...listening][0] ?? null;
    backgroundOwner?.send({ bomcore: 'background' });
  };

  let startupDone!: (error?: Error) => void;
  const startup = new Promise<void>((resolve, reject) => (startupDone = (error) => (error ? reject(error) : resolve())));

  cluster.on('listening', (worker, address) => {
    listening.add(worker);
    designate();
    if (!welcomed && listening.size === n) {
      welcomed = true;
      console.log(`\nbomcore listening on ${addressOf(address)} (PostgreSQL, ${n} workers, primary pid ${process.pid})`);
      console.log('Create an API key with: ./bomcore key create --shop <shop id> --scopes read,write');
      startupDone();
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker) ?? 0);
    const served = listening.delete(worker);
    started.delete(worker);
    if (worker === backgroundOwner) backgroundOwner = null;
    if (shuttingDown) {
      // A worker that listened drains and exits 0; one past its grace exits 1, and so does the primary.
      if (served && code !== 0) exitCode = 1;
      return void (started.size === 0 && finish(0));
    }
    if (!welcomed) {
      // A worker that cannot start (its error is on stderr) says the same for all: stop, as one process would.
      shuttingDown = true;
      for (const other of started.keys()) other.kill('SIGKILL');
      return startupDone(new CommandError(`a worker (pid ${worker.process.pid}) exited with ${signal ?? `code ${code}`} before listening`));
    }
    quickDeaths = lived < QUICK_DEATH_MS ? quickDeaths + 1 : 0;
    const delayMs = quickDeaths === 0 ? 0 : Math.min(RESTART_MAX_MS, 500 * 2 ** (quickDeaths - 1));
    log.error({ worker: worker.process.pid, code, signal, livedMs: lived, restartInMs: delayMs }, 'worker exited unexpectedly; starting a replacement');
    designate();
    setTimeout(() => shuttingDown || fork(), delayMs).unref();
  });

  const finish = (code: number) => {
    log.info({ exitCode: Math.max(code, exitCode) }, 'every worker has exited');
    process.exit(Math.max(code, exitCode));
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      log.warn({ signal }, 'second signal: exiting without waiting (the workers exit with the primary)');
      return process.exit(1);
    }
    shuttingDown = true;
    log.info({ signal, workers: started.size }, 'shutting down: every worker drains its in-flight requests');
    for (const worker of started.keys()) {
      // One still starting has nothing in flight; a listening one drains (server.ts).
      if (listening.has(worker) && worker.isConnected()) worker.send({ bomcore: 'drain' });
      else worker.kill('SIGTERM');
    }
    if (started.size === 0) finish(0);
    setTimeout(() => {
      log.error({ graceMs: config.shutdownGraceMs, left: started.size }, 'workers still running past the shutdown grace; killing them');
      for (const worker of started.keys()) worker.process.kill('SIGKILL');
      finish(1);
    }, config.shutdownGraceMs + GRACE_MARGIN_MS).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  for (let i = 0; i < n; i++) fork();
  await startup;
}
