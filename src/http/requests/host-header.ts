import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../errors/problem.ts';

/**
 * Node's own check for an HTTP/1.1 request without `Host` (`requireHostHeader`) answers a bare 400
 * before Fastify sees the request: no problem+json, no X-Request-Id. The server turns that check
 * off (`http: HTTP_SERVER_OPTIONS` in src/app/app.ts) and makes it here, as a problem+json 400 that
 * goes through the same hooks as every other refusal. HTTP/1.0 has no Host requirement.
 */
export const HTTP_SERVER_OPTIONS = { requireHostHeader: false };

export function registerHostRequirement(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1 && request.headers.host === undefined) {
      return sendProblem(request, reply, {
        code: 'INVALID_INPUT', detail: 'an HTTP/1.1 request must carry a Host header',
        errors: [{ field: 'Host', message: 'is required (HTTP/1.1)' }],
      });
    }
    return undefined;
  });
}
