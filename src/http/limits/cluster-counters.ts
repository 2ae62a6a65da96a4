import type { Worker } from 'node:cluster';
import { WINDOW_MS, type CountedAttempt, type FailureCounter, type MemoryFailureCounter } from '../auth/auth-failure-counter.ts';
import type { RateDecision, RateLimiter, TokenBucketLimiter } from './rate-limiter.ts';

/**
 * `bomcore serve --workers N` without Redis: the rate-limit buckets and the failed-authentication
 * counts live in the cluster primary, and each worker asks it over the cluster's IPC channel. The
 * primary decides synchronously (`takeNow`, `beginNow`) in the order the questions arrive, so N
 * workers give a key exactly one budget and an address one count of failures, as one process
 * would. A question costs one round trip to a process that does nothing else (tens of µs).
 * With REDIS_URL the workers use Redis directly instead (shared by every instance too).
 */

type Question =
  | { bomcore: 'take'; id: number; key: string; cost: number }
  | { bomcore: 'begin'; id: number; address: string }
  | { bomcore: 'undo'; undoId: number };
type Answer = { bomcore: 'answer'; id: number; value: unknown };

const isQuestion = (m: unknown): m is Question => typeof m === 'object' && m !== null && ['take', 'begin', 'undo'].includes((m as { bomcore?: string }).bomcore ?? '');

/** The primary's side: answers one worker's questions from the one limiter and counter of the cluster. */
export class PrimaryCounters {
  readonly #limiter: TokenBucketLimiter;
  readonly #counter: MemoryFailureCounter;
  /** Counted attempts a worker may still take back, by id; past the window an undo has no effect, so they are swept. */
  readonly #undos = new Map<number, { undo: () => Promise<void>; at: number }>();
  #nextUndo = 1;

  constructor(limiter: TokenBucketLimiter, counter: MemoryFailureCounter) {
    this.#limiter = limiter;
    this.#counter = counter;
  }

  /** Answers every question `worker` sends from now on. */
  serve(worker: Worker): void {
    worker.on('message', (message: unknown) => {
      if (!isQuestion(message)) return;
      if (message.bomcore === 'undo') {
        const pending = this.#undos.get(message.undoId);
        this.#undos.delete(message.undoId);
        void pending?.undo();
        return;
      }
      const value = message.bomcore === 'take' ? this.#limiter.takeNow(message.key, message.cost) : this.#begin(message.address);
      // The worker may have died meanwhile: its question needs no answer then.
      if (worker.isConnected()) worker.send({ bomcore: 'answer', id: message.id, value } satisfies Answer);
    });
  }

  #begin(address: string): { retryAfterSeconds: number; undoId: number } {
    const counted = this.#counter.beginNow(address);
    if (counted.retryAfterSeconds > 0) return { retryAfterSeconds: counted.retryAfterSeconds, undoId: 0 };
    const now = Date.now();
    if (this.#undos.size >= 10_000) for (const [id, u] of this.#undos) if (now - u.at >= WINDOW_MS) this.#undos.delete(id);
    const undoId = this.#nextUndo++;
    this.#undos.set(undoId, { undo: counted.undo, at: now });
    return { retryAfterSeconds: 0, undoId };
  }
}

/** The worker's side of the channel: one question, one answer, matched by id. */
class PrimaryChannel {
  readonly #pending = new Map<number, (value: unknown) => void>();
  #nextId = 1;

  constructor() {
    process.on('message', (message: unknown) => {
      const answer = message as Partial<Answer> | null;
      if (answer?.bomcore !== 'answer' || typeof answer.id !== 'number') return;
      const resolve = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      resolve?.(answer.value);
    });
    // The primary is gone (the worker exits at once then): whoever waits gets `null` and fails open.
    process.once('disconnect', () => {
      for (const resolve of this.#pending.values()) resolve(null);
      this.#pending.clear();
    });
  }

  ask(question: Record<string, unknown>): Promise<unknown> {
    if (!process.send || !process.connected) return Promise.resolve(null);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      process.send!({ ...question, id }, undefined, {}, (error) => {
        if (error && this.#pending.delete(id)) resolve(null);
      });
    });
  }

  tell(message: Record<string, unknown>): void {
    if (process.send && process.connected) process.send(message);
  }
}

/** The rate limiter of a worker: the primary's buckets. */
class PrimaryRateLimiter implements RateLimiter {
  readonly #channel: PrimaryChannel;
  readonly burst: number;

  constructor(channel: PrimaryChannel, burst: number) {
    this.#channel = channel;
    this.burst = burst;
  }

  async take(key: string, cost = 1): Promise<RateDecision> {
    const decision = (await this.#channel.ask({ bomcore: 'take', key, cost })) as RateDecision | null;
    return decision ?? { allowed: true, limit: this.burst, remaining: this.burst, resetSeconds: 0, retryAfterSeconds: 0 };
  }
}

/** The failed-authentication counter of a worker: the primary's counts. */
class PrimaryFailureCounter implements FailureCounter {
  readonly #channel: PrimaryChannel;

  constructor(channel: PrimaryChannel) {
    this.#channel = channel;
  }

  async begin(address: string): Promise<CountedAttempt> {
    const answer = (await this.#channel.ask({ bomcore: 'begin', address })) as { retryAfterSeconds: number; undoId: number } | null;
    if (!answer) return { retryAfterSeconds: 0, undo: async () => {} };
    return { retryAfterSeconds: answer.retryAfterSeconds, undo: async () => (answer.undoId ? this.#channel.tell({ bomcore: 'undo', undoId: answer.undoId }) : undefined) };
  }
}

/** The counters a cluster worker shares through its primary. */
export function primaryCounters(burst: number): { limiter: RateLimiter; failureCounter: FailureCounter } {
  const channel = new PrimaryChannel();
  return { limiter: new PrimaryRateLimiter(channel, burst), failureCounter: new PrimaryFailureCounter(channel) };
}
