import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { sendProblem } from '../errors/problem.ts';
import { resolvedFieldWork } from './request-price.ts';
import { markRequestCostly } from './request-turns.ts';

/** Seconds a client refused for a full queue is told to wait. */
const RETRY_AFTER_SECONDS = '1';

export interface WorkGateOptions {
  /** Costly requests running at once (BOMCORE_HEAVY_CONCURRENCY). */
  concurrency: number;
  /** Costly requests one shop may have waiting; more is 503 at once (other shops keep theirs). */
  maxQueuedPerShop: number;
  /** Slots one shop may hold at once: one less than all when there are several, so another shop always finds one. */
  perShop?: number;
}

/**
 * Costly requests take turns, fairly by shop. A request whose work (src/http/admission/request-price.ts)
 * exceeds the threshold waits for one of `concurrency` slots; waiting shops are served round-robin
 * (a served shop moves to the end), so ten costly requests of one shop queue behind each other, not
 * in front of another shop's. One shop holds at most `perShop` slots, so with several slots another
 * shop always finds one, and one shop's work never holds every database connection. Node runs
 * JavaScript on one thread: ten costly requests at once would not finish sooner, they would
 * interleave their CPU work and hold every other request behind all of it.
 */
export class FairWorkGate {
  #running = 0;
  readonly #runningByShop = new Map<string, number>();
  /** Waiting requests by shop; the map's order is the rotation. */
  readonly #queues = new Map<string, (() => void)[]>();
  readonly concurrency: number;
  readonly maxQueuedPerShop: number;
  readonly perShop: number;

  constructor(options: WorkGateOptions) {
    this.concurrency = options.concurrency;
    this.maxQueuedPerShop = options.maxQueuedPerShop;
    this.perShop = options.perShop ?? Math.max(1, options.concurrency - 1);
  }

  /**
   * Resolves true once the caller holds a slot (it must `release(shop)` it); false at once when the
   * shop already has `maxQueuedPerShop` waiting (`force`: queue anyway, for a request taking its turn back).
   */
  acquire(shop: string, force = false): Promise<boolean> {
    if (this.#canRun(shop)) {
      this.#start(shop);
      return Promise.resolve(true);
    }
    const queue = this.#queues.get(shop) ?? [];
    if (!force && queue.length >= this.maxQueuedPerShop) return Promise.resolve(false);
    return new Promise((resolve) => {
      queue.push(() => resolve(true));
      this.#queues.set(shop, queue);
    });
  }

  release(shop: string): void {
    this.#running -= 1;
    const held = (this.#runningByShop.get(shop) ?? 1) - 1;
    if (held > 0) this.#runningByShop.set(shop, held);
    else this.#runningByShop.delete(shop);
    this.#dispatch();
  }

  /** True when a shop other than `shop` has a request waiting. */
  othersWaiting(shop: string): boolean {
    for (const waiting of this.#queues.keys()) if (waiting !== shop) return true;
    return false;
  }

  #canRun(shop: string): boolean {
    return this.#running < this.concurrency && (this.#runningByShop.get(shop) ?? 0) < this.perShop;
  }

  #start(shop: string): void {
    this.#running += 1;
    this.#runningByShop.set(shop, (this.#runningByShop.get(shop) ?? 0) + 1);
  }

  /** Hands free slots to the first waiting shops in the rotation that are under their share. */
  #dispatch(): void {
    for (const [shop, queue] of this.#queues) {
      if (this.#running >= this.concurrency) return;
      if (!this.#canRun(shop)) continue;
      const start = queue.shift()!;
      this.#queues.delete(shop);
      if (queue.length > 0) this.#queues.set(shop, queue);
      this.#start(shop);
      start();
    }
  }
}

/** A request's place at the gate. */
interface Admission { shop: string; holding: boolean; done: boolean }

/** The request is over (answered, timed out or gone): its remaining costly fields are not run. */
export class RequestEndedError extends Error {
  constructor() {
    super('the request has ended; its remaining costly work is not run');
    this.name = 'RequestEndedError';
  }
}

/**
 * The costly root fields of one request, one at a time. GraphQL runs a query's root fields at
 * once: 30 aliased batches would be 30 computations interleaving on the one thread and 30 callers
 * of the connection pool. Here they run in turn, and between two of them the request passes its
 * slot to another shop's waiting request and queues for it again.
 */
export class WorkLane {
  readonly #heavyWork: number;
  readonly #passTurn: () => Promise<void>;
  readonly #ended: () => boolean;
  #tail: Promise<unknown> = Promise.resolve();
  #started = 0;

  constructor(heavyWork: number, passTurn: () => Promise<void>, ended: () => boolean) {
    this.#heavyWork = heavyWork;
    this.#passTurn = passTurn;
    this.#ended = ended;
  }

  /** Settles once every costly field the lane has taken has ended (run, failed or refused). */
  settled(): Promise<unknown> {
    return this.#tail;
  }

