import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Cooperative multitasking for CPU-heavy work. JavaScript runs on one thread: a request that
 * computes for 200 ms without giving the event loop a turn holds every other request (every other
 * shop) for 200 ms. Long loops and long pipelines yield so others' I/O is served in between.
 *
 * Cheap requests go first. Every request is a `Turn` (src/http/admission/request-turns.ts begins one per
 * HTTP request and runs the request inside it); the work gate marks a request costly once its work
 * is known (src/http/admission/work-gate.ts). When a costly request yields while cheap requests are in flight,
 * it waits until they are answered — at most `CHEAP_PRECEDENCE_MS` per yield, so a steady stream of
 * cheap requests slows costly work but never starves it. Without precedence, a cheap request
 * (another shop's `GET /locations`) waits behind a slice of costly work at each of its own I/O
 * steps (auth, SQL, serialization): three or four slices add up. With it, it waits behind at most
 * the slice that was running when it arrived.
 */

/** One request's place in the scheduling: costly once the work gate says so. */
export interface Turn { costly: boolean; readonly startedAt: number; ended: boolean }

/** Longest one yield of a costly request waits for cheap requests to be answered (ms). */
export const CHEAP_PRECEDENCE_MS = 25;
/** A cheap turn older than this no longer holds costly work back (a request the deadline should have ended long ago). */
const STALE_TURN_MS = 30_000;

const current = new AsyncLocalStorage<Turn>();
const cheapInFlight = new Set<Turn>();
let wakeOnDrain: (() => void)[] = [];

/** A new request's turn: cheap until marked costly. */
export function beginTurn(): Turn {
  const turn: Turn = { costly: false, startedAt: performance.now(), ended: false };
  cheapInFlight.add(turn);
  return turn;
}

/** Runs `work` (and everything it continues into) as `turn`. */
export function runInTurn<T>(turn: Turn, work: () => T): T {
  return current.run(turn, work);
}

/** The request's work is costly: it no longer holds costly work back, and yields to cheap requests. */
export function markCostly(turn: Turn): void {
  turn.costly = true;
  release(turn);
}

/** The request is over (answered or gone); idempotent. */
export function endTurn(turn: Turn): void {
  turn.ended = true;
  release(turn);
}

/** Cheap requests in flight now (stale turns pruned). */
export function cheapRequestsInFlight(): number {
  const now = performance.now();
  for (const turn of cheapInFlight) if (now - turn.startedAt > STALE_TURN_MS) release(turn);
  return cheapInFlight.size;
}

function release(turn: Turn): void {
  if (!cheapInFlight.delete(turn) || cheapInFlight.size > 0) return;
  const waiting = wakeOnDrain;
  wakeOnDrain = [];
  for (const wake of waiting) wake();
}

/**
 * Resolves on a later turn of the event loop, after pending I/O callbacks have run. Called from a
 * costly request, it also lets the cheap requests in flight finish first (at most `CHEAP_PRECEDENCE_MS`).
 */
export async function yieldToLoop(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const turn = current.getStore();
  if (!turn?.costly || turn.ended || cheapRequestsInFlight() === 0) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(wake, CHEAP_PRECEDENCE_MS);
    function wake() {
      clearTimeout(timer);
      resolve();
    }
    wakeOnDrain.push(wake);
  });
}

/**
 * A time slice for a long loop: `await slice.pause()` in each iteration yields once `sliceMs` of
 * synchronous work has run since the last yield, and costs nothing otherwise.
 */
export class TimeSlice {
  #since = performance.now();
  readonly sliceMs: number;

  constructor(sliceMs = 10) {
    this.sliceMs = sliceMs;
  }

  /** True when the slice is spent (the caller should `await yieldToLoop()` or `pause()`). */
  spent(): boolean {
    return performance.now() - this.#since >= this.sliceMs;
  }

  async pause(): Promise<void> {
    if (!this.spent()) return;
    await yieldToLoop();
    this.#since = performance.now();
  }
}
