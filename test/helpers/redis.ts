import { Redis } from 'ioredis';

/** The Redis the tests that share state through it use (REDIS_URL, else the local one). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether that Redis answers a PING: tests that need it are skipped (with a warning) when it does
 * not, on a developer's machine. In CI (CI=true; .ci/run starts Redis as it starts PostgreSQL) an
 * unreachable Redis is a failure, so the shared limiter and throttle are tested where they land.
 */
export async function redisReachable(): Promise<boolean> {
  const reachable = await pings();
  if (!reachable && process.env.CI === 'true') throw new Error(`Redis at ${REDIS_URL} is not reachable, and CI runs every Redis test (.ci/run starts Redis)`);
  return reachable;
}

async function pings(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
