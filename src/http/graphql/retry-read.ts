import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, parse, type ExecutionResult } from 'graphql';
import { isConnectionLost } from '../errors/unavailable.ts';

/**
 * Reads retried once: a REST GET or a GraphQL query whose database connection broke or was
 * refused before anything was sent runs once more, with a fresh context (a new EntityManager,
 * new loaders) and so a fresh pool connection — the pool drops a client whose connection failed.
 * Writes are never retried here (a PATCH may have committed before its answer was lost: that is
 * what `Idempotency-Key` is for), nor timeouts (the time budget is spent).
 */

/** The first connection error of a GraphQL result, if any. */
export function lostConnectionIn(result: ExecutionResult | undefined): unknown {
  return result?.errors?.find((error) => isConnectionLost(error));
}

/**
 * Runs `attempt`; when it threw, or returned a result `failedWith` finds a lost connection in, runs
 * it once more and returns that second outcome whatever it is.
 */
export async function retryReadOnce<T>(attempt: () => Promise<T>, failedWith: (value: T) => unknown, log: FastifyBaseLogger): Promise<T> {
  let cause: unknown;
  try {
    const first = await attempt();
    cause = failedWith(first);
    if (!cause) return first;
  } catch (error) {
    if (!isConnectionLost(error)) throw error;
    cause = error;
  }
  log.info({ retry: 'read', reason: (cause as { message?: string }).message?.slice(0, 200) }, 'read retried once after a lost database connection');
  return attempt();
}

/** Why the last /graphql execution of a reply answered 503 (the error formatter records it). */
const unavailableCauses = new WeakMap<FastifyReply, unknown>();

export function recordUnavailable(reply: FastifyReply | undefined, cause: unknown): void {
  if (reply) unavailableCauses.set(reply, cause);
}

/** A GraphQL request that only reads: GET (mercurius refuses mutations there), or one POSTed query operation. */
function isGraphqlRead(request: FastifyRequest): boolean {
  if (request.method === 'GET') return true;
  const body = request.body as { query?: unknown; operationName?: unknown } | undefined;
  if (Array.isArray(body) || typeof body?.query !== 'string') return false;
  try {
    const operation = getOperationAST(parse(body.query), typeof body.operationName === 'string' ? body.operationName : undefined);
    return operation?.operation === 'query';
  } catch {
    return false;
  }
}

/**
 * Runs mercurius's handler for /graphql; when a read answered 503 because its connection broke,
 * and nothing has been sent yet, runs it once more (mercurius builds a new context each time).
 */
export async function retryGraphqlRead<T>(request: FastifyRequest, reply: FastifyReply, attempt: () => Promise<T>): Promise<T> {
  unavailableCauses.delete(reply);
  const first = await attempt();
  const cause = unavailableCauses.get(reply);
  if (reply.sent || cause === undefined || !isConnectionLost(cause) || !isGraphqlRead(request)) return first;
  unavailableCauses.delete(reply);
  reply.code(200).removeHeader('Retry-After');
  request.log.info({ retry: 'read', reason: (cause as { message?: string }).message?.slice(0, 200) }, 'read retried once after a lost database connection');
  return attempt();
}
