import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem.ts';

const WINDOW_MS = 60_000;
/** Addresses tracked at most; beyond, windows that ended are swept (and, if still full, the oldest dropped). */
const MAX_TRACKED = 50_000;

/**
 * Failed authentications per client address (`request.ip`), in a one-minute window opened by the
 * first failure. Once an address has failed `limit` times in its window, every keyed request from
 * it is 429 RATE_LIMITED with Retry-After (the rest of the window) before its key is even looked
 * up, so guessing keys costs the database nothing and yields no answer. Kept in process memory,
 * per instance.
 */
export class AuthThrottle {
  readonly #limit: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; failures: number }>();

  constructor(limit: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  #window(address: string): { start: number; failures: number } | undefined {
    const window = this.#windows.get(address);
    if (window && this.#now() - window.start >= WINDOW_MS) {
      this.#windows.delete(address);
      return undefined;
    }
    return window;
  }

  /** Seconds until `address` may try again, or 0 when it is not throttled. */
  retryAfterSeconds(address: string): number {
    const window = this.#window(address);
    if (!window || window.failures < this.#limit) return 0;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - this.#now()) / 1000));
  }

  /** Counts one failed authentication of `address`. */
  recordFailure(address: string): void {
    const window = this.#window(address);
    if (window) {
      window.failures++;
      return;
    }
    if (this.#windows.size >= MAX_TRACKED) this.#sweep();
    this.#windows.set(address, { start: this.#now(), failures: 1 });
  }

  #sweep(): void {
    const now = this.#now();
    for (const [address, window] of this.#windows) if (now - window.start >= WINDOW_MS) this.#windows.delete(address);
    // Still full: the oldest windows go (a Map iterates in insertion order).
    for (const address of this.#windows.keys()) {
      if (this.#windows.size < MAX_TRACKED) break;
      this.#windows.delete(address);
    }
  }

  /**
   * Replies 429 (RATE_LIMITED, Retry-After) when the request's address is throttled; returns
   * whether it did. Call before the key lookup.
   */
  refuse(request: FastifyRequest, reply: FastifyReply): boolean {
    const retryAfter = this.retryAfterSeconds(request.ip);
    if (retryAfter === 0) return false;
    reply.header('Retry-After', String(retryAfter));
    sendProblem(request, reply, {
      code: 'RATE_LIMITED',
      detail: `too many failed authentications from this address (more than ${this.#limit} a minute); retry in ${retryAfter} s`,
    });
    return true;
  }
}
