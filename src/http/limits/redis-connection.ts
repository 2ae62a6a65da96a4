import { Redis } from 'ioredis';

export interface WarnLogger { warn(obj: object, msg: string): void }

export interface FailOpenRedisOptions {
  url: string;
  /** ioredis drops a command not answered within this (ms). */
  commandTimeoutMs: number;
  logger: WarnLogger;
  /** The warning logged while Redis cannot be reached: what the caller does meanwhile. */
  outage: string;
  /** Lua scripts defined as commands of the client (ioredis `defineCommand`: EVALSHA, loaded once). */
  scripts: Record<string, string>;
}

/**
 * The Redis connection of a counter that several instances share (the rate limiter, the
 * failed-authentication throttle). Down is down: commands fail at once rather than queue behind a
 * reconnect, the caller falls back, and the outage is logged at most every 10 s with a count.
 */
export class FailOpenRedis<Client extends Redis = Redis> {
  readonly client: Client;
  readonly #logger: WarnLogger;
  readonly #outage: string;
  #lastWarnAt = 0;
  #failuresSinceWarn = 0;

  constructor(options: FailOpenRedisOptions) {
    this.#logger = options.logger;
    this.#outage = options.outage;
    this.client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    }) as Client;
    for (const [name, lua] of Object.entries(options.scripts)) this.client.defineCommand(name, { numberOfKeys: 1, lua });
    this.client.on('error', (error: Error) => this.warn(error));
  }

  /** Connects; when Redis is not reachable yet, warns and keeps retrying in the background. */
  async connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch (error) {
      this.warn(error as Error);
    }
  }

  async close(): Promise<void> {
    this.client.disconnect(false);
  }

  warn(error: Error): void {
    this.#failuresSinceWarn++;
    const now = Date.now();
    if (now - this.#lastWarnAt < 10_000) return;
    this.#logger.warn({ err: { message: error.message }, failures: this.#failuresSinceWarn }, this.#outage);
    this.#lastWarnAt = now;
    this.#failuresSinceWarn = 0;
  }
}
