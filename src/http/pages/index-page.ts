import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../errors/problem.ts';

/** One entry of the index: where it is, whether it needs a key, what it is. */
interface IndexLink {
  href: string;
  public: boolean;
  description: string;
}

/**
 * Whether the client asks for HTML before JSON (a browser's address bar does: `text/html,…,*\/*;q=0.8`).
 * `application/json`, `application/*` and `*\/*` count for JSON; without an Accept header the answer is JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const range of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(quality)) continue;
    if (type === 'text/html') html = Math.max(html, quality);
    else if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, quality);
  }
  return html > 0 && html > json;
}

/** What this server offers, read from its routes (a page turned off by configuration is not listed). */
function indexLinks(app: FastifyInstance): Record<string, IndexLink> {
  const served = (url: string) => app.hasRoute({ method: 'GET', url });
  const links: Record<string, IndexLink | null> = {
    restApi: { href: '/api/v1', public: true, description: 'REST API v1: the base of every route; GET it for an index of the resources (each route takes Authorization: Bearer <API key>)' },
    openapi: { href: '/api/v1/openapi.json', public: true, description: 'The OpenAPI 3.1 document of REST API v1, for code generators' },
    apiReference: served('/api/v1/docs') ? { href: '/api/v1/docs', public: true, description: 'The REST API reference, in the browser' } : null,
    graphql: { href: '/graphql', public: false, description: 'GraphQL: POST a JSON body {"query": "…", "variables": {…}} with Authorization: Bearer <API key>' },
    graphqlSchema: served(SDL_PATH) ? { href: SDL_PATH, public: true, description: 'The GraphQL schema (SDL), for code generators' } : null,
    graphiql: served('/graphiql') ? { href: '/graphiql', public: true, description: 'GraphiQL, an in-browser GraphQL IDE (put your key in its Headers tab)' } : null,
    health: { href: '/healthz', public: true, description: 'Liveness: 200 while the process serves requests' },
    readiness: { href: '/readyz', public: true, description: 'Readiness: 200 when the database answers, else 503' },
  };
  return Object.fromEntries(Object.entries(links).filter((entry): entry is [string, IndexLink] => entry[1] !== null));
}

/** Where the client SDL is served, beside /api/v1/openapi.json's role for REST. */
export const SDL_PATH = '/graphql/schema.graphql';

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function indexHtml(links: Record<string, IndexLink>): string {
  // The REST base is a prefix, not a page: shown, not linked.
  const items = Object.entries(links).map(([, link]) => {
    const where = `<a href="${escapeHtml(link.href)}">${escapeHtml(link.href)}</a>`;
    return `<li>${where}${link.public ? '' : ' (API key)'}: ${escapeHtml(link.description)}</li>`;
  });
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>bomcore</title></head><body>\n`
    + `<h1>bomcore</h1>\n<p>Raw materials, bills of materials and work orders, over REST and GraphQL (API ${API_VERSION}).</p>\n`
    + `<ul>\n${items.join('\n')}\n</ul>\n`
    + '<p>A key is made with <code>bomcore key create</code>; send it as <code>Authorization: Bearer &lt;API key&gt;</code>.</p>\n</body></html>\n';
}

/**
 * `GET /`: where things are, public (no key, no shop data). JSON, or a small HTML page when the
 * client prefers text/html (a browser). Registered after every other route: it lists what is served.
 */
export function registerIndexPage(app: FastifyInstance): void {
  let links: Record<string, IndexLink> | undefined;
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    links ??= indexLinks(app);
    reply.header('Vary', 'Accept');
    if (prefersHtml(request.headers.accept)) return reply.type('text/html; charset=utf-8').send(indexHtml(links));
    return reply.type('application/json').send({
      service: 'bomcore',
      apiVersion: API_VERSION,
      authentication: 'Authorization: Bearer <API key> (made with `bomcore key create`) on every link that is not public',
      links,
    });
  });
}

/**
 * `GET /api/v1`: a small public index of REST API v1 (no key, no shop data): where the OpenAPI
 * document and the reference are, how to authenticate, and each resource with its base path, read
 * from the routes the OpenAPI document describes. `GET /` links here, so it answers rather than 404.
 */
export function registerApiIndex(app: FastifyInstance, prefix: string): void {
  let index: Record<string, unknown> | undefined;
  app.get(prefix, { schema: { hide: true } }, async (_request, reply) => {
    index ??= apiIndex(app, prefix);
    return reply.type('application/json').send(index);
  });
}

function apiIndex(app: FastifyInstance, prefix: string): Record<string, unknown> {
  const paths = Object.keys((app.swagger() as { paths?: Record<string, unknown> }).paths ?? {}).filter((path) => path.startsWith(`${prefix}/`));
  const resources: Record<string, string> = {};
  for (const path of paths.sort()) {
    const [resource = ''] = path.slice(prefix.length + 1).split('/');
    if (resource && !resource.includes('.') && resource !== 'docs') resources[resource] ??= `${prefix}/${resource}`;
  }
  return {
    service: 'bomcore',
    apiVersion: API_VERSION,
    authentication: 'Authorization: Bearer <API key> (made with `bomcore key create`) on every resource',
    openapi: `${prefix}/openapi.json`,
    ...(app.hasRoute({ method: 'GET', url: `${prefix}/docs` }) ? { reference: `${prefix}/docs` } : {}),
    resources,
  };
}

/**
 * `GET /graphql/schema.graphql`: the client SDL, public like the OpenAPI document, for code generators
 * (the same text as schema/schema.graphql). Served only where introspection is on: both reveal the schema.
 */
export function registerSchemaSdl(app: FastifyInstance, sdl: () => string): void {
  let text: string | undefined;
  app.get(SDL_PATH, { schema: { hide: true } }, async (_request, reply) => {
    text ??= sdl();
    return reply.type('text/plain; charset=utf-8').send(text);
  });
}
