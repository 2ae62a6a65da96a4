import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FieldError } from '../domain-error.ts';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { buildProblem, sendProblem } from './problem.ts';
import { isUnavailable } from './unavailable.ts';

interface AjvError { instancePath: string; message?: string; params: Record<string, unknown> }

/** Turns AJV errors into `{ field, message }` naming the query parameter, path parameter or body field. */
export function fieldErrors(validation: AjvError[], context: string | undefined): FieldError[] {
  return validation.map((e) => {
    // /updates/0/delta → updates[0].delta
    const path = e.instancePath.split('/').filter(Boolean)
      .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : `${i === 0 ? '' : '.'}${seg}`)).join('');
    const extra = (e.params.additionalProperty ?? e.params.missingProperty) as string | undefined;
    const field = [path, extra].filter(Boolean).join('.') || context || 'body';
    if (e.params.additionalProperty) {
      return { field, message: context === 'querystring' ? 'is not a parameter of this route' : 'is not a recognised field' };
    }
    if (e.params.missingProperty) return { field, message: 'is required' };
    if (e.params.allowedValues) return { field, message: `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}` };
    return { field, message: e.message ?? 'is invalid' };
  });
}

/** The one error handler: every failure leaves as problem+json, nothing internal leaks. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      return sendProblem(request, reply, { code: error.code, detail: error.message, errors: error.errors, blockers: error.blockers, missing: error.missing });
    }
    if (error.validation) {
      const errors = fieldErrors(error.validation as unknown as AjvError[], error.validationContext);
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(request, reply, { code: 'PAYLOAD_TOO_LARGE', detail: 'the request body is larger than 1 MiB' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(request, reply, { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'send the body as Content-Type: application/json' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'invalid Content-Length' });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'the body is not valid JSON', errors: [{ field: 'body', message: 'must be a JSON object' }] });
    }
    if (error.statusCode === 400 && error instanceof SyntaxError) {
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'the body is not valid JSON', errors: [{ field: 'body', message: 'must be a JSON object' }] });
    }
    if (isUnavailable(error)) {
      request.log.error({ err: error }, 'dependency unavailable');
      reply.header('Retry-After', '5');
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
