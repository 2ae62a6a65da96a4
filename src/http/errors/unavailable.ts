import { isWorkAbandoned } from '../../kernel/abandoned-work.ts';

/**
 * The one answer to "is this failure the database (or the time budget), not the request?". Such a
 * failure is 503 + `Retry-After` on REST and /graphql alike, a safe read is retried once, and it is
 * logged rate-limited (src/http/errors/log-limits.ts): it says nothing about the client's input.
 */

/** Seconds a client is told to wait (`Retry-After`) after a 503 of an unavailable dependency. */
export const RETRY_AFTER_SECONDS = '5';

/** Node socket errors of a connection that broke, was refused or never answered. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * PostgreSQL SQLSTATEs of a server that went away or is not taking work: admin_shutdown 57P01,
 * crash_shutdown 57P02, cannot_connect_now 57P03, too_many_connections 53300, query_canceled 57014
 * (the statement timeout), and class 08 (connection exception) as a whole. Also the two ways a
 * transaction loses a race with another one, deadlock_detected 40P01 and serialization_failure 40001:
 * PostgreSQL rolled it back whole, so nothing of the request was written and sending it again is safe
 * (a write with an Idempotency-Key keeps no answer for a 503: its retry runs).
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '40P01', '40001']);

/**
 * Error names of connection failures (MikroORM), of the request's own time budget
 * (src/http/admission/deadline.ts, and the statements its work did not start after it,
 * src/kernel/abandoned-work.ts), and of a platform that did not answer a read the request needs
 * (PlatformUnavailableError, src/kernel/platform-port/gateway.ts).
 */
const NAMES = new Set(['ConnectionException', 'DeadlineExceededError', 'WorkAbandonedError', 'PlatformUnavailableError']);

/** Messages of the pg driver and its pool that carry no code. */
const MESSAGES = [
  /Connection terminated/i,
  /connection timeout/i,
  /Query read timeout/i,
  /^timeout expired$/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Cannot use a pool after calling end on the pool/i,
  /terminating connection due to/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/**
 * Of those, the ones a read may be retried after at once, on another connection: the connection
 * broke or was refused. Not a timeout (the budget is spent; a retry would wait as long again).
 */
const LOST_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', '57P01', '57P02']);
const LOST_MESSAGES = [/Connection terminated/i, /terminating connection due to/i, /Client has encountered a connection error/i];

function classifiesAlone(error: object): boolean {
  const { name, code, sqlState, message } = error as { name?: unknown; code?: unknown; sqlState?: unknown; message?: unknown };
  if ((typeof name === 'string' && NAMES.has(name)) || isWorkAbandoned(error)) return true;
  for (const value of [code, sqlState]) {
    if (typeof value !== 'string') continue;
    if (SOCKET_CODES.has(value) || SQLSTATES.has(value) || /^08[0-9A-Z]{3}$/.test(value)) return true;
  }
  return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
}

function lostAlone(error: object): boolean {
  const { code, sqlState, message } = error as { code?: unknown; sqlState?: unknown; message?: unknown };
  for (const value of [code, sqlState]) {
    if (typeof value === 'string' && (LOST_CODES.has(value) || /^08[0-9A-Z]{3}$/.test(value))) return true;
  }
  return typeof message === 'string' && LOST_MESSAGES.some((pattern) => pattern.test(message));
}

/** Walks `error` and what it wraps (bounded), asking `test` of each. */
function anyInChain(error: unknown, test: (error: object) => boolean): boolean {
  const seen = new Set<object>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 20) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (test(current)) return true;
    const { originalError, cause, errors } = current as { originalError?: unknown; cause?: unknown; errors?: unknown };
    queue.push(originalError, cause);
    if (current instanceof AggregateError && Array.isArray(errors)) queue.push(...errors.slice(0, 10));
  }
  return false;
}

/**
 * True when `error` (or what it wraps: `originalError` of a GraphQL error, `cause`, the `errors` of
 * an AggregateError) is a lost, refused or timed-out database connection, a statement cancelled
 * by its timeout, a transaction rolled back by a deadlock or a serialization failure, or the
 * request's deadline.
 */
export function isUnavailable(error: unknown): boolean {
  return anyInChain(error, classifiesAlone);
}

/** True when `error` is a connection that broke or was refused: a read may run once more on a fresh connection. */
export function isConnectionLost(error: unknown): boolean {
  return anyInChain(error, lostAlone);
}
