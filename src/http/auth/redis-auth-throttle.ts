import type { Redis } from 'ioredis';
import { WINDOW_MS, type CountedAttempt, type FailureCounter, type MemoryFailureCounter } from './auth-failure-counter.ts';
import { FailOpenRedis, type WarnLogger } from '../limits/redis-connection.ts';

/**
 * Counts one attempt of an address, atomically: refused (nothing counted) when the window already
 * holds `limit` failures; else INCR, and the first failure opens the window (PEXPIRE).
 * KEYS[1]: the address's counter; ARGV: limit, window (ms). Returns { counted (0|1), ms left }.
 */
const BEGIN_SCRIPT = `
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures >= tonumber(ARGV[1]) then
  return { 0, redis.call('PTTL', KEYS[1]) }
end
redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  left = tonumber(ARGV[2])
end
return { 1, left }
`;

/** Takes one count back, if the window that holds it is still there (a DECR alone would create a key without expiry). */
const UNDO_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0
`;

type CounterClient = Redis & {
  bomcoreAuthBegin(key: string, limit: number, windowMs: number): Promise<[number, number]>;
  bomcoreAuthUndo(key: string): Promise<number>;
};

export interface RedisFailureCounterOptions {
  url: string;
  limit: number;
  /** Prefix of the counter keys (one per client address). */
  keyPrefix: string;
  /** Counts in this instance's memory while Redis cannot be reached. */
  fallback: MemoryFailureCounter;
  logger: WarnLogger;
  /** A Redis answer slower than this counts as Redis being down (ms, default 250). */
  commandTimeoutMs?: number;
}

/**
 * The failed-authentication counter shared by every instance (REDIS_URL): N instances behind a
 * balancer give an address one budget of failures, not N. When Redis is down or slow, attempts
 * are counted in process memory instead (never refused for the outage itself: fail open to the
 * per-instance limit) and a warning is logged at most every 10 s.
 */
export class RedisFailureCounter implements FailureCounter {
  readonly #client: CounterClient;
  readonly #limit: number;
  readonly #prefix: string;
  readonly #fallback: MemoryFailureCounter;
  readonly #redis: FailOpenRedis<CounterClient>;

  constructor(options: RedisFailureCounterOptions) {
    this.#limit = options.limit;
    this.#prefix = options.keyPrefix;
    this.#fallback = options.fallback;
    this.#redis = new FailOpenRedis<CounterClient>({
      url: options.url, commandTimeoutMs: options.commandTimeoutMs ?? 250, logger: options.logger,
      outage: 'auth throttle: Redis unreachable, failed authentications are counted per instance meanwhile',
      scripts: { bomcoreAuthBegin: BEGIN_SCRIPT, bomcoreAuthUndo: UNDO_SCRIPT },
    });
    this.#client = this.#redis.client;
  }

  connect(): Promise<void> {
    return this.#redis.connect();
  }

  close(): Promise<void> {
    return this.#redis.close();
  }

  async begin(address: string): Promise<CountedAttempt> {
    const key = this.#prefix + address;
    let counted: number;
    let leftMs: number;
    try {
      [counted, leftMs] = await this.#client.bomcoreAuthBegin(key, this.#limit, WINDOW_MS);
    } catch (error) {
      this.#redis.warn(error as Error);
      return this.#fallback.beginNow(address);
    }
    if (counted !== 1) return { retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)), undo: async () => {} };
    return {
      retryAfterSeconds: 0,
      undo: async () => {
        try {
          await this.#client.bomcoreAuthUndo(key);
        } catch (error) {
          this.#redis.warn(error as Error);
        }
      },
    };
  }
}
