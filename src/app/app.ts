import type { IncomingHttpHeaders } from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { getSchema, printSchemaSdl } from '../../schema/index.ts';
import { checkOperationInput } from '../../schema/input-limits.ts';
import { restFacade } from '../../rest-facade/plugin.ts';
import { REST_PREFIX } from '../../rest-facade/contract.ts';
import { ProblemSchema, registerSwagger } from '../../rest-facade/openapi.ts';
import { MetaSchema } from '../../rest-facade/envelope.ts';
import type { Config } from '../kernel/config.ts';
import type { Orm } from '../db/orm.ts';
import { withQueryStats, type QueryStats } from '../db/query-stats.ts';
import { authorizeRequest, chargeRequest, createShopContext } from '../http/auth/auth.ts';
import { clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH, registerErrorHandling } from '../http/errors/error-handler.ts';
import { registerGraphql } from '../http/graphql/graphql.ts';
import { liveSubscriptions } from '../http/graphql/live-events.ts';
import { shopContextFor } from '../kernel/shop-context.ts';
import { registerApiIndex, registerIndexPage, registerSchemaSdl } from '../http/pages/index-page.ts';
import { logOptions } from '../http/errors/log-limits.ts';
import { textLogStream } from '../http/errors/text-log.ts';
import { registerDeadline } from '../http/admission/deadline.ts';
import { registerLoadShedding } from '../http/admission/load-shedding.ts';
import { installWorkLanes, registerWorkGate, withWorkLane } from '../http/admission/work-gate.ts';
import type { OperationPrice } from '../http/admission/request-price.ts';
import { sendProblem } from '../http/errors/problem.ts';
import { RETRY_AFTER_SECONDS } from '../http/errors/unavailable.ts';
import { TokenBucketLimiter, type RateLimiter } from '../http/limits/rate-limiter.ts';
import { RedisRateLimiter } from '../http/limits/redis-rate-limiter.ts';
import { createAuthThrottle } from '../http/auth/auth-throttle.ts';
import type { FailureCounter } from '../http/auth/auth-failure-counter.ts';
import { fastifyTrustProxy } from '../http/requests/client-address.ts';
import { HTTP_SERVER_OPTIONS, registerHostRequirement } from '../http/requests/host-header.ts';
import { registerSecurityHeaders } from '../http/requests/security-headers.ts';
import { answerClockOf, registerConditionalGet } from '../http/requests/conditional-get.ts';
import type { PlatformWarning } from '../kernel/platform-port/platform-warnings.ts';
import { registerRequestTurns } from '../http/admission/request-turns.ts';
import { registerApiReference } from '../http/pages/api-reference.ts';
import { registerCors } from '../http/requests/cors.ts';
import { registerIdempotency } from '../http/requests/idempotency-hooks.ts';
import { recordListenAddress } from './database.ts';
import { requestIdFor } from '../http/requests/request-id.ts';
import { registerValidators } from '../http/requests/validators.ts';
import { registerJsonBodyParser } from '../http/requests/json-body.ts';
import { registerShopifyWebhooks } from '../http/ingress/shopify-webhooks.ts';
import { registerShopifyInstall } from '../http/ingress/shopify-install.ts';
import { installAppOf } from '../platform/shopify/shopify-gateway.ts';
import { installScopes, linkInstalledStore } from './shopify-link.ts';
import type { PlatformGatewayFactory } from '../kernel/platform-port/gateway.ts';
import { contextDeps } from './composition.ts';
import { watchPlatformHealth, type PlatformHealthWatch } from '../platform/shopify/health.ts';
import { createWarmUp, type WarmUpReport } from '../http/admission/warm-up.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Which connected stores do not answer, as this process last read it (`refresh()` re-reads now). */
    platformHealth: PlatformHealthWatch;
  }
}

export interface AppOptions {
  config: Config;
  orm: Orm;
  platform?: PlatformGatewayFactory;
  logger?: FastifyServerOptions['logger'];
  exposeQueryCount?: boolean;
  /**
   * Counters kept elsewhere than this process's memory when REDIS_URL is unset: a worker of
   * `bomcore serve --workers N` passes its primary's (src/http/limits/cluster-counters.ts).
   */
  sharedCounters?: { limiter: RateLimiter; failureCounter: FailureCounter };
}

