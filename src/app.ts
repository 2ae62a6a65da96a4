import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { getSchema } from '../schema/index.ts';
import { restFacade } from '../rest-facade/plugin.ts';
import { ProblemSchema, registerSwagger } from '../rest-facade/openapi.ts';
import { MetaSchema } from '../rest-facade/envelope.ts';
import type { Config } from './config.ts';
import type { Orm } from './db/orm.ts';
import { withQueryStats, type QueryStats } from './db/query-stats.ts';
import { authorizeRequest, createShopContext } from './http/auth.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { registerGraphql } from './http/graphql.ts';
import { sendProblem } from './http/problem.ts';
import { TokenBucketLimiter } from './http/rate-limiter.ts';
import { requestIdFor } from './http/request-id.ts';
import { registerValidators } from './http/validators.ts';
import type { PlatformGatewayFactory } from './platform/gateway.ts';

export interface AppOptions {
  config: Config;
  orm: Orm;
  platform?: PlatformGatewayFactory;
  logger?: FastifyServerOptions['logger'];
  exposeQueryCount?: boolean;
}

export interface App extends FastifyInstance {
  /** Stops taking requests: everything but health checks answers 503 from here on. */
  beginShutdown(): void;
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config, orm } = options;
  const platform = options.platform;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: config.bodyLimitBytes,
    exposeHeadRoutes: false,
    return503OnClosing: false,
  }) as unknown as App;

  let shuttingDown = false;
  app.beginShutdown = () => {
    shuttingDown = true;
  };
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (shuttingDown && !request.url.startsWith('/healthz')) {
      reply.header('Retry-After', '5');
      return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: 'the server is shutting down' });
    }
    return undefined;
  });
  registerErrorHandling(app);
  // Bodies are JSON or nothing: without the text parser, any other media type is 415.
  app.removeContentTypeParser('text/plain');
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

  const limiter = new TokenBucketLimiter(config.rateLimitBurst, config.rateLimitRefillPerSecond);
  const authorize = (request: Parameters<typeof authorizeRequest>[1], reply: Parameters<typeof authorizeRequest>[2], scope: 'read' | 'write') =>
    authorizeRequest({ orm, limiter }, request, reply, scope);
  const makeContext = (request: Parameters<typeof createShopContext>[1]) => createShopContext({ orm, config, ...(platform ? { platform } : {}) }, request);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await orm.em.fork().execute('select 1');
      return { status: 'ready' };
    } catch (error) {
      request.log.error({ err: error }, 'database unreachable');
      reply.header('Retry-After', '5');
      return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: 'the database is unreachable' });
    }
  });

  const schema = getSchema();
  registerValidators(app, [ProblemSchema, MetaSchema]);
  await registerSwagger(app);
  // The facade goes through GraphQL only; the SQL round-trip count (X-Query-Count) is taken here.
  const runCounted = async <T>(run: () => Promise<T>) => {
    const stats: QueryStats = { count: 0, queries: [] };
    const value = await withQueryStats(run, stats);
    return { value, queryCount: stats.count };
  };
  await app.register(restFacade, {
    prefix: '/api/v1', schema, authorize, makeContext, runCounted, exposeQueryCount: options.exposeQueryCount ?? config.exposeQueryCount,
  });

  await registerGraphql(app, {
    schema, config: config.graphql, authorize, makeContext, exposeQueryCount: options.exposeQueryCount ?? config.exposeQueryCount,
  });

  return app;
}
