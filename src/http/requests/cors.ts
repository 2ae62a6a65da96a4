import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CorsOrigins } from '../../kernel/config.ts';

// CORS_ORIGINS is parsed with the rest of the configuration (src/kernel/config.ts, parseCorsOrigins).

/** Methods a browser may send, by scope. */
const METHODS_BY_SCOPE = { rest: 'GET, PATCH', graphql: 'GET, POST' } as const;
/** Request headers a browser may send: the key, the body type, the retry key of a PATCH. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key'];
/** Response headers a browser script may read: the id to quote, the rate limit, the retry hints. */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotency-Replayed', 'Allow'];
/** Seconds a browser may cache a preflight answer (Chromium caps it at 7200). */
export const CORS_MAX_AGE_SECONDS = 600;

/** The part of the server CORS applies to: the REST API and /graphql (not /healthz, /readyz, GraphiQL). */
function scopeOf(url: string): keyof typeof METHODS_BY_SCOPE | null {
  const path = url.split('?')[0]!;
  if (path.startsWith('/api/v1/')) return 'rest';
  if (path === '/graphql') return 'graphql';
  return null;
}

const OFF: FastifyCorsOptions = { origin: false };

/**
 * Registers @fastify/cors in an `onRequest` hook (register it before the hooks that may refuse a
 * request, so their answers carry the CORS headers too and a preflight is answered before them).
 * A preflight (OPTIONS with Origin and Access-Control-Request-Method) to `/api/v1/*` or
 * `/graphql` from an allowed origin is 204 with Allow-Origin/Methods/Headers and Max-Age; any
 * other request from an allowed origin gets Allow-Origin and Expose-Headers. A request with no
 * Origin, from an origin not allowed, or to another path gets no CORS header, and an OPTIONS that
 * is not a preflight reaches the route (405 / 404) as without CORS.
 */
export async function registerCors(app: FastifyInstance, origins: CorsOrigins): Promise<void> {
  if (origins === null) return;
  const delegator = (request: FastifyRequest, callback: (error: Error | null, options?: FastifyCorsOptions) => void) => {
    const scope = scopeOf(request.url);
    const origin = request.headers.origin;
    if (!scope || !origin || (origins !== '*' && !origins.includes(origin.toLowerCase()))) return callback(null, OFF);
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    callback(null, {
      // An explicit list reflects the request's origin (Vary: Origin is set); `*` stays `*`.
      origin: origins === '*' ? '*' : origin,
      methods: METHODS_BY_SCOPE[scope],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: CORS_MAX_AGE_SECONDS,
      preflight,
      strictPreflight: false,
    });
  };
  await app.register(fastifyCors, { hook: 'onRequest', delegator });
}
