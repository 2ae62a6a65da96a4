import type { TSchema } from '@sinclair/typebox';
import type { FacadeRoute } from './define-route.ts';
import { envelopeSchema } from './envelope.ts';
import { PatchHeaders, problemResponses } from './openapi.ts';

/**
 * The Fastify schema of a facade route, given its derived `data` schema (derive-schema.ts): what
 * Fastify validates the request with, and what @fastify/swagger turns into the route's operation in
 * the OpenAPI document. The server (plugin.ts) and `bomcore print-openapi` (openapi-document.ts)
 * both build it here, so the document printed is the document served.
 */
export function facadeRouteSchema(route: FacadeRoute, data: TSchema) {
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    security: [{ bearerAuth: [] }],
    ...(route.plan ? { 'x-plan': route.plan } : {}),
    ...(route.querystring ? { querystring: route.querystring } : {}),
    ...(route.params ? { params: route.params } : {}),
    ...(route.body ? { body: route.body } : {}),
    ...(route.method === 'PATCH' ? { headers: PatchHeaders } : {}),
    response: { 200: { description: 'OK', ...envelopeSchema(data) }, ...problemResponses(route) },
  };
}
