import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** The REST API reference page; its assets live under `${API_REFERENCE_PATH}/static/`. */
export const API_REFERENCE_PATH = '/api/v1/docs';

/** A plain-text mark for the top bar instead of the package's default (Fastify's) logo. */
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40" viewBox="0 0 220 40">'
  + '<text x="0" y="28" font-family="sans-serif" font-size="24" font-weight="bold" fill="#ffffff">bomcore REST API</text></svg>';

/**
 * The REST API reference at /api/v1/docs: Swagger UI (@fastify/swagger-ui) rendering the document that
 * `GET /api/v1/openapi.json` serves (both read `app.swagger()`; the page loads it from `./json`).
 * Every script, style and image comes from this server (the package's own copy of Swagger UI): no CDN,
 * no call to an online validator, so the page works offline and behind a strict egress policy.
 *
 * The page and its assets need no key; "Authorize" takes a key for "Try it out", kept in the page only
 * (not persisted). Security headers: `src/http/requests/security-headers.ts` gives this prefix a policy that lets
 * the page's own scripts and styles run. Registered after `registerSwagger` (it reads the document
 * @fastify/swagger builds); on unless NODE_ENV=production, and there only with BOMCORE_API_DOCS=1.
 */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: API_REFERENCE_PATH,
    validatorUrl: false,
    logo: { type: 'image/svg+xml', content: LOGO },
    theme: { title: 'bomcore REST API reference' },
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      displayOperationId: true,
      filter: true,
      // The key typed in "Authorize" stays in the page (not in localStorage). Swagger UI ignores `?url=` /
      // `?configUrl=` in the page's address by default: a link cannot make the page render another document.
      persistAuthorization: false,
    },
  });
}
