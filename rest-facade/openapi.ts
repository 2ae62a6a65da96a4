import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { API_VERSION, STATUS_BY_CODE } from '../src/http/errors/problem.ts';
import type { FacadeRoute } from './define-route.ts';
import { MetaSchema } from './envelope.ts';
import { EnumOf } from './graphql-enums.ts';
import { finishOpenApiDocument } from './openapi-finish.ts';

export const ProblemSchema = Type.Object(
  {
    type: Type.Literal('about:blank'),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    // The vocabulary of src/http/errors/problem.ts: a new code is documented (and validated) at once.
    code: Type.Union(Object.keys(STATUS_BY_CODE).map((c) => Type.Literal(c))),
    requestId: Type.String(),
    apiVersion: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: false, title: 'FieldError' }))),
    blockers: Type.Optional(Type.Array(Type.Object({ code: EnumOf('UserErrorBlockerCode'), message: Type.String() }, { additionalProperties: false, title: 'Blocker' }))),
    missing: Type.Optional(Type.Array(Type.Object({ kind: Type.String(), id: Type.String() }, { additionalProperties: false, title: 'MissingReference' }))),
    plan: Type.Optional(Type.Object({
      required: Type.String({ description: 'The plan the operation needs (its `x-plan`).' }),
      current: Type.String({ description: 'The shop\'s plan.' }),
    }, { additionalProperties: false, title: 'PlanNeeded', description: 'PLAN_REQUIRED only: the plan the operation needs and the shop\'s plan.' })),
  },
  { $id: 'Problem', additionalProperties: false, description: 'RFC 9457 problem details with bomcore extension members.' },
);

/** The 403 of an operation that needs a plan (its `x-plan`): the key's scope or the shop's plan. */
const PLAN_FORBIDDEN = 'plan-403';

const PROBLEM_TEXT: Record<number | string, string> = {
  400: 'Invalid input (INVALID_INPUT); `errors` names each field.',
  401: 'Missing, malformed, unknown, expired or revoked API key (UNAUTHENTICATED).',
  403: 'The API key lacks the route\'s scope (FORBIDDEN_SCOPE).',
  [PLAN_FORBIDDEN]: 'The API key lacks the route\'s scope (FORBIDDEN_SCOPE), or the shop\'s plan does not include this operation (PLAN_REQUIRED: `plan` names the plan it needs and the shop\'s plan).',
  404: 'Not found (NOT_FOUND); objects of another shop are reported as not found.',
  405: 'Another method on this path (METHOD_NOT_ALLOWED): `Allow` lists the methods it has. Answered before the key or a body is looked at.',
  409: 'Conflict (CONFLICT): stale expectedUpdatedAt or a move that is not allowed; `blockers` names why.',
  413: 'Body over 1 MiB (PAYLOAD_TOO_LARGE).',
  415: 'PATCH without Content-Type: application/json (UNSUPPORTED_MEDIA_TYPE).',
  422: 'The Idempotency-Key was used with another request in the last 24 h (IDEMPOTENCY_KEY_REUSED).',
  429: 'Over the API key\'s rate limit (RATE_LIMITED); see Retry-After.',
  500: 'Unexpected error (INTERNAL), logged with the request id.',
  503: 'Database or platform unreachable, shutting down, or a write rolled back whole because it collided with a concurrent one (a deadlock): nothing was written (UNAVAILABLE); see Retry-After.',
};

/** Headers of every PATCH: the optional Idempotency-Key (src/http/requests/idempotency-hooks.ts). */
export const PatchHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$',
    description: 'Makes a retry safe: for 24 h, the same key with the same method, path and body gets the stored response (header '
      + '`Idempotency-Replayed: true`) instead of running again; the same key with another request is 422 IDEMPOTENCY_KEY_REUSED; '
      + 'while the first request runs, 409 CONFLICT. 1–255 visible ASCII characters (a UUID, say); keys are per shop.',
  })),
});

/** Problem responses of a route: the common ones plus the route's own. */
export function problemResponses(route: Pick<FacadeRoute, 'method' | 'extraProblems' | 'plan'>) {
  return problemsOf([400, 401, 403, 405, 429, 500, 503, ...(route.method === 'PATCH' ? [409, 413, 415, 422] : []), ...(route.extraProblems ?? [])], route.plan !== undefined);
}

/** problem+json responses of these statuses (`planned`: the operation needs a plan, its 403 says so). */
function problemsOf(statuses: number[], planned = false) {
  return Object.fromEntries(
    [...new Set(statuses)].sort().map((s) => [s, {
      description: (planned && s === 403 ? PROBLEM_TEXT[PLAN_FORBIDDEN] : PROBLEM_TEXT[s]) ?? 'Error',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    }]),
  );
}

