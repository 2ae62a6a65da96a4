import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { hashSecret } from '../../modules/auth/keys.ts';
import { MemoryFailureCounter, type FailureCounter } from './auth-failure-counter.ts';
import { KnownKeys, validKeyHashes } from './known-keys.ts';
import { sendProblem } from '../errors/problem.ts';
import { RedisFailureCounter } from './redis-auth-throttle.ts';

/** How an authentication attempt ended: the key was valid, was not, or the lookup failed (the database). */
export type AttemptOutcome = 'valid' | 'invalid' | 'undecided';

/** An attempt the throttle let through; `end` is called once its key lookup is done. */
export interface AuthAttempt { end(outcome: AttemptOutcome): Promise<void> }

const UNCOUNTED: AuthAttempt = { end: async () => {} };

/** The hash of the bearer token of an Authorization header, or null when it carries none (never a valid key). */
function tokenHash(header: string): string | null {
  const token = /^Bearer (\S{1,200})$/.exec(header.trim())?.[1];
  return token === undefined ? null : hashSecret(token);
}

/**
 * Failed authentications per client address (`request.ip`, see TRUST_PROXY), in a one-minute
 * window opened by the first failure. An attempt with a key the throttle does not know to be
 * valid is counted when it starts, before the key is looked up (and taken back if the key proves
 * valid); once an address holds `limit` failures, such attempts are 429 RATE_LIMITED with
 * Retry-After before any lookup, so guessing keys costs the database nothing. A key known to be
 * valid (KnownKeys) is never refused: clients behind one NAT or proxy address are not locked out
 * by a stranger's guesses. Requests without a key are not counted.
 */
export class AuthThrottle {
  readonly #limit: number;
  readonly #counter: FailureCounter;
  readonly #known: KnownKeys;

  constructor(options: { limit: number; counter?: FailureCounter; knownKeys?: KnownKeys }) {
    this.#limit = options.limit;
    this.#counter = options.counter ?? new MemoryFailureCounter(options.limit);
    this.#known = options.knownKeys ?? new KnownKeys();
  }

  /** An attempt whose key is known to be valid: not counted, unless its lookup says otherwise. */
  #exempt(hash: string, address: string): AuthAttempt {
    return {
      end: async (outcome) => {
        if (outcome === 'valid') return this.#known.remember(hash);
        if (outcome === 'undecided') return;
        // Revoked or expired since: forgotten, and counted like any other failure.
        this.#known.forget(hash);
        await this.#counter.begin(address);
      },
    };
  }

  /**
   * Starts the authentication attempt of `request`. Returns the attempt, to be ended after the key
   * lookup, or null after replying 429 (RATE_LIMITED, Retry-After) to a throttled address.
   */
  async admit(request: FastifyRequest, reply: FastifyReply): Promise<AuthAttempt | null> {
    const started = await this.begin(request.ip, request.headers.authorization);
    if ('attempt' in started) return started.attempt;
    reply.header('Retry-After', String(started.retryAfterSeconds));
    sendProblem(request, reply, {
      code: 'RATE_LIMITED',
      detail: `too many failed authentications from this address (more than ${this.#limit} a minute); retry in ${started.retryAfterSeconds} s`,
    });
    return null;
  }

  /**
   * Starts an attempt to authenticate `header` from `address`, whatever carries it (a request's
   * Authorization header, a subscription socket's `connection_init`): the attempt, to be ended after
   * the key lookup, or how long the throttled address must wait.
   */
  async begin(address: string, header: string | undefined): Promise<{ attempt: AuthAttempt } | { retryAfterSeconds: number }> {
    if (!header) return { attempt: UNCOUNTED };
    const hash = tokenHash(header);
    if (hash !== null && this.#known.has(hash)) return { attempt: this.#exempt(hash, address) };
    const counted = await this.#counter.begin(address);
    if (counted.retryAfterSeconds === 0) {
      return {
        attempt: {
          end: async (outcome) => {
            if (outcome === 'invalid') return;
            if (outcome === 'valid' && hash !== null) this.#known.remember(hash);
            await counted.undo();
          },
        },
      };
    }
    // A valid key created or last used before this instance's list was filled: it still passes.
    if (hash !== null && (await this.#known.hasAfterLoad(hash))) return { attempt: this.#exempt(hash, address) };
    return { retryAfterSeconds: counted.retryAfterSeconds };
  }
}

interface ThrottleConfig { authFailuresPerMinute: number; redisUrl: string | null; redisKeyPrefix: string }

/**
 * The app's throttle: counters in Redis when REDIS_URL is set (shared by every instance, in memory
 * while Redis is down), else `counter` (a cluster worker's: its primary's) or memory; known keys
 * read from `orm`. `close` ends the Redis client.
 */
export async function createAuthThrottle(options: {
  config: ThrottleConfig; orm: Orm; logger: { warn(obj: object, msg: string): void }; counter?: FailureCounter | undefined;
}): Promise<{ throttle: AuthThrottle; close(): Promise<void> }> {
  const { config, orm } = options;
  const knownKeys = new KnownKeys({ load: (limit) => validKeyHashes(orm, limit) });
  const memory = new MemoryFailureCounter(config.authFailuresPerMinute);
  if (!config.redisUrl) {
    return { throttle: new AuthThrottle({ limit: config.authFailuresPerMinute, counter: options.counter ?? memory, knownKeys }), close: async () => {} };
  }
  const shared = new RedisFailureCounter({
    url: config.redisUrl, limit: config.authFailuresPerMinute, keyPrefix: `${config.redisKeyPrefix}auth-failures:`, fallback: memory, logger: options.logger,
  });
  await shared.connect();
  return { throttle: new AuthThrottle({ limit: config.authFailuresPerMinute, counter: shared, knownKeys }), close: () => shared.close() };
}
