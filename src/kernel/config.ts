import { resolve } from 'node:path';
import { isIP } from 'node:net';

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
  /**
   * Work (rows, ids and locations its arguments ask for, src/http/admission/request-price.ts) above which a request is costly and
   * waits its turn (BOMCORE_HEAVY_WORK, default 20). Rate-limit tokens do not depend on it: one per REST call.
   */
  heavyWork: number;
  /** PostgreSQL `statement_timeout` of every connection, in ms; 0 turns it off (BOMCORE_STATEMENT_TIMEOUT_MS, default 5000). */
  statementTimeoutMs: number;
  /** A request still running after this many ms is answered 503 + Retry-After; 0 turns it off (BOMCORE_REQUEST_DEADLINE_MS, default 10000). */
  requestDeadlineMs: number;
  /** Sustained event-loop lag (ms; 3 samples in a row) above which new requests are shed with 503 + Retry-After, health checks excepted; 0 turns it off (BOMCORE_LOAD_SHED_LAG_MS, default 1000). */
  loadShedLagMs: number;
  /** Costly requests (work over heavyWork) running at once; the others wait their turn, round-robin by shop; 0: no limit (BOMCORE_HEAVY_CONCURRENCY, default 1). */
  heavyConcurrency: number;
  /** PostgreSQL: ms to wait for a pool connection (acquire or connect) before the request is 503 (BOMCORE_DB_CONNECT_TIMEOUT_MS, default 5000). */
  dbConnectTimeoutMs: number;
  /** PostgreSQL: ms to wait for a statement's answer on the wire (a stalled network) before it fails; 0 turns it off (BOMCORE_DB_READ_TIMEOUT_MS, default 15000). */
  dbReadTimeoutMs: number;
  /** SIGTERM: ms in-flight requests get to finish before the process exits anyway (BOMCORE_SHUTDOWN_GRACE_MS, default 30000). */
  shutdownGraceMs: number;
  /** `serve`: ms without a request in flight after which a grown process gives memory back (one memory-reducing collection); 0 turns it off (BOMCORE_IDLE_GC_MS, default 2000). */
  idleGcMs: number;
  /** `serve`: MiB the resident set must have grown since the last such collection (or the start) for it to run (BOMCORE_IDLE_GC_GROWTH_MB, default 32). */
  idleGcGrowthMb: number;
  /** Seconds within which a repeated failure of one kind is logged once, with a count of the ones left out (BOMCORE_LOG_REPEAT_WINDOW_S, default 10). */
  logRepeatWindowSeconds: number;
  logLevel: string;
  /** How `serve` writes its log (LOG_FORMAT): `json` lines, short `text` lines, or `auto` (default): text on a terminal, JSON otherwise. */
  logFormat: LogFormat;
  bodyLimitBytes: number;
  /** How often `serve` drains the platform-push outbox (OUTBOX_DRAIN_INTERVAL_MS, default 1000). */
  outboxDrainIntervalMs: number;
  /** Pushes claimed per drain pass (OUTBOX_DRAIN_BATCH_SIZE, default 100). */
  outboxDrainBatchSize: number;
  /** BOMCORE_EXPOSE_QUERY_COUNT=1: REST and /graphql responses carry `X-Query-Count` (SQL statements of the operation; benchmarks). */
  exposeQueryCount: boolean;
  /** The REST API reference page at /api/v1/docs (BOMCORE_API_DOCS; default on, off under NODE_ENV=production). */
  apiDocs: boolean;
  /** `serve` runs each read route once in-process before it listens, so a fresh process's first request is not slow (BOMCORE_WARM_UP; default on). */
  warmUp: boolean;
  /** Limits and tools of the `/graphql` endpoint (docs/graphql.md). */
  graphql: GraphqlConfig;
  /** REDIS_URL: when set, the rate-limit buckets live in Redis, shared by every instance (default unset: in process memory). */
  redisUrl: string | null;
  /** Prefix of the Redis keys of the rate limiter (BOMCORE_REDIS_PREFIX, default `bomcore:rl:`). */
  redisKeyPrefix: string;
  /** Failed authentications per client address and minute before 429 (BOMCORE_AUTH_FAILURES_PER_MINUTE, default 20). */
  authFailuresPerMinute: number;
  /** Proxies whose X-Forwarded-For names the client address: a hop count or addresses/CIDRs (TRUST_PROXY; default unset: none). */
  trustProxy: TrustProxy;
  /** Browser origins allowed to call /api/v1 and /graphql: `*` or a list (CORS_ORIGINS, comma-separated; default unset: CORS off). */
  corsOrigins: CorsOrigins;
  /** BOMCORE_SECRET_KEY: 32 bytes (64 hex digits or base64) that seal stored Shopify tokens; unset: a 0600 key file in the embedded data folder. */
  secretKey: string | null;
  /** BOMCORE_SHOPIFY_ENDPOINT: replaces `https://{domain}` in every store address, the Admin API and `/admin/oauth/*` (an emulator, a proxy); default unset. */
  shopifyEndpoint: string | null;
  /** SHOPIFY_API_SECRET: the Shopify app's API secret key, which signs webhooks (POST /webhooks/shopify answers 503 without it); default unset. */
  shopifyApiSecret: string | null;
  /** SHOPIFY_API_KEY: the Shopify app's client ID, for the install link and renewing its tokens; default unset. */
  shopifyApiKey: string | null;
  /** BOMCORE_PUBLIC_URL: the origin (and path prefix) Shopify's redirects reach this server at; the install callback is `<it>/shopify/callback`. Default unset. */
  publicUrl: string | null;
  /**
   * BOMCORE_SHOP_REDACT: what Shopify's shop/redact (48 hours after an uninstall) does to bomcore's own
   * records of the shop: `erase` (default) every row of it; `keep` them (the store's mirror, tokens and
   * stored webhooks are erased either way).
   */
  shopRedact: 'erase' | 'keep';
  /** How often `serve` reconciles each connected shop's mirror with its Shopify store, in seconds; 0 turns it off (BOMCORE_SHOPIFY_RECONCILE_INTERVAL_S, default 300). */
  shopifyReconcileIntervalS: number;
  /** How often each process re-reads which connected stores fail, for the reads' PLATFORM_STALE warning, in ms (BOMCORE_PLATFORM_HEALTH_INTERVAL_MS, default 5000; 0: only at start). */
  platformHealthIntervalMs: number;
  /** Outgoing webhooks (docs/events.md). */
  webhooks: WebhookConfig;
  /** GraphQL subscriptions' limits, per instance (docs/events.md, "Subscriptions"). */
  live: LiveConfig;
}

