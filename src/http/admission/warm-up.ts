import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RouteOptions } from 'fastify';
import { KEY_PREFIX, type AuthenticatedKey } from '../../modules/auth/keys.ts';
import { TokenBucketLimiter, type RateLimiter } from '../limits/rate-limiter.ts';

// The start-up warm-up (BOMCORE_WARM_UP, on by default): before `serve` listens, each read route of
// the API runs once in-process (app.inject), so that the first client request of a fresh process does
// not pay for the process's first run of the request path — V8 compiling the hooks, the key lookup,
// the facade, the stored operation's resolvers, the validators and serializers, and the first
// statements on a database connection (docs/performance.md, "First read ÷ warm p50").
// (Answers are written by JSON.stringify, rest-facade/plugin.ts: no response serializer to compile.)
//
// It reads no shop's data and writes nothing. Its requests carry a key made up for this process
// (accepted only while the warm-up runs, i.e. before the server listens): the key lookup runs its
// statement and finds no row, and the request then stands for a shop id no shop has. Every read
// answers empty or NOT_FOUND. Its rate-limit tokens come from a bucket of its own, the
// failed-authentication throttle never sees it, and its requests log nothing of their own.

/** Path parameters and required query values no route defaults are filled with this (an id no shop has). */
const PLACEHOLDER = 'warm-up';

/** What the warm-up did: routes run, the statuses they answered, how long it took. */
export interface WarmUpReport {
  ran: number;
  skipped: number;
  ms: number;
  /** `GET /api/v1/x → 500`, for answers other than 2xx / 404 (a route the warm-up could not exercise). */
  unexpected: string[];
}

export interface WarmUp {
  /** True for a request of the warm-up: only while it runs, and only with this process's made-up key. */
  owns(request: { headers: IncomingHttpHeaders }): boolean;
  /** The key a warm-up request stands for once the lookup found none: a shop id no shop has, read scope. */
  readonly standIn: AuthenticatedKey;
  /** The warm-up's own rate-limit bucket: it spends no client's tokens (nor Redis's, nor a cluster primary's). */
  readonly limiter: RateLimiter;
  /** Collects the routes to run: GET routes of `prefix`, not hidden from the API reference. Register before the routes. */
  collectRoutes(app: FastifyInstance, prefix: string): void;
  /**
   * Runs every collected route once, then `extra` (e.g. a /graphql operation), one at a time,
   * and stops starting new ones after `budgetMs`. Never throws: a failure is logged at info.
   */
  run(app: FastifyInstance, log: FastifyBaseLogger, options?: { budgetMs?: number; extra?: WarmUpRequest[] }): Promise<WarmUpReport>;
}

export interface WarmUpRequest { method: 'GET' | 'POST'; url: string; body?: unknown }

interface ParamSchema { const?: unknown; enum?: unknown[]; anyOf?: ParamSchema[]; default?: unknown; items?: ParamSchema; properties?: Record<string, ParamSchema>; required?: string[] }

/** A value the schema accepts: its first literal when it has literals, else the placeholder. */
function exampleOf(schema: ParamSchema | undefined): string {
  const literal = schema?.const ?? schema?.enum?.[0] ?? schema?.anyOf?.find((s) => s.const !== undefined)?.const;
  return literal === undefined ? PLACEHOLDER : String(literal);
}

/** The URL of one run of a route: every path parameter, and each required query value without a default. */
export function warmUpUrl(route: Pick<RouteOptions, 'url' | 'schema'>): string {
  const schema = route.schema as { params?: ParamSchema; querystring?: ParamSchema } | undefined;
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(exampleOf(schema?.params?.properties?.[name])));
  const query = new URLSearchParams();
  const qs = schema?.querystring;
  for (const name of qs?.required ?? []) {
    const property = qs?.properties?.[name];
    if (property?.default === undefined) query.set(name, exampleOf(property?.items ?? property));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

export function createWarmUp(): WarmUp {
  let secret: Buffer | null = null;
  const routes: WarmUpRequest[] = [];
  // A shop id no shop has (nor can be given by `bomcore`: shop ids have no spaces), new per process.
  const standIn: AuthenticatedKey = { keyId: 'warm-up', shopId: `warm-up ${randomBytes(6).toString('hex')}`, scopes: ['read'], dataVersion: '0' };
  const limiter = new TokenBucketLimiter(1_000_000, 1_000_000);
  const owns = (request: { headers: IncomingHttpHeaders }): boolean => {
    if (secret === null) return false;
    const sent = request.headers.authorization;
    if (typeof sent !== 'string' || sent.length !== secret.length) return false;
    return timingSafeEqual(Buffer.from(sent), secret);
  };
  return {
    owns,
    standIn,
    limiter,
    collectRoutes(app, prefix) {
      app.addHook('onRoute', (route) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
        if (!methods.includes('GET') || hidden || !route.url.startsWith(prefix)) return;
        routes.push({ method: 'GET', url: warmUpUrl(route) });
      });
    },
    async run(app, log, options = {}) {
      const started = performance.now();
      const budgetMs = options.budgetMs ?? 2_000;
      const report: WarmUpReport = { ran: 0, skipped: 0, ms: 0, unexpected: [] };
      const key = `Bearer ${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      secret = Buffer.from(key);
      try {
        const all = [...routes, ...(options.extra ?? [])];
        for (const [i, request] of all.entries()) {
          if (performance.now() - started > budgetMs) {
            report.skipped = all.length - i;
            break;
          }
          try {
            const response = await app.inject({
              method: request.method, url: request.url, headers: { authorization: key, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
              ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
            });
            report.ran += 1;
            if (response.statusCode >= 300 && response.statusCode !== 404) report.unexpected.push(`${request.method} ${request.url} → ${response.statusCode}`);
          } catch (error) {
            report.unexpected.push(`${request.method} ${request.url} → ${(error as Error).message}`);
          }
        }
      } finally {
        secret = null;
      }
      report.ms = Math.round(performance.now() - started);
      // Routes left when the budget ran out are not a fault (their first request compiles them): only
      // an answer other than 2xx/404 is worth a warning; a start where nothing is wrong warns about nothing.
      if (report.unexpected.length) log.warn({ warmUp: report }, 'start-up warm-up: some routes did not answer as expected; serving anyway');
      else log.info({ warmUp: report }, 'start-up warm-up done');
      return report;
    },
  };
}
