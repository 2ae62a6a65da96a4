/**
 * Token bucket per API key: `burst` tokens, refilled at `refillPerSecond`. Kept in process memory
 * (one bomcore process per database is the supported deployment). @fastify/rate-limit counts fixed
 * windows and cannot express a refilling bucket, hence this small class.
 */
export interface RateDecision { allowed: boolean; limit: number; remaining: number; resetSeconds: number; retryAfterSeconds: number }

export class TokenBucketLimiter {
  readonly #burst: number;
  readonly #refillPerMs: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(burst: number, refillPerSecond: number) {
    this.#burst = burst;
    this.#refillPerMs = refillPerSecond / 1000;
  }

  take(key: string, now = Date.now(), cost = 1): RateDecision {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#refillPerMs);
    bucket.at = now;
    const allowed = bucket.tokens >= cost;
    if (allowed) bucket.tokens -= cost;
    this.#buckets.set(key, bucket);
    const missing = this.#burst - bucket.tokens;
    return {
      allowed,
      limit: this.#burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil(missing / this.#refillPerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((cost - bucket.tokens) / this.#refillPerMs / 1000)),
    };
  }
}
