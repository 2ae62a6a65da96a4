/**
 * Token bucket per API key: `burst` tokens, refilled at `refillPerSecond`. A request spends tokens
 * by what it stands for: one per REST call, one per root field of a /graphql operation (src/http/admission/request-price.ts).
 * `TokenBucketLimiter` keeps the buckets in process memory; `RateLimiter` is the interface a shared
 * implementation (Redis, src/http/limits/redis-rate-limiter.ts) implements too. @fastify/rate-limit counts
 * fixed windows and cannot express a refilling bucket, hence this small class.
 */
export interface RateDecision { allowed: boolean; limit: number; remaining: number; resetSeconds: number; retryAfterSeconds: number }

/**
 * Spends `cost` tokens (default 1) of `key`'s bucket, or refuses (spending nothing) when fewer remain.
 * A cost above the burst is charged as the burst. `limit` is the burst, `remaining` the whole tokens left.
 */
export interface RateLimiter {
  /** Tokens a full bucket holds: the most one request is ever charged. */
  readonly burst: number;
  take(key: string, cost?: number): Promise<RateDecision>;
}

export class TokenBucketLimiter implements RateLimiter {
  readonly #burst: number;
  readonly #refillPerMs: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;

  /** `now` is the clock (tests pass their own). */
  get burst(): number {
    return this.#burst;
  }

  constructor(burst: number, refillPerSecond: number, now: () => number = Date.now) {
    this.#burst = burst;
    this.#refillPerMs = refillPerSecond / 1000;
    this.#now = now;
  }

  take(key: string, cost = 1): Promise<RateDecision> {
    return Promise.resolve(this.takeNow(key, cost));
  }

  /** The synchronous decision `take` resolves to. */
  takeNow(key: string, cost = 1): RateDecision {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#refillPerMs);
    bucket.at = now;
    // A cost above the burst could never be paid: it is charged as the burst (a full bucket).
    const need = Math.min(cost, this.#burst);
    const allowed = bucket.tokens >= need;
    if (allowed) bucket.tokens -= need;
    this.#buckets.set(key, bucket);
    const missing = this.#burst - bucket.tokens;
    return {
      allowed,
      limit: this.#burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil(missing / this.#refillPerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((need - bucket.tokens) / this.#refillPerMs / 1000)),
    };
  }
}
