import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/http/limits/redis-rate-limiter.ts';
import { REDIS_URL, redisReachable as isRedisReachable } from '../helpers/redis.ts';

// Rule: the Redis token bucket is taken atomically (one Lua script per take): of N concurrent takes
// exactly `burst` are allowed, also when a CPU-heavy request holds the event loop past the command
// timeout while Redis answers (the answer is read before the timeout is judged, not taken for an outage).

const redisReachable = await isRedisReachable();

if (!redisReachable) console.warn(`Redis at ${REDIS_URL} is not reachable: the Redis rate-limiter tests are skipped`);

/** Blocks the event loop for `ms`, as a CPU-heavy request would. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

describe.runIf(redisReachable)('RedisRateLimiter: exactly `burst` of N concurrent takes', () => {
  const prefix = `bomcore-test:rl:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const warnings: object[] = [];
  const logger = { warn: (obj: object) => warnings.push(obj) };
  let limiter: RedisRateLimiter;
  let slowLoop: RedisRateLimiter;
  beforeAll(async () => {
    limiter = new RedisRateLimiter({ url: REDIS_URL, burst: 25, refillPerSecond: 0.001, keyPrefix: prefix, logger });
    slowLoop = new RedisRateLimiter({ url: REDIS_URL, burst: 25, refillPerSecond: 0.001, keyPrefix: prefix, logger, commandTimeoutMs: 100 });
    await Promise.all([limiter.connect(), slowLoop.connect()]);
  });
  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await Promise.all([limiter?.close(), slowLoop?.close()]);
  });

  it('200 concurrent takes of one key allow exactly 25, five times over; the refused ones see 0 left', async () => {
    for (let round = 0; round < 5; round += 1) {
      const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.take(`plain-${round}`)));
      expect(decisions.filter((d) => d.allowed), `round ${round}`).toHaveLength(25);
      expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterSeconds > 0)).toBe(true);
      expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    }
    expect(warnings).toEqual([]);
  });

  it('the takes of two instances share the bucket: 100 + 100 concurrent takes allow 25 in all', async () => {
    const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? limiter : slowLoop).take('shared')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
  });

  it('a CPU-heavy request holding the event loop 300 ms past a 100 ms timeout: still exactly 25 of 200, three times over, no fail-open warning', async () => {
    const before = warnings.length;
    for (let round = 0; round < 3; round += 1) {
      const pending = Array.from({ length: 200 }, () => slowLoop.take(`held-${round}`));
      blockLoop(300);
      const decisions = await Promise.all(pending);
      expect(decisions.filter((d) => d.allowed), `round ${round}`).toHaveLength(25);
    }
    expect(warnings.length).toBe(before);
  });
});
