import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isWorkAbandoned } from '../../kernel/abandoned-work.ts';
import { detailOf, DomainError, type FieldError } from '../../kernel/domain-error.ts';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { buildProblem, sendProblem } from './problem.ts';
import { isUnavailable, RETRY_AFTER_SECONDS } from './unavailable.ts';

interface AjvError {
  instancePath: string; message?: string; params: Record<string, unknown>; keyword?: string; schemaPath?: string;
  /** The schema holding the failed keyword (AJV's `verbose`): a range is said whole from it. */
  parentSchema?: Record<string, unknown>;
}

/** `/updates/0/delta` → `updates[0].delta`, plus the property AJV names for a missing or unknown one. */
function fieldOf(e: AjvError, context: string | undefined): string {
  const path = e.instancePath.split('/').filter(Boolean)
    .map((seg) => seg.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : `${i === 0 ? '' : '.'}${seg}`)).join('');
  const extra = (e.params.additionalProperty ?? e.params.missingProperty) as string | undefined;
  return [path, extra].filter(Boolean).join('.') || context || 'body';
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null',
};

/** `a`, `a or b`, `a, b or c`. */
function orList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** `must be number,null` → `must be a number or null`. */
function typeMessage(types: unknown): string {
  const list = (Array.isArray(types) ? types : String(types).split(',')).map((t) => TYPE_NAMES[String(t)] ?? String(t));
  return `must be ${orList([...new Set(list)])}`;
}

/**
 * The patterns of the request schemas in words: a refusal says what is allowed, never a regular
 * expression (a test checks that every pattern the OpenAPI document validates with is listed).
 */
export const PATTERN_WORDS: Record<string, string> = {
  '^[0-9]+$': 'must be a bare numeric id such as 101 (digits only, not a gid://… global id)',
  '^[A-Za-z0-9._:-]{1,128}$': 'must be 1–128 characters, each a letter, a digit or one of . _ : -',
  '^[\\x21-\\x7e]+$': 'must be visible ASCII characters only (no spaces)',
};

const plural = (n: unknown, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A bound as people read it: 1e14 is 10^14, as the services state their limit. */
const bound = (n: unknown) => (typeof n === 'number' && n >= 1e6 && Number.isInteger(Math.log10(n)) ? `10^${Math.log10(n)}` : String(n));

/** A number bounded on both sides, said whole whichever bound was crossed (`pageSize: must be between 1 and 1000`, as /graphql says it). */
function rangeMessage(schema: Record<string, unknown> | undefined): string | null {
  if (!schema) return null;
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum } = schema;
  const low = minimum !== undefined ? `at least ${bound(minimum)}` : exclusiveMinimum !== undefined ? `greater than ${bound(exclusiveMinimum)}` : null;
  const high = maximum !== undefined ? `at most ${bound(maximum)}` : exclusiveMaximum !== undefined ? `less than ${bound(exclusiveMaximum)}` : null;
  if (!low || !high) return null;
  return minimum !== undefined && maximum !== undefined ? `must be between ${bound(minimum)} and ${bound(maximum)}` : `must be ${low} and ${high}`;
}

/** One AJV error (not anyOf/oneOf) in words a person acts on. */
function humanMessage(e: AjvError, context: string | undefined): string {
  const p = e.params;
  if (p.additionalProperty !== undefined) return context === 'querystring' ? 'is not a parameter of this route' : 'is not a recognised field';
  if (p.missingProperty !== undefined) return 'is required';
  switch (e.keyword) {
    case 'type': return typeMessage(p.type);
    case 'enum': return `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const': return `must be ${String(p.allowedValue)}`;
    case 'minLength': return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')} long`;
    case 'maxLength': return `must be at most ${plural(p.limit, 'character')} long`;
    case 'minItems': return p.limit === 1 ? 'must not be empty' : `must have at least ${plural(p.limit, 'item')}`;
    case 'maxItems': return `must have at most ${plural(p.limit, 'item')}`;
    case 'minimum': return rangeMessage(e.parentSchema) ?? `must be at least ${String(p.limit)}`;
    case 'maximum': return rangeMessage(e.parentSchema) ?? `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum': return rangeMessage(e.parentSchema) ?? `must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum': return rangeMessage(e.parentSchema) ?? `must be less than ${String(p.limit)}`;
    case 'format': return p.format === 'date-time'
      ? 'must be a date-time with a time zone, e.g. 2025-01-31T09:30:00Z'
      : `must be a valid ${String(p.format)}`;
    case 'pattern': return PATTERN_WORDS[String(p.pattern)] ?? `must match the pattern ${String(p.pattern)}`;
    case 'uniqueItems': return 'must not repeat an item';
    case 'minProperties': return p.limit === 1 ? 'must not be empty' : `must have at least ${plural(p.limit, 'field')}`;
    default: return e.message ?? 'is invalid';
  }
}

