import { PROBE_AFTER_MS, PROBE_TIMEOUT_MS, TRIAL_INTERVAL_MS } from './wait-limits.ts';

/**
 * A stalled database (the network holds the bytes; nothing is refused or reset) answers 503 within
 * about 3 s, for every request (docs/reliability.md promises under 4 s).
 *
 * A statement still unanswered is either slow (a lock, a busy server) or stalled, and its own
 * connection cannot tell which. So a statement unanswered after PROBE_AFTER_MS makes the breaker
 * ask the database on a connection of its own (one probe at a time, shared): when the probe gets no
 * answer within PROBE_TIMEOUT_MS either, the database is stalled. Then the waiting statements fail
 * (their connections are destroyed, and the pool drops them), every request queued for a pooled
 * connection is answered at once, and new ones too, except one trial every TRIAL_INTERVAL_MS; the
 * first answer of the database on any connection closes the breaker. A new connection that does
 * not open in time (src/db/wait-limits.ts) opens it as well. A slow statement, with the database
 * answering the probe, waits on as before (statement_timeout, the read timeout, the deadline).
 */

/** Failing a request instead of waiting while the database is known to be stalled: unavailable (503) by its code, and not retried (not a lost connection). */
export class DatabaseStalledError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor() {
    super('the database does not answer (stalled); not waiting for it until it answers again');
    this.name = 'DatabaseStalledError';
  }
}

/** pg's errors of a wait that ran out: the read timeout, the connect timeout (the client's own or pg-pool's), a probe's. */
const STALL_MESSAGES = [/^Query read timeout$/, /^timeout expired$/, /Connection terminated due to connection timeout/];

export function isStall(error: unknown): boolean {
  if (error instanceof DatabaseStalledError) return true;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && STALL_MESSAGES.some((pattern) => pattern.test(message));
}

interface QueryingClient {
  query: (...args: unknown[]) => unknown;
  connection?: { stream?: { destroy(error?: Error): void } };
}
/** pg-pool's queue of requests waiting for a connection (its own, unexported: pinned with pg in package-lock.json). */
interface PendingItem { callback: (error: Error) => void; timedOut?: boolean }
interface ProbeClient { connect(): Promise<unknown>; query(text: string): Promise<unknown>; end(): Promise<unknown>; on(event: 'error', listener: () => void): unknown }
export interface PoolLike {
  connect(...args: unknown[]): unknown;
  on(event: 'connect', listener: (client: QueryingClient) => void): unknown;
  _pendingQueue?: PendingItem[];
  options?: Record<string, unknown>;
  Client?: new (options: Record<string, unknown>) => ProbeClient;
}

/** True when the database answers `select 1` on a new connection within PROBE_TIMEOUT_MS; false only when that wait ran out. */
async function probe(pool: PoolLike): Promise<boolean> {
  if (!pool.Client) return true;
  const client = new pool.Client({ ...pool.options, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    // Refused, or the server at its connection limit: not a stall, and the statements' own errors say the rest.
    return !isStall(error);
  } finally {
    client.end().catch(() => {});
  }
}

/** Installs the breaker on a `pg` pool (beside src/db/pool-guard.ts, from MikroORM's `onPoolCreated`). */
export function installStallBreaker(pool: PoolLike, options: { now?: () => number; probe?: () => Promise<boolean> } = {}): void {
  const now = options.now ?? Date.now;
  const ask = options.probe ?? (() => probe(pool));
  let open = false;
  let lastTrial = Number.NEGATIVE_INFINITY;
  let asking: { at: number; answer: Promise<boolean> } | null = null;

  const trip = () => {
    open = true;
    // The request that found the stall may be retried at once; it waits for the next trial like the others.
    lastTrial = now();
    // Everyone queued for a connection is answered now, as pg-pool answers a wait that ran out.
    const queue = pool._pendingQueue;
    if (!Array.isArray(queue)) return;
    for (const item of queue.splice(0)) {
      item.timedOut = true;
      item.callback(new DatabaseStalledError());
    }
  };
  /** One probe at a time; its answer holds for PROBE_AFTER_MS. */
  const databaseAnswers = (): Promise<boolean> => {
    if (!asking || now() - asking.at > PROBE_AFTER_MS) asking = { at: now(), answer: ask() };
    return asking.answer;
  };

  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    // The callback form is left alone: MikroORM (through Kysely) asks for a promise.
    if (args.length > 0) return connect(...args);
    if (open && now() - lastTrial < TRIAL_INTERVAL_MS) return Promise.reject(new DatabaseStalledError());
    // While open, this is the trial: a pooled connection handed out proves nothing, its first statement decides.
    if (open) lastTrial = now();
    const connecting = connect() as Promise<unknown>;
    connecting.then(undefined, (error: unknown) => { if (isStall(error)) trip(); });
    return connecting;
  };

  pool.on('connect', (client) => {
    const query = client.query.bind(client);
    client.query = (...args: unknown[]) => {
      const result = query(...args);
      if (!result || typeof (result as Promise<unknown>).then !== 'function') return result; // a cursor or a callback
      let settled = false;
      let suspect: NodeJS.Timeout | undefined;
      // Asked again every PROBE_AFTER_MS while unanswered: a slow statement may meet a stall later.
      const arm = () => {
        suspect = setTimeout(() => {
          void databaseAnswers().then((answers) => {
            if (settled) return;
            if (answers) return arm();
            trip();
            client.connection?.stream?.destroy(new DatabaseStalledError());
          });
        }, PROBE_AFTER_MS);
        suspect.unref();
      };
      arm();
      (result as Promise<unknown>).then(() => {
        settled = true;
        clearTimeout(suspect);
        open = false;
      }, (error: unknown) => {
        settled = true;
        clearTimeout(suspect);
        if (isStall(error)) trip();
      });
      return result;
    };
  });
}
