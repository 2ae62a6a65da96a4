import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * CORS (CORS_ORIGINS): which browser origins may call the API. `*` allows any origin; a list
 * allows those origins exactly; unset (null) leaves CORS off: no CORS header on any response, and
 * OPTIONS answers what it answers without CORS (405 on a REST path, 404 elsewhere).
 */
export type CorsOrigins = '*' | string[] | null;

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
