import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../errors/problem.ts';

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 50;
/** Samples in a row that must lag for the lag to count as sustained (one long pause is not overload). */
const SUSTAINED_SAMPLES = 3;
/** Seconds a shed client is told to wait. */
const SHED_RETRY_AFTER_SECONDS = '1';

/**
 * Measures the event loop's lag: a timer due every `SAMPLE_MS` records how late it ran.
 * `sustainedLagMs()` is the smallest of the last `SUSTAINED_SAMPLES` samples: high only while the
 * loop keeps falling behind, not after one long pause (a start-up, a large embedded-database write).
 */
export class LoopLagMonitor {
  #lastTick = performance.now();
  readonly #samples: number[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#samples.push(Math.max(0, now - this.#lastTick - SAMPLE_MS));
      if (this.#samples.length > SUSTAINED_SAMPLES) this.#samples.shift();
      this.#lastTick = now;
    }, SAMPLE_MS);
    this.#timer.unref();
  }

  /** The lag every one of the last samples reached (0 until there are enough samples). */
  sustainedLagMs(): number {
    return this.#samples.length < SUSTAINED_SAMPLES ? 0 : Math.min(...this.#samples);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * Load shedding: while the event loop keeps lagging more than `thresholdMs` (BOMCORE_LOAD_SHED_LAG_MS;
 * the last 3 samples all above it), a new request is answered 503 UNAVAILABLE + `Retry-After: 1` at once instead of queueing behind
 * the work that holds the loop; health checks (/healthz, /readyz) are always answered. It stops as
 * soon as a sample finds the loop on time again. `thresholdMs` 0 turns it off.
 */
export function registerLoadShedding(app: FastifyInstance, thresholdMs: number): void {
  if (thresholdMs <= 0) return;
  const monitor = new LoopLagMonitor();
  app.addHook('onClose', async () => monitor.stop());
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/healthz') || request.url.startsWith('/readyz')) return undefined;
    const lag = monitor.sustainedLagMs();
    if (lag <= thresholdMs) return undefined;
    request.log.warn({ lagMs: Math.round(lag), thresholdMs }, 'request shed: the event loop lags');
    reply.header('Retry-After', SHED_RETRY_AFTER_SECONDS);
    return sendProblem(request, reply, {
      code: 'UNAVAILABLE',
      detail: `the server is overloaded (event loop ${Math.round(lag)} ms behind, limit ${thresholdMs} ms); retry after the Retry-After seconds`,
    });
  });
}
