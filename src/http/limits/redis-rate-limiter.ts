import type { Redis } from 'ioredis';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';
import { FailOpenRedis, type WarnLogger } from './redis-connection.ts';

/**
 * The token bucket of one key, taken atomically in Redis: refill by elapsed time, spend `cost` if
 * that many tokens are there, store, expire once a full bucket would be back. The clock is Redis's
 * own (TIME), so instances with skewed clocks still share one budget.
 * KEYS[1]: bucket; ARGV: burst, refill per ms, cost, ttl (ms). Returns { allowed (0|1), tokens }.
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate)
  at = now
end
-- A cost above the burst is charged as the burst (as TokenBucketLimiter does): it can pass once full.
local need = math.min(cost, burst)
local allowed = 0
if tokens >= need then
  tokens = tokens - need
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return { allowed, tostring(tokens) }
`;

const TIMED_OUT = Symbol('timed out');

/**
 * `answer`, or TIMED_OUT when it has not come `ms` after the call. The timer is judged only after
 * the I/O that arrived meanwhile has been read: when a CPU-heavy request held the event loop past
 * `ms`, the timer fires late, yet Redis answered long ago and its answer waits in the socket; taking
 * that for an outage would admit the request unmetered (a burst of 25 letting 28 through).
 */
function answerWithin<T>(answer: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => setImmediate(() => {
      if (settled) return;
      settled = true;
      resolve(TIMED_OUT);
    }), ms);
    answer.then((value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    }, (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
}

type TakeClient = Redis & { bomcoreTake(key: string, burst: number, refillPerMs: number, cost: number, ttlMs: number): Promise<[number, string]> };

export interface RedisRateLimiterOptions {
  url: string;
  burst: number;
  refillPerSecond: number;
  /** Prefix of every bucket key (one per API key). */
  keyPrefix: string;
  logger: WarnLogger;
  /** A Redis answer not there this long after the call (once the event loop is free to read it) counts as Redis being down (ms, default 250). */
  commandTimeoutMs?: number;
}

/**
 * The rate limiter shared by every bomcore instance: the same token buckets as
 * `TokenBucketLimiter`, kept in Redis (REDIS_URL) and spent by one Lua script, so N instances
 * give a key one budget, not N. When Redis is unreachable or slow it fails open: the request is
 * allowed and a warning is logged (at most one line per 10 s), because refusing every request
 * for a rate-limiter outage would turn it into a full outage.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #client: TakeClient;
  readonly #burst: number;
  readonly #refillPerMs: number;
  readonly #ttlMs: number;
  readonly #prefix: string;
  readonly #redis: FailOpenRedis<TakeClient>;
  readonly #timeoutMs: number;

  constructor(options: RedisRateLimiterOptions) {
    this.#burst = options.burst;
    this.#refillPerMs = options.refillPerSecond / 1000;
    this.#ttlMs = Math.ceil(options.burst / this.#refillPerMs) + 1000;
    this.#prefix = options.keyPrefix;
    this.#timeoutMs = options.commandTimeoutMs ?? 250;
    this.#redis = new FailOpenRedis<TakeClient>({
      url: options.url,
      // A slow answer is judged by `answerWithin`; this only drops commands a hung Redis never answers.
      commandTimeoutMs: Math.max(5000, this.#timeoutMs * 10),
      logger: options.logger,
      outage: 'rate limiter: Redis unreachable, requests are allowed without a rate limit (fail open)',
      scripts: { bomcoreTake: TAKE_SCRIPT },
    });
    this.#client = this.#redis.client;
  }

  /** Connects; when Redis is not reachable yet, warns and keeps retrying in the background (requests fail open meanwhile). */
  connect(): Promise<void> {
    return this.#redis.connect();
  }

  close(): Promise<void> {
    return this.#redis.close();
  }

  get burst(): number {
    return this.#burst;
  }

  async take(key: string, cost = 1): Promise<RateDecision> {
    try {
      const answer = await answerWithin(this.#client.bomcoreTake(this.#prefix + key, this.#burst, this.#refillPerMs, cost, this.#ttlMs), this.#timeoutMs);
      if (answer === TIMED_OUT) throw new Error(`no answer from Redis within ${this.#timeoutMs} ms`);
      const [allowed, rawTokens] = answer;
      const tokens = Number(rawTokens);
      const ok = allowed === 1;
      return {
        allowed: ok,
        limit: this.#burst,
        remaining: Math.floor(tokens),
        resetSeconds: Math.ceil((this.#burst - tokens) / this.#refillPerMs / 1000),
        retryAfterSeconds: ok ? 0 : Math.max(1, Math.ceil((Math.min(cost, this.#burst) - tokens) / this.#refillPerMs / 1000)),
      };
    } catch (error) {
      this.#redis.warn(error as Error);
      return { allowed: true, limit: this.#burst, remaining: this.#burst, resetSeconds: 0, retryAfterSeconds: 0 };
    }
  }
}
