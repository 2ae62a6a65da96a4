import { resolve } from 'node:path';

/** Runtime configuration, read once from the environment and validated. */
export interface Config {
  databaseUrl: string | null;
  dataDir: string;
  host: string;
  port: number;
  platformName: string;
  metafieldNamespace: string;
  rateLimitBurst: number;
  rateLimitRefillPerSecond: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** How often `serve` drains the platform-push outbox (OUTBOX_DRAIN_INTERVAL_MS, default 1000). */
  outboxDrainIntervalMs: number;
  /** Pushes claimed per drain pass (OUTBOX_DRAIN_BATCH_SIZE, default 100). */
  outboxDrainBatchSize: number;
  /** BOMCORE_EXPOSE_QUERY_COUNT=1: REST responses carry `X-Query-Count` (SQL statements of the operation; benchmarks). */
  exposeQueryCount: boolean;
}

export class ConfigError extends Error {}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, integer = false): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ConfigError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0–65535, got "${env.PORT}"`);
  const namespace = env.BOMCORE_METAFIELD_NAMESPACE || 'bomcore';
  if (!/^[a-z0-9_-]{2,50}$/i.test(namespace)) throw new ConfigError('BOMCORE_METAFIELD_NAMESPACE must be 2–50 of [A-Za-z0-9_-]');
  const platformName = env.BOMCORE_PLATFORM_NAME || 'shopify';
  if (!/^[a-z][a-z0-9-]*$/.test(platformName)) throw new ConfigError('BOMCORE_PLATFORM_NAME must be lower-case letters, digits and dashes');
  return {
    databaseUrl: env.DATABASE_URL ? env.DATABASE_URL : null,
    dataDir: resolve(env.BOMCORE_DATA_DIR || './.data'),
    host: env.HOST || '127.0.0.1',
    port,
    platformName,
    metafieldNamespace: namespace,
    rateLimitBurst: positiveNumber(env, 'RATE_LIMIT_BURST', 40, true),
    rateLimitRefillPerSecond: positiveNumber(env, 'RATE_LIMIT_REFILL_PER_SECOND', 4),
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: 1024 * 1024,
    outboxDrainIntervalMs: positiveNumber(env, 'OUTBOX_DRAIN_INTERVAL_MS', 1000, true),
    outboxDrainBatchSize: positiveNumber(env, 'OUTBOX_DRAIN_BATCH_SIZE', 100, true),
    exposeQueryCount: env.BOMCORE_EXPOSE_QUERY_COUNT === '1',
  };
}
