/**
 * Cooperative multitasking for CPU-heavy work. JavaScript runs on one thread: a request that
 * computes for 200 ms without giving the event loop a turn holds every other request (every other
 * shop) for 200 ms. Long loops and long pipelines yield so others' I/O is served in between.
 */

/** Resolves on a later turn of the event loop, after pending I/O callbacks have run. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