/**
 * The alternatives of an anyOf/oneOf that all failed, as one message: a union of literals (an enum
 * written as anyOf of const) lists the allowed values; a union of types names them.
 */
function alternativesMessage(branches: AjvError[], context: string | undefined): string {
  const values = branches.flatMap((b) => (b.keyword === 'const' ? [b.params.allowedValue] : b.keyword === 'enum' ? (b.params.allowedValues as unknown[]) : []));
  // TypeBox literals carry their type too (`{ type: 'string', const: 'high' }`): a null fails both.
  if (values.length > 0 && branches.every((b) => b.keyword === 'const' || b.keyword === 'enum' || b.keyword === 'type')) {
    return `must be one of: ${[...new Set(values.map(String))].join(', ')}`;
  }
  if (branches.length > 0 && branches.every((b) => b.keyword === 'type')) {
    return typeMessage(branches.flatMap((b) => (Array.isArray(b.params.type) ? b.params.type : [b.params.type])));
  }
  const own = branches.map((b) => humanMessage(b, context));
  return own.length > 0 ? `must match one of the allowed forms (${[...new Set(own)].join('; ')})` : 'must match one of the allowed forms';
}

/**
 * Turns AJV errors into `{ field, message }` naming the query parameter, path parameter or body
 * field: one entry per field, in words (`must be one of: virtual, platform`, `must be a number or
 * null`). AJV reports one error per failed branch of an anyOf plus the anyOf itself; they are
 * collapsed into the anyOf's one message.
 */
