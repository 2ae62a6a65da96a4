import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem.ts';

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

/**
 * Heavy requests take turns. A request whose cost exceeds `heavyCost` (one rate-limit token's worth:
 * a 1000-row page, a breakdown batch) waits for one of `concurrency` slots before it runs; waiting
 * requests are served round-robin by shop, so ten heavy requests of one shop queue behind each
 * other, not in front of another shop's. Cheap requests never wait. Node runs JavaScript on one
 * thread: ten heavy requests at once would not finish sooner, they would interleave their CPU work
 * and hold every other request behind all of it.
 */
export class FairWorkGate {
  #running = 0;
  #queued = 0;
  /** Waiting requests by shop; the map's order is the rotation (a served shop moves to the end). */
  readonly #queues = new Map<string, (() => void)[]>();
  readonly concurrency: number;
  readonly maxQueued: number;

  constructor(concurrency: number, maxQueued: number) {
    this.concurrency = concurrency;
    this.maxQueued = maxQueued;
  }

  /** Resolves true once the caller holds a slot (it must `release()` it); false at once when the queue is full. */
  acquire(shop: string): Promise<boolean> {
    if (this.#running < this.concurrency) {
      this.#running += 1;
      return Promise.resolve(true);
    }
    if (this.#queued >= this.maxQueued) return Promise.resolve(false);
    this.#queued += 1;
    return new Promise((resolve) => {
      const queue = this.#queues.get(shop) ?? [];
      queue.push(() => resolve(true));
      this.#queues.set(shop, queue);
    });
  }

  release(): void {
    const next = this.#queues.entries().next();
    if (next.done) {
      this.#running -= 1;
      return;
    }
    const [shop, queue] = next.value;
    const start = queue.shift()!;
    this.#queues.delete(shop);
    if (queue.length > 0) this.#queues.set(shop, queue);
    this.#queued -= 1;
    // The slot passes straight to the next request.
    start();
  }
}

const SLOT = Symbol('bomcore.workGate.slot');
type Slotted = FastifyRequest & { [SLOT]?: boolean };

/**
 * Registers the gate's release (when the response is sent or the client goes away) and returns the
 * admission check the REST facade and /graphql call with a request's cost once it is known. A
 * request refused because too many heavy requests wait is answered 503 + Retry-After.
 */
export function registerWorkGate(app: FastifyInstance, options: { concurrency: number; heavyCost: number; maxQueued?: number }):
  (request: FastifyRequest, reply: FastifyReply, cost: number) => Promise<boolean> {
  const gate = new FairWorkGate(options.concurrency, options.maxQueued ?? 100);
  const release = async (request: FastifyRequest) => {
    const slotted = request as Slotted;
    if (!slotted[SLOT]) return;
    slotted[SLOT] = false;
    gate.release();
  };
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
  return async (request, reply, cost) => {
    if (options.concurrency <= 0 || cost <= options.heavyCost) return true;
    const admitted = await gate.acquire(request.auth?.shopId ?? '');
    if (!admitted) {
      reply.header('Retry-After', SHED_RETRY_AFTER_SECONDS);
      sendProblem(request, reply, { code: 'UNAVAILABLE', detail: `too many costly requests are waiting (${gate.maxQueued}); retry after the Retry-After seconds` });
      return false;
    }
    (request as Slotted)[SLOT] = true;
    // The client may have gone while it waited: give the slot back at once.
    if (request.raw.destroyed) await release(request);
    return true;
  };
}