export interface App extends FastifyInstance {
  /** Stops taking requests: everything but health checks answers 503 from here on. */
  beginShutdown(): void;
  /**
   * Runs each read route once in-process, for a shop no shop has, before the server listens
   * (BOMCORE_WARM_UP; src/http/admission/warm-up.ts): the first client request then costs what later ones do.
   * Reads no shop's data, writes nothing, never throws.
   */
  warmUp(options?: { budgetMs?: number }): Promise<WarmUpReport>;
}

/** Whether the log is short text: asked for, or `auto` with stdout a terminal a person reads. */
const logsAsText = (format: Config['logFormat']) => format === 'text' || (format === 'auto' && process.stdout.isTTY === true);

export async function buildApp(options: AppOptions): Promise<App> {
  const { config, orm } = options;
  const warmUp = createWarmUp();
  const app = Fastify({
    // Repeated failures logged once per window with a count, every logged value cut at 2 KB (src/http/errors/log-limits.ts).
    // On a terminal (LOG_FORMAT=auto) or with LOG_FORMAT=text: one short line per request and event (src/http/errors/text-log.ts).
    logger: options.logger ?? {
      level: config.logLevel, ...logOptions({ repeatWindowSeconds: config.logRepeatWindowSeconds }),
      ...(logsAsText(config.logFormat) ? { stream: textLogStream(process.stdout) } : {}),
    },
    genReqId: requestIdFor,
    // The start-up warm-up's requests log nothing of their own (it logs what it did, src/http/admission/warm-up.ts).
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: (request: { headers: IncomingHttpHeaders }) => warmUp.owns(request) }),
    bodyLimit: config.bodyLimitBytes,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    // Router and HTTP-parser refusals are problem+json with X-Request-Id too (src/http/errors/error-handler.ts).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // A request without Host is refused by registerHostRequirement (problem+json), not by Node's bare 400.
    http: HTTP_SERVER_OPTIONS,
    // TRUST_PROXY: the client address (request.ip, the failed-authentication throttle's key) from X-Forwarded-For.
    trustProxy: fastifyTrustProxy(config.trustProxy),
  }) as unknown as App;

  // Every answer with a response schema (the REST routes, the OpenAPI document, problems) is written by
  // JSON.stringify before it reaches Fastify, which sends a string as it is: the schemas are there for
  // the OpenAPI document, not for writing. Fastify would still compile a fast-json-stringify serializer
  // (and its Ajv validators) per route and status at start-up — about 40% of building the app and most
  // of its memory, for code that never ran. This compiler writes what it is given, as the routes do.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  let shuttingDown = false;
  app.beginShutdown = () => {
    shuttingDown = true;
  };
  app.decorateRequest('auth', null);
  // Cheap requests go first: a costly request's yields wait for them (src/kernel/cooperative.ts). First hook, so all run in the turn.
  registerRequestTurns(app);
  const silent = app.log.child({}, { level: 'silent' });
  app.addHook('onRequest', async (request, reply) => {
    if (warmUp.owns(request)) request.log = reply.log = silent;
    reply.header('X-Request-Id', request.id);
    if (shuttingDown && !request.url.startsWith('/healthz')) {
      reply.header('Retry-After', '5');
      return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: 'the server is shutting down' });
    }
    return undefined;
  });
  registerHostRequirement(app);
  // CORS_ORIGINS: preflights answered here, before any hook that could refuse them (src/http/requests/cors.ts).
  await registerCors(app, config.corsOrigins);
  registerErrorHandling(app);
  // Fair sharing: shed new requests while the event loop keeps lagging; answer 503 at the deadline.
  registerLoadShedding(app, config.loadShedLagMs);
  registerDeadline(app, config.requestDeadlineMs);
  // ETag and `private, no-cache` on reads of shop data, 304 for a matching If-None-Match (src/http/requests/conditional-get.ts);
  // registered first, so the security headers' `no-store` stays on everything else.
  // Which connected stores do not answer (re-read every few seconds, one statement per process): their shops' answers
  // say so (meta.warnings), with the age of their platform data, judged by the read's clock; the tag holds them too.
  const platformHealth = watchPlatformHealth({
    orm, intervalMs: config.platformHealthIntervalMs,
    onError: (error) => app.log.warn({ err: error }, 'reading the platform connections\' health failed'),
  });
  app.decorate('platformHealth', platformHealth);
  app.addHook('onClose', () => platformHealth.stop());
  const platformWarnings = new WeakMap<FastifyRequest, PlatformWarning[]>();
  const warningsOf = (request: FastifyRequest): PlatformWarning[] => {
    let warnings = platformWarnings.get(request);
    if (!warnings) {
      warnings = request.auth ? platformHealth.health.warningsFor(request.auth.shopId, answerClockOf(request).now) : [];
      platformWarnings.set(request, warnings);
    }
    return warnings;
  };
  registerConditionalGet(app, { answerNotes: warningsOf });
  registerSecurityHeaders(app);
  // Idempotency-Key on PATCH (root hooks: registered before the facade so its routes inherit them). A key is
  // held until the request's deadline; its outcome commits with the write (src/http/requests/idempotency-hooks.ts).
  const idempotency = registerIdempotency(app, { orm, holdMs: config.requestDeadlineMs });
  // On the embedded database, the lock file names where this server listens (for a refused second process).
  app.addHook('onListen', async () => recordListenAddress(orm, app.listeningOrigin));
  // Bodies are JSON or nothing: without the text parser, any other media type is 415.
  app.removeContentTypeParser('text/plain');
  // JSON bodies nested deeper than MAX_JSON_DEPTH are 400 before JSON.parse (src/http/requests/json-body.ts).
  registerJsonBodyParser(app);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config as { methodNotAllowed?: boolean } | undefined;
    if (request.method === 'PATCH' && request.url.startsWith('/api/v1/') && !request.is404 && !config?.methodNotAllowed) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        return sendProblem(request, reply, { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'send the body as Content-Type: application/json' });
      }
    }
    return undefined;
  });

  // REDIS_URL: one budget per key across every instance (fails open when Redis is down); else in process memory
  // (the cluster primary's, for a worker of `serve --workers N`).
  let limiter: RateLimiter;
  if (config.redisUrl) {
    const shared = new RedisRateLimiter({
      url: config.redisUrl, burst: config.rateLimitBurst, refillPerSecond: config.rateLimitRefillPerSecond, keyPrefix: config.redisKeyPrefix,
      logger: app.log.child({ component: 'rate-limit' }),
    });
    await shared.connect();
    app.addHook('onClose', () => shared.close());
    limiter = shared;
  } else {
    limiter = options.sharedCounters?.limiter ?? new TokenBucketLimiter(config.rateLimitBurst, config.rateLimitRefillPerSecond);
  }
  // More than BOMCORE_AUTH_FAILURES_PER_MINUTE failed keys from one address: 429 until the minute ends, for keys
  // not known valid (shared through Redis with REDIS_URL; src/http/auth/auth-throttle.ts).
  const { throttle: authThrottle, close: closeAuthThrottle } = await createAuthThrottle({
    config, orm, logger: app.log.child({ component: 'auth-throttle' }), counter: options.sharedCounters?.failureCounter,
  });
  app.addHook('onClose', closeAuthThrottle);
  // The warm-up's requests: their own bucket, no throttle, and a stand-in key once the lookup finds theirs unknown.
  const warmUpAuth = { orm, limiter: warmUp.limiter, standIn: warmUp.standIn };
  const authorize = (request: Parameters<typeof authorizeRequest>[1], reply: Parameters<typeof authorizeRequest>[2], scope: 'read' | 'write') =>
    authorizeRequest(warmUp.owns(request) ? warmUpAuth : { orm, limiter, authThrottle }, request, reply, scope);
  // Rate-limit tokens: one per REST call, one per root field of a /graphql operation (the REST calls it stands for).
  // Work (rows, ids) decides admission: a costly request waits its turn, fairly by shop, and its costly root fields
  // run one at a time (src/http/admission/work-gate.ts): heavy work of one shop does not hold the others.
  const gate = registerWorkGate(app, { concurrency: config.heavyConcurrency, heavyWork: config.heavyWork });
  const charge = async (request: Parameters<typeof chargeRequest>[1], reply: Parameters<typeof chargeRequest>[2], price: OperationPrice) =>
    (await chargeRequest({ limiter: warmUp.owns(request) ? warmUp.limiter : limiter }, request, reply, price.tokens)) && gate.admit(request, reply, price.work);
  // The platform port of every request's context: the given adapter (the local store by default) with the outbox's pending pushes.
  const deps = contextDeps(orm, config, options.platform);
  const makeContext = (request: Parameters<typeof createShopContext>[1]) =>
    withWorkLane(createShopContext(deps, request), gate.laneOf(request));

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await orm.em.fork().execute('select 1');
      return { status: 'ready' };
    } catch (error) {
      request.log.error({ err: error }, 'database unreachable');
      reply.header('Retry-After', RETRY_AFTER_SECONDS);
      return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: 'the database is unreachable' });
    }
  });

  // Shopify's webhooks: signed raw bodies into the shop's inbox, applied in the background (src/http/ingress/shopify-webhooks.ts).
  await registerShopifyWebhooks(app, { orm, secret: config.shopifyApiSecret });
  // The install link (GET /shopify/install, /shopify/callback; src/http/ingress/shopify-install.ts): a store links itself and
  // its first sync runs in the background, awaited at close.
  const installSyncs = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...installSyncs]);
  });
  await registerShopifyInstall(app, {
    orm, app: installAppOf(config), publicUrl: config.publicUrl, endpoint: config.shopifyEndpoint,
    scopesFor: (domain) => installScopes(orm, domain),
    link: async (input) => {
      const linked = await linkInstalledStore(orm, config, input, (error) => app.log.warn({ err: error, domain: input.domain }, 'the first sync after an install failed (bomcore shop status shows it)'));
      installSyncs.add(linked.firstSync);
      void linked.firstSync.finally(() => installSyncs.delete(linked.firstSync));
      return linked;
    },
  });

  const schema = getSchema();
  installWorkLanes(schema);
  registerValidators(app, [ProblemSchema, MetaSchema]);
  await registerSwagger(app);
  // The routes the warm-up runs: the facade's reads (registered next).
  warmUp.collectRoutes(app, '/api/v1/');
  // The REST reference page at /api/v1/docs, from the same document (BOMCORE_API_DOCS; src/http/pages/api-reference.ts).
  if (config.apiDocs) await registerApiReference(app);
  // The facade goes through GraphQL only; the SQL round-trip count (X-Query-Count) is taken here.
  const runCounted = async <T>(run: () => Promise<T>) => {
    const stats: QueryStats = { count: 0, queries: [] };
    const value = await withQueryStats(run, stats);
    return { value, queryCount: stats.count };
  };
  await app.register(restFacade, {
    prefix: REST_PREFIX, schema, authorize, charge, runCounted, exposeQueryCount: options.exposeQueryCount ?? config.exposeQueryCount, warningsFor: warningsOf,
    makeContext: (request: Parameters<typeof createShopContext>[1]) => idempotency.contextFor(request, makeContext(request)),
  });

  // Subscriptions: committed events from every instance (LISTEN), for graphql-ws clients of /graphql.
  // Sockets authenticate through the failed-auth throttle, and a connection and each event sent spend the key's budget.
  const subscriptions = await liveSubscriptions(app, {
    orm, limits: config.live, authThrottle, limiter, contextFor: (key, connectionId) => shopContextFor(deps, key.shopId, { requestId: connectionId, apiKeyId: key.keyId, scopes: key.scopes }),
  });
  await registerGraphql(app, {
    subscriptions,
    schema, checkInput: checkOperationInput, config: config.graphql, authorize, charge, makeContext, exposeQueryCount: options.exposeQueryCount ?? config.exposeQueryCount,
    warningsFor: (shopId: string) => platformHealth.health.warningsFor(shopId),
  });
  // GET /api/v1 (an index of the REST resources) and GET /graphql/schema.graphql (the client SDL,
  // where introspection is on); then GET /: a public index of what this server offers, registered
  // last (src/http/pages/index-page.ts).
  registerApiIndex(app, '/api/v1');
  if (config.graphql.introspection) registerSchemaSdl(app, printSchemaSdl);
  registerIndexPage(app);

  // After the REST reads, one /graphql operation: mercurius's own path (parse, validate, compile, execute).
  const graphqlWarmUp = { method: 'POST' as const, url: '/graphql', body: { query: 'query WarmUp { locations { locationId locationGid name } }' } };
  app.warmUp = (warmUpOptions) => warmUp.run(app, app.log.child({ component: 'warm-up' }), { ...warmUpOptions, extra: [graphqlWarmUp] });

  return app;
}
