import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isWorkAbandoned } from '../../kernel/abandoned-work.ts';
import { detailOf, DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { fieldErrors } from '../errors/error-handler.ts';
import { GraphQLLimitError, isLimitCode, isTooManyTokens, LIMIT_CODES, tooManyTokensMessage } from '../../kernel/graphql-limits.ts';
import { isUnavailable, RETRY_AFTER_SECONDS } from '../errors/unavailable.ts';

/** A request that is not a GraphQL request (no `query` string, `variables` not an object, a batch too long). */
export class GraphQLRequestError extends Error {
  readonly errors: FieldError[];

  constructor(message: string, errors: FieldError[]) {
    super(message);
    this.name = 'GraphQLRequestError';
    this.errors = errors;
  }
}

export interface FormattedError {
  message: string;
  locations?: readonly { line: number; column: number }[] | undefined;
  path?: readonly (string | number)[] | undefined;
  extensions: Record<string, unknown> & { code: string };
}

/** How one error leaves, and what it says about the HTTP status. */
interface Classified {
  error: FormattedError;
  /** Refused before execution: the response is 400 (or `status`) and carries no data. */
  refused: boolean;
  status?: number;
  /** The database or the time budget failed, not the request: the response is 503 with one UNAVAILABLE error. */
  unavailable?: unknown;
}

/** What a client sees when the database is unreachable, a connection broke or the request ran out of time. */
export const UNAVAILABLE_MESSAGE = 'the service is temporarily unavailable; retry after the number of seconds in the Retry-After header';

interface FormatDeps {
  maxTokens: number;
  log: FastifyBaseLogger;
  /** Told the cause when the response is 503 UNAVAILABLE (the caller sets `Retry-After`, and may retry a read). */
  onUnavailable?: (cause: unknown) => void;
  /** The values of a schema enum (null: no such enum), so a refused value is answered with the allowed ones. */
  enumValues?: (enumName: string) => readonly string[] | null;
}

/**
 * graphql-js refuses an unknown enum value (`sortBy: bogus`) with `Value "bogus" does not exist in
 * "BomSort" enum.` and at most a guess; the answer also names every allowed value, as REST's 400s do.
 */
export function withAllowedValues(message: string, enumValues: FormatDeps['enumValues']): string {
  const named = /Value "[^"]*" does not exist in "(\w+)" enum\./.exec(message);
  const values = named && enumValues?.(named[1]!);
  return values?.length ? `${message} Allowed values of ${named![1]}: ${values.join(', ')}.` : message;
}

