import type { FastifyInstance, FastifyRequest } from 'fastify';
import { detailOf, DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { jsonTextNestsDeeper, tooDeepMessage } from '../../kernel/json-depth.ts';
import { MAX_JSON_DEPTH } from '../../kernel/limits.ts';
import { mayHoldInexactNumbers, parseJsonExactly } from '../../kernel/numbers/json-numbers.ts';
import { GraphQLRequestError } from '../graphql/graphql-errors.ts';

/** /graphql answers a refused body as a GraphQL request error (400 BAD_REQUEST); every other route as problem+json INVALID_INPUT. */
function bodyTooDeep(request: FastifyRequest): Error {
  const errors: FieldError[] = [{ field: 'body', message: tooDeepMessage() }];
  return request.url.split('?')[0] === '/graphql' ? new GraphQLRequestError(detailOf(errors), errors) : DomainError.invalidFields(errors);
}

/**
 * Fastify's JSON body parser (the same prototype-poisoning rules, the same errors for an empty or
 * malformed body) behind a depth check of the raw text: one linear pass, bounded by the body limit,
 * before JSON.parse and everything after it. A body that may hold a number a double does not hold
 * (16+ significant digits, an exponent) is then read again with the numbers' source text
 * (src/kernel/numbers/json-numbers.ts): once its schema accepts it, such a number is its exact
 * text (src/http/requests/validators.ts), so 99999999999999.999999 is stored as sent.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonTextNestsDeeper(text, MAX_JSON_DEPTH)) {
      done(bodyTooDeep(request), undefined);
      return;
    }
    parse(request, text, (error, value) => {
      if (error || !mayHoldInexactNumbers(text)) done(error, value);
      else done(null, parseJsonExactly(text));
    });
  });
}
