import { Redis } from 'ioredis';
import { WINDOW_MS, type CountedAttempt, type FailureCounter, type MemoryFailureCounter } from './auth-failure-counter.ts';

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

interface WarnLogger { warn(obj: object, msg: string): void }

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
  readonly #logger: WarnLogger;
  #lastWarnAt = 0;
  #failuresSinceWarn = 0;

  constructor(options: RedisFailureCounterOptions) {
    this.#limit = options.limit;
    this.#prefix = options.keyPrefix;
    this.#fallback = options.fallback;
    this.#logger = options.logger;
    this.#client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 250,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    }) as CounterClient;
    this.#client.defineCommand('bomcoreAuthBegin', { numberOfKeys: 1, lua: BEGIN_SCRIPT });
    this.#client.defineCommand('bomcoreAuthUndo', { numberOfKeys: 1, lua: UNDO_SCRIPT });
    this.#client.on('error', (error: Error) => this.#warn(error));
  }

  /** Connects; when Redis is not reachable yet, warns and keeps retrying in the background. */
  async connect(): Promise<void> {
    try {
      await this.#client.connect();
    } catch (error) {
      this.#warn(error as Error);
    }
  }

  async close(): Promise<void> {
    this.#client.disconnect(false);
  }

  async begin(address: string): Promise<CountedAttempt> {
    const key = this.#prefix + address;
    let counted: number;
    let leftMs: number;
    try {
      [counted, leftMs] = await this.#client.bomcoreAuthBegin(key, this.#limit, WINDOW_MS);
    } catch (error) {
      this.#warn(error as Error);
      return this.#fallback.beginNow(address);
    }
    if (counted !== 1) return { retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)), undo: async () => {} };
    return {
      retryAfterSeconds: 0,
      undo: async () => {
        try {
          await this.#client.bomcoreAuthUndo(key);
        } catch (error) {
          this.#warn(error as Error);
        }
      },
    };
  }

  #warn(error: Error): void {
    this.#failuresSinceWarn++;
    const now = Date.now();
    if (now - this.#lastWarnAt < 10_000) return;
    this.#logger.warn(
      { err: { message: error.message }, failures: this.#failuresSinceWarn },
      'auth throttle: Redis unreachable, failed authentications are counted per instance meanwhile',
    );
    this.#lastWarnAt = now;
    this.#failuresSinceWarn = 0;
  }
}