function located(error: GraphQLError): Pick<FormattedError, 'locations' | 'path'> {
  return { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
}

/** The domain error's code and, as REST's problem+json has them, its field errors, blockers and missing references. */
function domainExtensions(error: DomainError): FormattedError['extensions'] {
  return {
    code: error.code,
    ...(error.errors?.length ? { errors: error.errors } : {}),
    ...(error.blockers?.length ? { blockers: error.blockers } : {}),
    ...(error.missing?.length ? { missing: error.missing } : {}),
    ...(error.plan ? { plan: error.plan } : {}),
  };
}

/** An error of the request itself: the document did not parse or validate, or the body was no GraphQL request. */
function classifyRefusal(error: GraphQLError | Error, deps: FormatDeps): Classified {
  const refused = (message: string, extensions: FormattedError['extensions'], where: Pick<FormattedError, 'locations' | 'path'> = {}): Classified =>
    ({ error: { message, ...where, extensions }, refused: true });
  if (error instanceof GraphQLRequestError) return refused(error.message, { code: 'BAD_REQUEST', errors: error.errors });
  const validation = (error as { validation?: unknown }).validation;
  if (Array.isArray(validation)) {
    const errors = fieldErrors(validation, (error as { validationContext?: string }).validationContext);
    return refused(detailOf(errors), { code: 'BAD_REQUEST', errors });
  }
  if (!(error instanceof GraphQLError)) return refused(error.message, { code: 'BAD_REQUEST' });
  const where = located(error);
  const code = error.extensions?.code;
  if (isLimitCode(code)) return refused(error.message, { ...error.extensions, code }, where);
  if (isTooManyTokens(error.message)) {
    return refused(tooManyTokensMessage(deps.maxTokens), { code: LIMIT_CODES.tokens, limit: deps.maxTokens }, where);
  }
  if (error.message.startsWith('Syntax Error')) return refused(error.message, { code: 'GRAPHQL_PARSE_FAILED' }, where);
  return refused(withAllowedValues(error.message, deps.enumValues), { code: 'GRAPHQL_VALIDATION_FAILED' }, where);
}

/** Mercurius's own request errors: a document refused before execution, a mutation over GET, no query at all. */
function mercuriusRefusals(original: Error & { code?: string; statusCode?: number; errors?: unknown }, deps: FormatDeps): Classified[] | null {
  if (original.code === 'MER_ERR_GQL_VALIDATION') {
    // Parse and validation errors arrive together under one wrapper; a bad `variables` query parameter alone.
    const inner = Array.isArray(original.errors) ? (original.errors as Error[]) : [new GraphQLRequestError(`variables: ${original.message}`, [{ field: 'variables', message: 'must be JSON' }])];
    return inner.map((e) => classifyRefusal(e, deps));
  }
  if (original.code === 'MER_ERR_METHOD_NOT_ALLOWED') {
    return [{ error: { message: 'GET runs queries only; send mutations with POST', extensions: { code: 'METHOD_NOT_ALLOWED' } }, refused: true, status: 405 }];
  }
  if (original.code === 'MER_ERR_GQL_PERSISTED_QUERY_NOT_FOUND') {
    return [classifyRefusal(new GraphQLRequestError('the request needs a `query` string', [{ field: 'query', message: 'is required' }]), deps)];
  }
  return null;
}

/** An error raised while the operation ran. */
function classifyExecution(error: GraphQLError, deps: FormatDeps): Classified[] {
  const original = error.originalError;
  const where = located(error);
  if (original instanceof DomainError) return [{ error: { message: original.message, ...where, extensions: domainExtensions(original) }, refused: false }];
  if (original instanceof GraphQLLimitError) {
    // Checked in every root field: the operation is refused as a whole, like the validation limits.
    return [{ error: { message: original.message, extensions: { code: original.code, limit: original.limit, measured: original.measured } }, refused: true }];
  }
  if (original instanceof GraphQLRequestError) return [classifyRefusal(original, deps)];
  const fromMercurius = original ? mercuriusRefusals(original as Error & { code?: string }, deps) : null;
  if (fromMercurius) return fromMercurius;
  if (!error.path && (!original || original instanceof GraphQLError)) {
    // No path: refused before execution — a variable that does not coerce to its type. The compiled
    // (JIT) executor keeps the scalar's own GraphQLError as the cause, and leaves its reason out of
    // the message ("Expected type Decimal."): the reason is put back, as graphql-js words it.
    if (original && !error.message.includes(original.message)) {
      const message = `${error.message.replace(/; Expected type [^;]*\.?$/, '')}; ${original.message}`;
      const refusal = classifyRefusal(error, deps);
      return [{ ...refusal, error: { ...refusal.error, message } }];
    }
    return [classifyRefusal(error, deps)];
  }
  const code = error.extensions?.code;
  // A GraphQLError a resolver threw on purpose, with its own code: its message is meant for the client.
  if (typeof code === 'string' && code !== 'INTERNAL' && (!original || original instanceof GraphQLError)) {
    return [{ error: { message: error.message, ...where, extensions: { code } }, refused: false }];
  }
  // A bug, not the client's doing: the details go to the log, the client gets the request id.
  deps.log.error({ err: original ?? error, path: error.path }, 'graphql resolver failed');
  return [{ error: { message: 'unexpected error', ...where, extensions: { code: 'INTERNAL' } }, refused: false }];
}

/**
 * The one error formatter of /graphql. Client mistakes (syntax, validation, limits, a malformed
 * body) keep their message, carry a standard code, log at info and answer 400; domain errors carry
 * the code and details REST uses; a lost or refused database connection, a statement timeout or
 * the request's deadline is 503 UNAVAILABLE (src/http/errors/unavailable.ts); anything else is INTERNAL,
 * logged once at error level.
 */
export function formatGraphqlErrors(execution: ExecutionResult, deps: FormatDeps): { statusCode: number; response: ExecutionResult } {
  const classified = (execution.errors ?? []).flatMap((error): Classified[] => {
    if (isUnavailable(error)) return [{ error: { message: UNAVAILABLE_MESSAGE, extensions: { code: 'UNAVAILABLE' } }, refused: false, unavailable: error }];
    return error instanceof GraphQLError ? classifyExecution(error, deps) : [classifyRefusal(error, deps)];
  });
  const unavailable = classified.find((c) => c.unavailable);
  if (unavailable) {
    // Not the client's doing and not a bug: 503 + Retry-After (set by the caller), no partial data
    // (a retry gives the whole answer). Logged at warn; repeats are rate-limited by the logger.
    const cause = (unavailable.unavailable as { originalError?: unknown }).originalError ?? unavailable.unavailable;
    // Work its deadline already answered (src/kernel/abandoned-work.ts): nobody reads this answer, and the deadline logged it.
    if (isWorkAbandoned(cause)) deps.log.info({ err: cause }, 'request work stopped after its deadline');
    else deps.log.warn({ err: cause }, 'dependency unavailable');
    deps.onUnavailable?.(cause);
    return {
      statusCode: 503,
      response: { data: null, errors: [{ message: UNAVAILABLE_MESSAGE, extensions: { code: 'UNAVAILABLE', retryAfterSeconds: Number(RETRY_AFTER_SECONDS) } }] } as unknown as ExecutionResult,
    };
  }
  const seen = new Set<string>();
  const errors = classified.filter((c) => {
    const key = `${c.error.extensions.code}\u0000${c.error.message}\u0000${JSON.stringify(c.error.locations ?? [])}`;
    if (!c.refused) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const refusals = errors.filter((c) => c.refused);
  if (refusals.length > 0) {
    deps.log.info({ errors: refusals.map((c) => ({ code: c.error.extensions.code, message: c.error.message })) }, 'graphql request refused');
    const status = refusals.find((c) => c.status)?.status ?? 400;
    return { statusCode: status, response: { data: null, errors: refusals.map((c) => c.error) } as unknown as ExecutionResult };
  }
  return { statusCode: 200, response: { data: execution.data ?? null, errors: errors.map((c) => c.error) } as unknown as ExecutionResult };
}
