import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyBaseLogger } from 'fastify';

// Gives memory back to the system once `serve` goes idle after a burst of requests.
//
// Measured on the bench's 20k shop (PostgreSQL, one worker): under load V8's old generation grows to
// ~160 MB committed around ~75 MB live, and every full collection puts the pages it frees into a pool
// of its own (`pooled: 145 MB` in `--trace-gc`) instead of returning them. Only a memory-reducing
// collection empties that pool, and V8's own memory reducer starts one only when it judges the
// process idle by its allocation rate: the background passes (outbox, webhooks, bill versions) query
// the database every second, which it counts as "high alloc", so it waited for its watchdog, 100 s
// after the last full collection: a worker sat at ~430 MiB for minutes after the load ended, then
// dropped to ~200 MiB.
//
// This asks for that collection itself: when no request has been in flight for `idleMs` after at
// least one request, and the process grew by `growthBytes` since it last gave memory back (or since
// it started listening), it runs one memory-reducing collection — a pause of about 0.1–0.3 s, only
// at a moment no request waits. Requests arriving during it wait for it, as for any collection.

/** V8's `gc` function, with the options of its `--expose-gc` extension. */
type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * V8's memory-reducing collection (`flavor: 'last-resort'`: full collections until nothing more is
 * freed, then the page pool emptied). The `gc` function is taken from a fresh context, so the
 * application's own global object never gets one (as Jest does for its heap figures).
 */
function memoryReducingCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as ExposedGc;
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

export interface IdleMemoryOptions {
  server: Server;
  /** Quiet time after the last request before memory is given back; 0 turns it off (BOMCORE_IDLE_GC_MS). */
  idleMs: number;
  /** Growth of the resident set since the last release below which nothing is done. */
  growthBytes?: number;
  log: FastifyBaseLogger;
  /** The collection to run (default: V8's memory-reducing collection). */
  collect?: () => void;
  /** The resident set size now (default: `process.memoryUsage.rss()`). */
  rss?: () => number;
}

export interface IdleMemoryRelease {
  /** Releases that ran, with the resident set before and after each (bytes) and the pause (ms). */
  releases: () => readonly { before: number; after: number; pauseMs: number }[];
  stop: () => void;
}

const DEFAULT_GROWTH_BYTES = 32 * 1024 * 1024;

export function startIdleMemoryRelease(options: IdleMemoryOptions): IdleMemoryRelease | null {
  const { server, idleMs, log } = options;
  if (idleMs <= 0) return null;
  const collect = options.collect ?? memoryReducingCollection();
  const rss = options.rss ?? (() => process.memoryUsage.rss());
  const growthBytes = options.growthBytes ?? DEFAULT_GROWTH_BYTES;
  const done: { before: number; after: number; pauseMs: number }[] = [];
  let inFlight = 0;
  let lastEnded = 0;
  let sinceRelease = false;
  let baseline = rss();
  let timer: NodeJS.Timeout | null = null;

  const check = () => {
    timer = null;
    if (inFlight > 0 || !sinceRelease) return;
    const quietFor = performance.now() - lastEnded;
    if (quietFor < idleMs) return schedule(idleMs - quietFor);
    sinceRelease = false;
    const before = rss();
    if (before - baseline < growthBytes) return;
    const started = performance.now();
    collect();
    const pauseMs = Math.round(performance.now() - started);
    baseline = rss();
    done.push({ before, after: baseline, pauseMs });
    log.debug({ rssBeforeMb: Math.round(before / 1e6), rssAfterMb: Math.round(baseline / 1e6), pauseMs }, 'idle: memory given back');
  };
  const schedule = (delayMs: number) => {
    if (timer) return;
    timer = setTimeout(check, delayMs);
    timer.unref();
  };
  const onRequest = (_request: unknown, response: { once: (event: string, listener: () => void) => void }) => {
    inFlight += 1;
    sinceRelease = true;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      inFlight -= 1;
      lastEnded = performance.now();
      if (inFlight === 0) schedule(idleMs);
    };
    response.once('finish', end);
    response.once('close', end);
  };
  server.on('request', onRequest);
  return {
    releases: () => done,
    stop: () => {
      server.off('request', onRequest);
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