/** What GraphQL subscriptions may hold on one instance. */
export interface LiveConfig {
  /** Open subscription connections of one API key (BOMCORE_LIVE_CONNECTIONS_PER_KEY, default 20); one more is closed with 4429. */
  connectionsPerKey: number;
  /** Open subscription connections of one shop, all its keys (BOMCORE_LIVE_CONNECTIONS_PER_SHOP, default 100); one more is closed with 4429. */
  connectionsPerShop: number;
  /** Subscriptions running at once on one connection (BOMCORE_LIVE_SUBSCRIPTIONS_PER_CONNECTION, default 20). */
  subscriptionsPerConnection: number;
  /** How often the keys of open connections are checked, so a revoked or expired key's sockets close (BOMCORE_LIVE_KEY_CHECK_MS, default 2000). */
  keyCheckMs: number;
  /** Time a socket has to send connection_init before it is closed with 4408 (10 s). */
  initTimeoutMs: number;
}

/** How `serve` delivers events to webhook endpoints. */
export interface WebhookConfig {
  /** Endpoint URLs must be https (NODE_ENV=production); elsewhere http is accepted too. */
  requireHttps: boolean;
  /** BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1: loopback, private and link-local targets are allowed (a test receiver, an internal network); default off. */
  allowPrivate: boolean;
  /** Pause between delivery passes (BOMCORE_WEBHOOK_INTERVAL_MS, default 1000). */
  intervalMs: number;
  /** First retry delay, doubled per failure with jitter (BOMCORE_WEBHOOK_RETRY_BASE_MS, default 5000). */
  retryBaseMs: number;
  /** Longest retry delay (BOMCORE_WEBHOOK_RETRY_MAX_MS, default 3600000: an hour). */
  retryMaxMs: number;
  /** How long an endpoint may fail before it is disabled, a delivery before it is abandoned (BOMCORE_WEBHOOK_GIVE_UP_MS, default 3 days). */
  giveUpMs: number;
  /** Time a request gets for a 2xx (10 s). */
  timeoutMs: number;
  /** Deliveries in flight at once in this process (BOMCORE_WEBHOOK_CONCURRENCY, default 32); per endpoint at most a quarter of it. */
  concurrency: number;
}