export const OPENAPI_DESCRIPTION = `bomcore REST API v1 (${API_VERSION}): raw materials and per-location stock, bills of materials and
their buildable quantities, order BOM breakdowns, work orders, assignees and locations.

Every route but this document (\`GET /api/v1/openapi.json\`, public) needs \`Authorization: Bearer <API key>\`
(keys are issued per shop with \`bomcore key create\`; scope \`read\` for GET, \`write\` for PATCH). Every 200 is \`{ data, meta: { requestId, apiVersion } }\`;
every error is RFC 9457 problem+json with \`code\`, \`requestId\`, \`apiVersion\` and, where they apply,
\`errors\`, \`blockers\`, \`missing\`. Every response carries \`X-Request-Id\` (a client value of 1–128
characters \`[A-Za-z0-9._:-]\` is echoed). Unknown query parameters are 400; unknown body fields are ignored.
Methods other than those documented answer 405 with \`Allow\`. Rate limit: a token bucket per key
(default burst 40, refill 4/s); every call spends one token, whatever its page size or number of ids (a
breakdown batch of 50 orders too), reported in \`RateLimit-Limit/Remaining/Reset\`.
Quantities and money are exact decimals with at most 6 fractional digits, written as JSON numbers.
Every GET of shop data (all but this document) answers 200 with an \`ETag\` and \`Cache-Control: private, no-cache\`: send the tag back in
\`If-None-Match\` and an unchanged answer is 304 with no body, before the read runs; any write of the shop that can change the answer changes the tag.
Errors, writes and key refusals are \`Cache-Control: no-store\`.`;

/** The schemas routes refer to by `$ref` (`Problem`, `Meta`): the app adds them (`addSchema`), and they become components. */
export const SHARED_SCHEMAS = [ProblemSchema, MetaSchema];

/**
 * The options of @fastify/swagger: the server registers it with them (registerSwagger), and `bomcore
 * print-openapi` builds the document with them from the same route schemas (openapi-document.ts).
 * A new object each call: @fastify/swagger puts parts of it into the document it builds.
 */
export const swaggerOptions = () => ({
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'bomcore REST API',
      version: API_VERSION,
      description: OPENAPI_DESCRIPTION,
      contact: { name: 'bomcore maintainers', url: 'https://github.com/bomcore/bomcore' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The bomcore server that serves this document (local, staging or production alike).' }],
    tags: [
      { name: 'raw-materials', description: 'Raw materials (platform-linked and virtual) and their per-location stock views.' },
      { name: 'assembly-bills', description: 'Assembly bills (sub-assemblies) and their pre-assembled stock.' },
      { name: 'bills-of-materials', description: 'Recipes of finished goods, costs, buildable quantities and location rules.' },
      { name: 'bill-versions', description: 'Saved versions of BOMs and assembly bills.' },
      { name: 'order-bom-breakdown', description: 'What the warehouse must pack for orders.' },
      { name: 'work-orders', description: 'Work orders, their material plans and build runs.' },
      { name: 'locations', description: 'Platform locations.' },
      { name: 'assignees', description: 'People work orders are assigned to.' },
      { name: 'openapi', description: 'This document.' },
    ],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A bomcore API key (bck_…).' } },
    },
  },
  hideUntagged: true,
  // Named components, optional defaults, examples and headers for code generators (openapi-finish.ts).
  transformObject: (document) => finishOpenApiDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
}) satisfies FastifyDynamicSwaggerOptions;

/** Registers @fastify/swagger; must run before the routes it documents. */
export async function registerSwagger(app: FastifyInstance): Promise<void> {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, swaggerOptions());
}

/** The document's own entry: an object (checked for its three required members), sent as built. */
const OpenApiDocumentSchema = Type.Object({
  openapi: Type.Literal('3.1.0'),
  info: Type.Object({ title: Type.String({ examples: ['bomcore REST API'] }), version: Type.Literal(API_VERSION) }),
  paths: Type.Object({}),
});

/** The document's own route, under the API's prefix: public, documented in the document it serves. */
export const OPENAPI_ROUTE = {
  method: 'GET',
  url: '/openapi.json',
  schema: {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 description of REST API v1, for code generators and the reference page. Public: no API key.',
    tags: ['openapi'],
    security: [],
    response: { 200: { description: 'The OpenAPI 3.1 document.', ...OpenApiDocumentSchema }, ...problemsOf([405, 500, 503]) },
  },
} as const;

/** `GET /openapi.json`: public (no key, so no rate-limit headers), no shop data; listed in the document it serves. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get(OPENAPI_ROUTE.url, { schema: OPENAPI_ROUTE.schema }, async (_request, reply) => {
    // Sent as text: the response schema above documents the document, it must not filter it.
    return reply.type('application/json').send(JSON.stringify(app.swagger()));
  });
}
