import type { FastifyInstance } from 'fastify';

/** The GraphiQL page and its assets: scripts and styles must run there, and assets may be cached. */
const GRAPHIQL_PREFIX = '/graphiql';

/** Headers every response carries (set unless the route set its own). */
const ALWAYS: Record<string, string> = {
  // Browsers must not guess a type (a JSON body sniffed as HTML would run script).
  'X-Content-Type-Options': 'nosniff',
  // No page of this server is framed (clickjacking); `frame-ancestors` says it again for CSP-aware browsers.
  'X-Frame-Options': 'DENY',
  // URLs (ids, search terms) do not leak to other sites through Referer.
  'Referrer-Policy': 'no-referrer',
};

/**
 * API responses (everything but GraphiQL and the API reference): never stored by a cache, and nothing in
 * them may load or run anything. Reads of shop data set their own `Cache-Control: private, no-cache`
 * with an ETag first (src/http/requests/conditional-get.ts); errors, key refusals and writes keep `no-store`.
 */
const API: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

/** GraphiQL keeps its scripts; only framing is forbidden. */
const GRAPHIQL: Record<string, string> = {
  'Content-Security-Policy': "frame-ancestors 'none'",
};

/** The REST reference page and its assets (src/http/pages/api-reference.ts): Swagger UI's scripts and styles run, from this server only. */
const API_DOCS_PREFIX = '/api/v1/docs';

/** Scripts, styles, the document and "Try it out" calls from this origin only; images also inline; no framing. */
const API_DOCS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; "
    + "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
};

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`);
}

/**
 * Adds the security headers to every response, errors and 404s included (an `onSend` hook, so it
 * also covers replies sent by hooks and error handlers).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const path = request.url;
    const page = under(path, GRAPHIQL_PREFIX) ? GRAPHIQL : under(path, API_DOCS_PREFIX) ? API_DOCS : API;
    for (const headers of [ALWAYS, page]) {
      for (const [name, value] of Object.entries(headers)) if (!reply.hasHeader(name)) reply.header(name, value);
    }
    return payload;
  });
}