  /** Runs `resolve` now when `work` is cheap; else after the lane's earlier costly fields. */
  run<T>(work: number, resolve: () => T): T | Promise<T> {
    if (work <= this.#heavyWork) return resolve();
    const turn = this.#tail.then(async () => {
      if (this.#ended()) throw new RequestEndedError();
      if (this.#started++ > 0) await this.#passTurn();
      if (this.#ended()) throw new RequestEndedError();
    });
    const result = turn.then(resolve);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

const ADMISSION = Symbol('bomcore.workGate.admission');
const LANE = Symbol('bomcore.workGate.lane');
const LANES_INSTALLED = Symbol('bomcore.workGate.lanesInstalled');
type Admitted = FastifyRequest & { [ADMISSION]?: Admission };

/** Puts the request's work lane on a GraphQL context (REST's and /graphql's alike). */
export function withWorkLane<T extends object>(ctx: T, lane: WorkLane | undefined): T {
  return lane ? Object.assign(ctx, { [LANE]: lane }) : ctx;
}

/**
 * Wraps the root query fields' resolvers (once per schema): a field resolved with a context that
 * carries a work lane runs in it, priced by `resolvedFieldWork`. Without a lane nothing changes.
 */
export function installWorkLanes(schema: GraphQLSchema): void {
  const marked = schema as GraphQLSchema & { [LANES_INSTALLED]?: boolean };
  const query = schema.getQueryType();
  if (marked[LANES_INSTALLED] || !query) return;
  marked[LANES_INSTALLED] = true;
  for (const field of Object.values(query.getFields())) {
    const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, ctx, info) => {
      const lane = (ctx as { [LANE]?: WorkLane } | null)?.[LANE];
      if (!lane) return resolve(source, args, ctx, info);
      return lane.run(resolvedFieldWork(info), () => resolve(source, args, ctx, info));
    };
  }
}

export interface WorkGate {
  /** Admits a request of `work` (costly: waits its turn); replies 503 itself and returns false when its shop's queue is full. */
  admit(request: FastifyRequest, reply: FastifyReply, work: number): Promise<boolean>;
  /** The work lane of an admitted costly request (undefined for a cheap one or with the gate off). */
  laneOf(request: FastifyRequest): WorkLane | undefined;
}

/**
 * Registers the gate's release (when the response is sent or the client goes away) and returns the
 * admission the REST facade and /graphql call with a request's work once it is known. Work above
 * `heavyWork` is costly. `concurrency` 0 turns the gate off.
 */
export function registerWorkGate(app: FastifyInstance, options: { concurrency: number; heavyWork: number; maxQueuedPerShop?: number }): WorkGate {
  const gate = new FairWorkGate({ concurrency: options.concurrency, maxQueuedPerShop: options.maxQueuedPerShop ?? 20 });
  const lanes = new WeakMap<Admission, WorkLane>();
  const finish = async (request: FastifyRequest) => {
    const admission = (request as Admitted)[ADMISSION];
    if (!admission) return;
    admission.done = true;
    releaseWhenIdle(admission);
  };
  /**
   * Gives the slot back once the costly fields the request took have ended. A request can be over
   * (answered 503 at its deadline, its client gone) while one still computes — the JavaScript of a plan
   * does not stop half-way — and the next costly request must not start beside it.
   */
  const releaseWhenIdle = (admission: Admission) => {
    const release = () => {
      if (!admission.holding) return;
      admission.holding = false;
      gate.release(admission.shop);
    };
    const lane = lanes.get(admission);
    if (lane && admission.holding) void lane.settled().then(release);
    else release();
  };
  app.addHook('onResponse', finish);
  /** Takes the slot back after waiting; a request that ended meanwhile gives it back at once. */
  const hold = (request: FastifyRequest, admission: Admission) => {
    admission.holding = true;
    if (admission.done) void finish(request);
  };
  const passTurn = async (request: FastifyRequest, admission: Admission) => {
    if (!admission.holding || !gate.othersWaiting(admission.shop)) return;
    admission.holding = false;
    gate.release(admission.shop);
    await gate.acquire(admission.shop, true);
    hold(request, admission);
  };

  return {
    async admit(request, reply, work) {
      if (work <= options.heavyWork) return true;
      // Costly from here on, gate or no gate: its yields give way to cheap requests (src/kernel/cooperative.ts).
      markRequestCostly(request);
      if (options.concurrency <= 0) return true;
      const admission: Admission = { shop: request.auth?.shopId ?? '', holding: false, done: false };
      (request as Admitted)[ADMISSION] = admission;
      // Answered, or the client went away: the slot is given back, the lane runs no further costly field. (Not
      // `request.raw.destroyed`: Node destroys a request's stream once its body is read, long before the answer;
      // nor onRequestAbort: it fires only while the body is still being read.)
      reply.raw.once('close', () => void finish(request));
      if (reply.raw.destroyed) return false;
      if (!(await gate.acquire(admission.shop))) {
        reply.header('Retry-After', RETRY_AFTER_SECONDS);
        sendProblem(request, reply, {
          code: 'UNAVAILABLE', detail: `too many costly requests of this shop are waiting (${gate.maxQueuedPerShop}); retry after the Retry-After seconds`,
        });
        return false;
      }
      hold(request, admission);
      // The client went away (or the deadline answered) while it waited: nothing to run.
      if (!admission.holding) return false;
      lanes.set(admission, new WorkLane(options.heavyWork, () => passTurn(request, admission), () => admission.done));
      return true;
    },
    laneOf(request) {
      const admission = (request as Admitted)[ADMISSION];
      return admission ? lanes.get(admission) : undefined;
    },
  };
}
