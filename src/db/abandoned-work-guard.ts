import { workAbandoned, WorkAbandonedError } from '../kernel/abandoned-work.ts';

interface PooledClient { release(error?: Error | boolean): void }
interface PoolLike { connect(...args: unknown[]): unknown }

/**
 * Work whose request was already answered (src/kernel/abandoned-work.ts) takes no pooled
 * connection: it is refused when it asks for one, and when one is handed to it after a wait in the
 * pool's queue (the request's deadline passed meanwhile), the connection goes straight back to the
 * pool for the next live request. Installed last (outermost) on a `pg` pool, from MikroORM's
 * `onPoolCreated` (src/db/orm.ts). Every statement outside a transaction, and every BEGIN, asks.
 */
export function guardAbandonedWork(pool: PoolLike): void {
  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    // The callback form is left alone: MikroORM (through Kysely) asks for a promise.
    if (args.length > 0) return connect(...args);
    if (workAbandoned()) return Promise.reject(new WorkAbandonedError());
    return (connect() as Promise<PooledClient>).then((client) => {
      if (!workAbandoned()) return client;
      client.release();
      throw new WorkAbandonedError();
    });
  };
}
