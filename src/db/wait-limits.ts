/**
 * How long a request waits for PostgreSQL (docs/reliability.md, "Faults": a stalled database is 503
 * in under 4 s).
 *
 * A stall (the network holds the bytes; nothing is refused or reset) is invisible to PostgreSQL's
 * statement_timeout (the server never sees the statement), and the request deadline (10 s) is for
 * the whole request. With the read timeout (15 s) and the pool wait (5 s) as the only bounds, a
 * request on a stalled pooled connection waited for the deadline, 10 s, and the next one 5 s for a
 * new connection. The read timeout cannot simply be short: the client cannot tell a stalled network
 * from a statement waiting for a lock (200 concurrent writes to one row queue for seconds). So a
 * statement unanswered after PROBE_AFTER_MS makes the stall breaker ask the database on a
 * connection of its own (src/db/stall-breaker.ts); no answer within PROBE_TIMEOUT_MS is a stall.
 * Worst case on a stalled database: PROBE_AFTER_MS + PROBE_TIMEOUT_MS, or DB_OPEN_TIMEOUT_MS for a
 * new connection: 3 s.
 */

/** Default of BOMCORE_DB_CONNECT_TIMEOUT_MS: waiting for a pooled connection, a queue behind busy ones included (load, not a stall). */
export const DB_CONNECT_TIMEOUT_MS = 5000;
/** Default of BOMCORE_DB_READ_TIMEOUT_MS: the last bound on one statement's answer (a single stalled connection the probe cannot see). */
export const DB_READ_TIMEOUT_MS = 15_000;
/** Opening a new connection (TCP and PostgreSQL's start-up): milliseconds on a healthy server; no more than the pool wait. */
export const DB_OPEN_TIMEOUT_MS = 3000;
/** A statement unanswered this long makes the breaker ask whether the database answers at all. */
export const PROBE_AFTER_MS = 1500;
/** The probe's own budget: a new connection and `select 1`. */
export const PROBE_TIMEOUT_MS = 1500;
/** While the breaker is open, one request every this many ms tries the database; the others are 503 at once. */
export const TRIAL_INTERVAL_MS = 500;

/** The waits of a connection pool, from the two configured ones (0 turns the read timeout off). */
export function waitLimits(config: { dbConnectTimeoutMs?: number; dbReadTimeoutMs?: number }): { acquireMs: number; openMs: number; readMs: number } {
  const acquireMs = config.dbConnectTimeoutMs ?? DB_CONNECT_TIMEOUT_MS;
  return { acquireMs, openMs: Math.min(DB_OPEN_TIMEOUT_MS, acquireMs), readMs: config.dbReadTimeoutMs ?? DB_READ_TIMEOUT_MS };
}