/** What one GraphQL request may ask for, and which tools the endpoint offers. */
export interface GraphqlConfig {
  /** Deepest field nesting of an operation (BOMCORE_GRAPHQL_MAX_DEPTH, default 20). */
  maxDepth: number;
  /** Aliased fields in an operation, fragments expanded (BOMCORE_GRAPHQL_MAX_ALIASES, default 30). */
  maxAliases: number;
  /** Lexical tokens of the document; the parser stops beyond (BOMCORE_GRAPHQL_MAX_TOKENS, default 5000). */
  maxTokens: number;
  /**
   * Cost of the executed operation: 1 per field plus 1 per row its arguments ask for, what it selects
   * multiplied by its page size or id count, ×10 under other lists (BOMCORE_GRAPHQL_MAX_COMPLEXITY, default 100000).
   */
  maxComplexity: number;
  /** Operations in one batched (array) request; 0 refuses batches (BOMCORE_GRAPHQL_MAX_BATCH, default 10). */
  maxBatch: number;
  /** `__schema` / `__type` queries answered (BOMCORE_GRAPHQL_INTROSPECTION; default on, off under NODE_ENV=production). */
  introspection: boolean;
  /** The GraphiQL IDE at /graphiql (BOMCORE_GRAPHIQL; default on, off under NODE_ENV=production). */
  graphiql: boolean;
  /** The federation SDL `_service { sdl }` answered (BOMCORE_GRAPHQL_FEDERATION; default on, off under NODE_ENV=production). */
  federation: boolean;
}

export class ConfigError extends Error {}

/** `1`/`true`/`on` or `0`/`false`/`off`; unset or empty: the fallback. */
function shopRedact(env: NodeJS.ProcessEnv): 'erase' | 'keep' {
  const raw = (env.BOMCORE_SHOP_REDACT ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'erase') return 'erase';
  if (raw === 'keep') return 'keep';
  throw new ConfigError(`BOMCORE_SHOP_REDACT must be erase or keep, got "${env.BOMCORE_SHOP_REDACT}"`);
}

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

export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

function logFormat(env: NodeJS.ProcessEnv): LogFormat {
  const raw = env.LOG_FORMAT?.trim().toLowerCase() || 'auto';
  if ((LOG_FORMATS as readonly string[]).includes(raw)) return raw as LogFormat;
  throw new ConfigError(`LOG_FORMAT must be ${LOG_FORMATS.join(', ')}, got "${env.LOG_FORMAT}"`);
}

