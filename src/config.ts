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
  /** BOMCORE_EXPOSE_QUERY_COUNT=1: REST and /graphql responses carry `X-Query-Count` (SQL statements of the operation; benchmarks). */
  exposeQueryCount: boolean;
  /** Limits and tools of the `/graphql` endpoint (docs/graphql.md). */
  graphql: GraphqlConfig;
}

/** What one GraphQL request may ask for, and which tools the endpoint offers. */
export interface GraphqlConfig {
  /** Deepest field nesting of an operation (BOMCORE_GRAPHQL_MAX_DEPTH, default 20). */
  maxDepth: number;
  /** Aliased fields in an operation, fragments expanded (BOMCORE_GRAPHQL_MAX_ALIASES, default 30). */
  maxAliases: number;
  /** Lexical tokens of the document; the parser stops beyond (BOMCORE_GRAPHQL_MAX_TOKENS, default 5000). */
  maxTokens: number;
  /** Complexity score of the executed operation: 1 per field, ×10 under a list (BOMCORE_GRAPHQL_MAX_COMPLEXITY, default 50000). */
  maxComplexity: number;
  /** Operations in one batched (array) request; 0 refuses batches (BOMCORE_GRAPHQL_MAX_BATCH, default 10). */
  maxBatch: number;
  /** `__schema` / `__type` queries answered (BOMCORE_GRAPHQL_INTROSPECTION; default on, off under NODE_ENV=production). */
  introspection: boolean;
  /** The GraphiQL IDE at /graphiql (BOMCORE_GRAPHIQL; default on, off under NODE_ENV=production). */
  graphiql: boolean;
}

export class ConfigError extends Error {}

/** `1`/`true`/`on` or `0`/`false`/`off`; unset or empty: the fallback. */
function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'on'].includes(value)) return true;
  if (['0', 'false', 'off'].includes(value)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (true/false), got "${raw}"`);
}

function nonNegativeInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be an integer ≥ 0, got "${raw}"`);
  return value;
}

/** Development tools (introspection, GraphiQL) are on unless the process runs as production. */
function graphqlConfig(env: NodeJS.ProcessEnv): GraphqlConfig {
  const development = env.NODE_ENV !== 'production';
  return {
    maxDepth: positiveNumber(env, 'BOMCORE_GRAPHQL_MAX_DEPTH', 20, true),
    maxAliases: nonNegativeInteger(env, 'BOMCORE_GRAPHQL_MAX_ALIASES', 30),
    maxTokens: positiveNumber(env, 'BOMCORE_GRAPHQL_MAX_TOKENS', 5000, true),
    maxComplexity: positiveNumber(env, 'BOMCORE_GRAPHQL_MAX_COMPLEXITY', 50_000, true),
    maxBatch: nonNegativeInteger(env, 'BOMCORE_GRAPHQL_MAX_BATCH', 10),
    introspection: flag(env, 'BOMCORE_GRAPHQL_INTROSPECTION', development),
    graphiql: flag(env, 'BOMCORE_GRAPHIQL', development),
  };
}

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
    graphql: graphqlConfig(env),
  };
}