export function fieldErrors(validation: AjvError[], context: string | undefined): FieldError[] {
  const unions = validation.filter((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && e.schemaPath);
  // A branch error belongs to the union failing at its value (each item of a list has its own), not to the first with its schema path.
  const within = (e: AjvError, u: AjvError) => e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`);
  const branchOf = (e: AjvError) => unions.find((u) => u !== e && within(e, u) && e.schemaPath?.startsWith(`${u.schemaPath}/`));
  const byField = new Map<string, string[]>();
  for (const e of validation) {
    if (branchOf(e)) continue; // said by its anyOf
    const message = unions.includes(e)
      ? alternativesMessage(validation.filter((b) => branchOf(b) === e && b.instancePath === e.instancePath), context)
      : humanMessage(e, context);
    const field = fieldOf(e, context);
    const messages = byField.get(field) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byField.set(field, messages);
  }
  return [...byField].map(([field, messages]) => ({ field, message: messages.join('; ') }));
}


/** A body that did not parse as JSON: one field error, and a detail saying the same. */
function malformedBody(error: Error): { detail: string; errors: FieldError[] } {
  const where = /\(line \d+ column \d+\)/.exec(error.message)?.[0] ?? /at position \d+/.exec(error.message)?.[0];
  const errors = [{ field: 'body', message: `is not valid JSON${where ? ` ${where}` : ''}` }];
  return { detail: detailOf(errors), errors };
}

/**
 * The client closed its connection while its body was being read: Node destroys the request stream
 * with `aborted` (code ECONNRESET, like a lost database connection), which is the client's doing,
 * not an unavailable dependency.
 */
function isClientAbort(error: FastifyError, request: FastifyRequest): boolean {
  return error.code === 'ECONNRESET' && error.message === 'aborted' && request.raw.readableAborted;
}

/** The one error handler: every failure leaves as problem+json, nothing internal leaks. */
/** A byte count as people write limits: `1 MiB`, `5 MiB`, `64 KiB`, `1000 bytes`. */
export function byteSize(bytes: number): string {
  if (bytes >= 1_048_576 && bytes % 1_048_576 === 0) return `${bytes / 1_048_576} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      return sendProblem(request, reply, { code: error.code, detail: error.message, errors: error.errors, blockers: error.blockers, missing: error.missing, plan: error.plan });
    }
    if (error.validation) {
      const errors = fieldErrors(error.validation as unknown as AjvError[], error.validationContext);
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: detailOf(errors), errors });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(request, reply, { code: 'PAYLOAD_TOO_LARGE', detail: `the request body is larger than ${byteSize(request.routeOptions.bodyLimit)}, this route's limit` });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(request, reply, { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'send the body as Content-Type: application/json' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'invalid Content-Length' });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(request, reply, { code: 'INVALID_INPUT', ...malformedBody(error) });
      case 'FST_ERR_CTP_EMPTY_JSON_BODY': {
        const errors = [{ field: 'body', message: 'is empty; send a JSON object' }];
        return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: detailOf(errors), errors });
      }
    }
    if (error.statusCode === 400 && error instanceof SyntaxError) {
      return sendProblem(request, reply, { code: 'INVALID_INPUT', ...malformedBody(error) });
    }
    if (isClientAbort(error, request)) {
      // Nobody is left to answer; the reply below only completes Fastify's bookkeeping.
      request.log.info({ code: error.code }, 'client closed the connection before its request body was received');
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'the request body was not received in full: the client closed the connection' });
    }
    if (isUnavailable(error)) {
      if (isWorkAbandoned(error)) request.log.info({ err: error }, 'request work stopped after its deadline');
      else request.log.error({ err: error }, 'dependency unavailable');
      reply.header('Retry-After', RETRY_AFTER_SECONDS);
      return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: 'the service is temporarily unavailable' });
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(request, reply, { code: 'INTERNAL', detail: `unexpected error; quote request id ${request.id}` });
  });

  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, { code: 'NOT_FOUND', detail: `no route ${request.method} ${request.url.split('?')[0]}` }));
}

/**
 * Longest path parameter the router accepts (Fastify's default is 100). Large enough that any id
 * within its documented maximum (255 characters, up to 3,060 when percent-encoded) reaches the
 * route's validation and gets a 400 naming the field; a longer segment is 400 from the router.
 */
export const MAX_PARAM_LENGTH = 4_096;

/**
 * Fastify's `frameworkErrors`: errors the router raises before any route runs (a URL that does not
 * decode, a path segment over MAX_PARAM_LENGTH). They leave as problem+json 400 with X-Request-Id,
 * like every other refusal (onRequest hooks do not run for them).
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('X-Request-Id', request.id);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'the URL path is not valid: malformed percent-encoding', errors: [{ field: 'path', message: 'is not a valid URL path' }] });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendProblem(request, reply, {
        code: 'INVALID_INPUT', detail: `a path segment is longer than ${MAX_PARAM_LENGTH} characters`,
        errors: [{ field: 'path', message: `has a segment longer than ${MAX_PARAM_LENGTH} characters` }],
      });
    default:
      request.log.info({ err: error }, 'request refused by the framework');
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'the request could not be routed' });
  }
}

const CLIENT_ERROR_DETAIL: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'the request headers are larger than the server accepts (16 KiB)',
  ERR_HTTP_REQUEST_TIMEOUT: 'the request was not received in time',
  ERR_HTTP_HEADERS_TIMEOUT: 'the request headers were not received in time',
};

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the bytes (headers too large, a
 * malformed request line or header, a request that never finished), so there is no request object
 * and no route. Answers problem+json 400 INVALID_INPUT with a fresh X-Request-Id, then closes the
 * connection (the parser cannot resynchronise).
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = randomUUID();
  const detail = CLIENT_ERROR_DETAIL[error.code ?? ''] ?? 'the request is not valid HTTP/1.1';
  this.log.info({ requestId, code: error.code }, 'malformed HTTP request refused');
  if (socket.writable) {
    const body = JSON.stringify(buildProblem(requestId, { code: 'INVALID_INPUT', detail }));
    socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
      + `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