/** Development tools (introspection, GraphiQL) are on unless the process runs as production. */
function graphqlConfig(env: NodeJS.ProcessEnv): GraphqlConfig {
  const development = env.NODE_ENV !== 'production';
  return {
    maxDepth: positiveNumber(env, 'BOMCORE_GRAPHQL_MAX_DEPTH', 20, true),
    maxAliases: nonNegativeInteger(env, 'BOMCORE_GRAPHQL_MAX_ALIASES', 30),
    maxTokens: positiveNumber(env, 'BOMCORE_GRAPHQL_MAX_TOKENS', 5000, true),
    maxComplexity: positiveNumber(env, 'BOMCORE_GRAPHQL_MAX_COMPLEXITY', 100_000, true),
    maxBatch: nonNegativeInteger(env, 'BOMCORE_GRAPHQL_MAX_BATCH', 10),
    introspection: flag(env, 'BOMCORE_GRAPHQL_INTROSPECTION', development),
    graphiql: flag(env, 'BOMCORE_GRAPHIQL', development),
    federation: flag(env, 'BOMCORE_GRAPHQL_FEDERATION', development),
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

function trustProxy(env: NodeJS.ProcessEnv): TrustProxy {
  try {
    return parseTrustProxy(env.TRUST_PROXY);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** The embedded database's folder; `memory://` (any `memory:` value) is kept as is: no folder, the database lives in memory. */
function dataDir(env: NodeJS.ProcessEnv): string {
  const raw = env.BOMCORE_DATA_DIR || './.data';
  return raw.startsWith('memory:') ? raw : resolve(raw);
}

function corsOrigins(env: NodeJS.ProcessEnv): CorsOrigins {
  try {
    return parseCorsOrigins(env.CORS_ORIGINS);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function shopifyEndpoint(env: NodeJS.ProcessEnv): string | null {
  const raw = env.BOMCORE_SHOPIFY_ENDPOINT;
  if (raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`BOMCORE_SHOPIFY_ENDPOINT must be a URL like http://127.0.0.1:8081, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '') {
    throw new ConfigError(`BOMCORE_SHOPIFY_ENDPOINT must be an origin (scheme://host[:port]), got "${raw}"`);
  }
  return url.origin;
}

function publicUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.BOMCORE_PUBLIC_URL;
  if (raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`BOMCORE_PUBLIC_URL must be a URL like https://bomcore.example.com, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`BOMCORE_PUBLIC_URL must be an http(s) URL without a query, got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
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
    dataDir: dataDir(env),
    host: env.HOST || '127.0.0.1',
    port,
    platformName,
    metafieldNamespace: namespace,
    rateLimitBurst: positiveNumber(env, 'RATE_LIMIT_BURST', 40, true),
    rateLimitRefillPerSecond: positiveNumber(env, 'RATE_LIMIT_REFILL_PER_SECOND', 4),
    heavyWork: nonNegativeInteger(env, 'BOMCORE_HEAVY_WORK', 20),
    statementTimeoutMs: nonNegativeInteger(env, 'BOMCORE_STATEMENT_TIMEOUT_MS', 5000),
    requestDeadlineMs: nonNegativeInteger(env, 'BOMCORE_REQUEST_DEADLINE_MS', 10_000),
    loadShedLagMs: nonNegativeInteger(env, 'BOMCORE_LOAD_SHED_LAG_MS', 1000),
    heavyConcurrency: nonNegativeInteger(env, 'BOMCORE_HEAVY_CONCURRENCY', 1),
    dbConnectTimeoutMs: positiveNumber(env, 'BOMCORE_DB_CONNECT_TIMEOUT_MS', 5000, true),
    dbReadTimeoutMs: nonNegativeInteger(env, 'BOMCORE_DB_READ_TIMEOUT_MS', 15_000),
    shutdownGraceMs: positiveNumber(env, 'BOMCORE_SHUTDOWN_GRACE_MS', 30_000, true),
    idleGcMs: nonNegativeInteger(env, 'BOMCORE_IDLE_GC_MS', 2000),
    idleGcGrowthMb: nonNegativeInteger(env, 'BOMCORE_IDLE_GC_GROWTH_MB', 32),
    logRepeatWindowSeconds: positiveNumber(env, 'BOMCORE_LOG_REPEAT_WINDOW_S', 10),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: logFormat(env),
    bodyLimitBytes: 1024 * 1024,
    outboxDrainIntervalMs: positiveNumber(env, 'OUTBOX_DRAIN_INTERVAL_MS', 1000, true),
    outboxDrainBatchSize: positiveNumber(env, 'OUTBOX_DRAIN_BATCH_SIZE', 100, true),
    exposeQueryCount: env.BOMCORE_EXPOSE_QUERY_COUNT === '1',
    apiDocs: flag(env, 'BOMCORE_API_DOCS', env.NODE_ENV !== 'production'),
    warmUp: flag(env, 'BOMCORE_WARM_UP', true),
    graphql: graphqlConfig(env),
    redisUrl: env.REDIS_URL ? env.REDIS_URL : null,
    redisKeyPrefix: env.BOMCORE_REDIS_PREFIX || 'bomcore:rl:',
    authFailuresPerMinute: positiveNumber(env, 'BOMCORE_AUTH_FAILURES_PER_MINUTE', 20, true),
    trustProxy: trustProxy(env),
    corsOrigins: corsOrigins(env),
    secretKey: env.BOMCORE_SECRET_KEY ? env.BOMCORE_SECRET_KEY : null,
    shopifyEndpoint: shopifyEndpoint(env),
    shopifyApiSecret: env.SHOPIFY_API_SECRET ? env.SHOPIFY_API_SECRET : null,
    shopifyApiKey: env.SHOPIFY_API_KEY ? env.SHOPIFY_API_KEY.trim() : null,
    publicUrl: publicUrl(env),
    shopRedact: shopRedact(env),
    shopifyReconcileIntervalS: nonNegativeInteger(env, 'BOMCORE_SHOPIFY_RECONCILE_INTERVAL_S', 300),
    platformHealthIntervalMs: nonNegativeInteger(env, 'BOMCORE_PLATFORM_HEALTH_INTERVAL_MS', 5000),
    webhooks: {
      requireHttps: env.NODE_ENV === 'production',
      allowPrivate: env.BOMCORE_WEBHOOKS_ALLOW_PRIVATE === '1',
      intervalMs: positiveNumber(env, 'BOMCORE_WEBHOOK_INTERVAL_MS', 1000, true),
      retryBaseMs: positiveNumber(env, 'BOMCORE_WEBHOOK_RETRY_BASE_MS', 5000, true),
      retryMaxMs: positiveNumber(env, 'BOMCORE_WEBHOOK_RETRY_MAX_MS', 3_600_000, true),
      giveUpMs: positiveNumber(env, 'BOMCORE_WEBHOOK_GIVE_UP_MS', 3 * 24 * 3_600_000, true),
      timeoutMs: 10_000,
      concurrency: positiveNumber(env, 'BOMCORE_WEBHOOK_CONCURRENCY', 32, true),
    },
    live: {
      connectionsPerKey: positiveNumber(env, 'BOMCORE_LIVE_CONNECTIONS_PER_KEY', 20, true),
      connectionsPerShop: positiveNumber(env, 'BOMCORE_LIVE_CONNECTIONS_PER_SHOP', 100, true),
      subscriptionsPerConnection: positiveNumber(env, 'BOMCORE_LIVE_SUBSCRIPTIONS_PER_CONNECTION', 20, true),
      keyCheckMs: positiveNumber(env, 'BOMCORE_LIVE_KEY_CHECK_MS', 2000, true),
      initTimeoutMs: 10_000,
    },
  };
}

// Parsers of the values whose use lives in src/http (CORS, the client address): here, so the
// kernel's configuration imports no HTTP code.

/**
 * CORS (CORS_ORIGINS): which browser origins may call the API. `*` allows any origin; a list
 * allows those origins exactly; unset (null) leaves CORS off: no CORS header on any response, and
 * OPTIONS answers what it answers without CORS (405 on a REST path, 404 elsewhere).
 */
export type CorsOrigins = '*' | string[] | null;

/**
 * Parses CORS_ORIGINS: `*`, or comma-separated origins (`https://app.example.com`, scheme, host and
 * port; a trailing slash is dropped). Throws a message naming the value that is not an origin.
 */
export function parseCorsOrigins(raw: string | undefined): CorsOrigins {
  if (raw === undefined || raw.trim() === '') return null;
  const parts = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (parts.includes('*')) {
    if (parts.length > 1) throw new Error('CORS_ORIGINS is either * or a list of origins, not both');
    return '*';
  }
  return parts.map((part) => {
    const text = part.endsWith('/') ? part.slice(0, -1) : part;
    let origin: string | null = null;
    try {
      const url = new URL(text);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch { /* not a URL */ }
    if (origin === null || origin !== text.toLowerCase()) {
      throw new Error(`CORS_ORIGINS: "${part}" is not an origin; write scheme://host[:port], e.g. https://app.example.com`);
    }
    return origin;
  });
}

/**
 * Which hops of `X-Forwarded-For` the server believes (TRUST_PROXY). `false`: none, the client is
 * the socket's peer; a number: that many proxies stand in front (the peer and the entries it and
 * the ones before it appended); a list: peers whose address is in one of these ranges are proxies.
 */
export type TrustProxy = false | number | string[];

/** Named ranges the list form also accepts (those of Fastify's proxy-addr). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Parses TRUST_PROXY: unset, empty, `0`, `false` or `off` → off; a positive integer → hop count;
 * otherwise a comma-separated list of addresses, CIDR ranges or `loopback`/`linklocal`/`uniquelocal`.
 * `true` is refused: believing every client's `X-Forwarded-For` lets any client pick its address
 * (and so escape the failed-authentication throttle). Throws an Error naming the bad entry.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (['', '0', 'false', 'off'].includes(value.toLowerCase())) return false;
  if (/^\d+$/.test(value)) return Number(value);
  if (['true', 'on', 'yes'].includes(value.toLowerCase())) {
    throw new Error(`TRUST_PROXY=${value} would believe any client's X-Forwarded-For; give the number of proxies in front of the server (e.g. 1) or their addresses (e.g. 10.0.0.0/8)`);
  }
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad !== undefined) {
    throw new Error(`TRUST_PROXY must be a number of proxies (e.g. 1) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1); "${bad}" is neither`);
  }
  return entries;
}
