import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FieldError } from '../domain-error.ts';
import { sendProblem } from './problem.ts';

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

function isUnavailable(error: unknown): boolean {
  const name = (error as { name?: string }).name ?? '';
  const code = (error as { code?: string }).code ?? '';
  return name === 'ConnectionException' || ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P03', '53300'].includes(code);
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
