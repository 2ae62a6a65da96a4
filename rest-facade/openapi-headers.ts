import { ETAG_PATTERN, MAX_IF_NONE_MATCH_LENGTH } from '../src/http/requests/conditional-get.ts';

/**
 * The response headers of the OpenAPI document (a step of finishOpenApiDocument, openapi-finish.ts):
 * what the server sends on each status, and the conditional GET of shop reads.
 */
type Json = Record<string, any>;

/** A count of seconds or rate-limit tokens in a header. */
const SECONDS_OR_TOKENS = { type: 'integer', format: 'int32', minimum: 0, maximum: 2147483647 };

const HEADERS: Json = {
  'Access-Control-Allow-Origin': {
    description: 'Only when CORS is configured (CORS_ORIGINS) and the request\'s Origin is one of the allowed origins: that origin.',
    schema: { type: 'string', maxLength: 2048 },
  },
  'X-Request-Id': {
    description: 'The request id (also `meta.requestId` or the problem\'s `requestId`); a client value of 1–128 characters [A-Za-z0-9._:-] is echoed.',
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'RateLimit-Limit': {
    description: 'Token-bucket size of the API key. Sent once the key is authenticated and the request charged (not on 401, 403 or input refused before).',
    schema: SECONDS_OR_TOKENS,
  },
  'RateLimit-Remaining': {
    description: 'Tokens left after this request (every call spends one, whatever its page size or number of ids).',
    schema: SECONDS_OR_TOKENS,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the bucket is full again.',
    schema: SECONDS_OR_TOKENS,
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: SECONDS_OR_TOKENS,
  },
  Allow: {
    description: 'The methods this path has (`GET`, `PATCH` or `GET, PATCH`).',
    required: true,
    schema: { type: 'string', enum: ['GET', 'PATCH', 'GET, PATCH'] },
  },
  ETag: {
    description: 'Strong validator of this answer (`"…"`): send it back in `If-None-Match`. It changes with every committed write of the shop that can change an answer, with the request (path, query, the key\'s scopes) and with a new release; two shops never share one. An answer that changes with the clock alone (a work order becoming OVERDUE) has a tag ending in `.<instant>`, which is current only until that instant.',
    required: true,
    schema: { type: 'string', maxLength: 100, pattern: ETAG_PATTERN },
  },
  'Cache-Control': {
    description: 'A cache may keep this answer for this caller only, and must revalidate it (If-None-Match) before each use. Errors and writes are `no-store`.',
    required: true,
    schema: { type: 'string', enum: ['private, no-cache'] },
  },
};

/** Headers of a response with `status`, as references to components.headers; a public operation (`keyed` false) has no rate limit. */
export function responseHeaders(status: number, keyed: boolean, components: Json): Json {
  components.headers ??= { ...HEADERS };
  const names = ['X-Request-Id', 'Access-Control-Allow-Origin'];
  if (keyed && status < 500) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  if (status === 405) names.push('Allow');
  if (status === 429 || status === 503) names.push('Retry-After');
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/**
 * A GET of shop data is conditional (src/http/requests/conditional-get.ts): If-None-Match in, ETag and
 * Cache-Control on the 200, and a 304 with no body.
 */
export function conditionalGet(operation: Json): void {
  operation.parameters = [...(operation.parameters ?? []), {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: `The ETag of the copy you hold (or a list of them, or \`*\`): an unchanged answer is 304 with no body, sent before the read runs. A value over ${MAX_IF_NONE_MATCH_LENGTH} characters or malformed is ignored (200).`,
    schema: { type: 'string', maxLength: MAX_IF_NONE_MATCH_LENGTH },
  }];
  const cached = { ETag: { $ref: '#/components/headers/ETag' }, 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } };
  operation.responses['200'].headers = { ...operation.responses['200'].headers, ...cached };
  // (Status keys are integer-like: the 304 is listed between the 200 and the problems whatever the order written.)
  operation.responses['304'] = { description: 'Not Modified: the If-None-Match tag is still current (nothing the answer depends on changed); no body, the same ETag and Cache-Control. The read did not run.', headers: cached };
}
