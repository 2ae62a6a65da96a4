/**
 * Keeps the PostgreSQL pool from leaking connections that died while checked out.
 *
 * Kysely's controlled transactions (how MikroORM runs `em.transactional`) release their pooled
 * connection only after a successful COMMIT or ROLLBACK. When the connection is cut or its backend
 * killed mid-transaction, both fail, the client is never released, and the pool counts it as busy
 * for ever: ten such faults and every request waits for a connection that never comes (found by
 * test/reliability/fault-database.test.ts — the pool held 10 dead clients after a burst of cut
 * writes). So:
 * - a client whose connection ends while checked out is released with an error (the pool drops it);
 * - release is idempotent (the late release of whoever held it is a no-op, not pg-pool's
 *   "Release called on client which has already been released");
 * - a client released while a statement is still running on it (the statement's read timeout
 *   fired on a stalled network) is dropped too, rather than handed to the next request.
 */

interface GuardedClient {
  on(event: 'end', listener: () => void): unknown;
  release?: (error?: Error | boolean) => void;
  _activeQuery?: unknown;
}

interface PoolLike {
  on(event: 'connect', listener: (client: GuardedClient) => void): unknown;
}

function guardClient(client: GuardedClient): void {
  let current: ((error?: Error | boolean) => void) | undefined;
  let checkedOut = false;
  Object.defineProperty(client, 'release', {
    configurable: true,
    enumerable: false,
    get: () => current,
    // pg-pool assigns a fresh release function at every checkout.
    set: (release: (error?: Error | boolean) => void) => {
      let released = false;
      checkedOut = true;
      current = (error) => {
        if (released) return;
        released = true;
        checkedOut = false;
        const busy = client._activeQuery !== null && client._activeQuery !== undefined;
        release(error || (busy ? new Error('released with a statement still running (read timeout)') : undefined));
      };
    },
  });
  client.on('end', () => {
    if (checkedOut) current?.(new Error('the connection ended while checked out'));
  });
}

/** Installs the guard on a `pg` pool (MikroORM's `driverOptions.onPoolCreated`). */
export function guardPool(pool: PoolLike): void {
  pool.on('connect', guardClient);
}
