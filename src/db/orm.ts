import { mkdirSync } from 'node:fs';
import type { EntitySchema, Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../kernel/config.ts';
import { migrationsList } from '../../migrations/index.ts';
import { refuseAbandonedWork } from '../kernel/abandoned-work.ts';
import { guardAbandonedWork } from './abandoned-work-guard.ts';
import { guardPool } from './pool-guard.ts';
import { installStallBreaker } from './stall-breaker.ts';
import { waitLimits } from './wait-limits.ts';
import { CountingLogger } from './query-stats.ts';

import type { Em, Orm } from '../kernel/orm-types.ts';

export type { Em, Orm };

function baseOptions(entities: readonly EntitySchema[]): Partial<Options> {
  return {
    entities: [...entities],
    extensions: [Migrator],
    loggerFactory: (options) => new CountingLogger(options),
    debug: process.env.BOMCORE_SQL_DEBUG === '1' ? ['query', 'query-params'] : false,
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    // Each request forks its own EntityManager; the global one must never hold request state.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    // A statement of work nobody waits for any more (a request its deadline answered) is not sent
    // (src/kernel/abandoned-work.ts); on PostgreSQL its wait for a pooled connection ends too (guardAbandonedWork).
    onQuery: (sql: string) => {
      refuseAbandonedWork();
      return sql;
    },
  };
}

/**
 * Bounds on waiting for PostgreSQL over the network, so a refused, cut or stalled connection fails
 * (503, src/http/errors/unavailable.ts) instead of holding the request (src/db/wait-limits.ts): the pool's
 * `connectionTimeoutMillis` for a pooled connection (waiting for a free one included), the client's
 * own for opening one, `query_timeout` for an answer on the wire (a stall the server's own
 * statement_timeout never sees). `guardPool` drops a connection that died mid-transaction, or whose
 * statement was still running when its read timeout fired (src/db/pool-guard.ts); the stall breaker
 * tells a stalled database from a slow statement and answers every waiting request at once when the
 * database stopped answering (src/db/stall-breaker.ts).
 */
function wireOptions(pg: typeof import('pg').default, config: Partial<Pick<Config, 'dbConnectTimeoutMs' | 'dbReadTimeoutMs'>>): Record<string, unknown> {
  const { acquireMs, openMs, readMs } = waitLimits(config);
  // pg-pool hands its own options to every client it opens; the client's connect timeout is the shorter wait to open one.
  class TimedClient extends pg.Client {
    constructor(options: import('pg').ClientConfig) {
      super({ ...options, connectionTimeoutMillis: Math.min(options.connectionTimeoutMillis ?? openMs, openMs) });
    }
  }
  return { connectionTimeoutMillis: acquireMs, Client: TimedClient, ...(readMs > 0 ? { query_timeout: readMs } : {}) };
}

/** The `-c statement_timeout=…` connection option; none when unset or 0 (off). */
function statementTimeout(ms: number | undefined): string {
  return ms && ms > 0 ? ` -c statement_timeout=${Math.floor(ms)}` : '';
}

/**
 * Opens the database: PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite persisted under
 * the data directory (`memory://` keeps it in memory, for tests). The entity list comes from the
 * caller (`src/app/database.ts`): this layer knows no module.
 */
export async function openOrm(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'dbConnectTimeoutMs' | 'dbReadTimeoutMs' | 'statementTimeoutMs'>> & {
    /** An in-memory PGlite starts from this data-directory dump (`dumpDataDir`) instead of a fresh initdb (tests). */
    pgliteSnapshot?: Blob;
    /** An in-memory PGlite instance to use as it is (tests share one per worker); closing the ORM leaves it open. */
    pglite?: object;
  },
  entities: readonly EntitySchema[],
): Promise<Orm> {
  if (config.databaseUrl) {
    const [{ MikroORM }, { default: pg }] = await Promise.all([import('@mikro-orm/postgresql'), import('pg')]);
    return onServer((await MikroORM.init({
      ...baseOptions(entities), clientUrl: config.databaseUrl, pool: { min: 0, max: 10 },
      // JIT off for every connection: the recipe walk is a recursive CTE whose row count the planner
      // cannot estimate, so its cost passes jit_above_cost and PostgreSQL spent ~0.5 s compiling a
      // query that runs in 13 ms (the 50-order breakdown). These are short OLTP statements; JIT
      // only pays off for long analytical scans.
      // statement_timeout (BOMCORE_STATEMENT_TIMEOUT_MS) for every connection too: a statement still
      // running after it is cancelled (57014, answered 503 like a lost connection) instead of
      // holding a pool connection and the request. PGlite cannot time out a statement (no timer
      // signal in WebAssembly); there the request deadline (src/http/admission/deadline.ts) is the bound.
      driverOptions: { options: `-c jit=off${statementTimeout(config.statementTimeoutMs)}`, ...wireOptions(pg, config),
        onPoolCreated: (pool: Parameters<typeof guardPool>[0] & Parameters<typeof installStallBreaker>[0]) => {
          guardPool(pool);
          installStallBreaker(pool);
          guardAbandonedWork(pool);
        },
      },
    } as never)) as unknown as Orm);
  }
  const [{ MikroORM }, { embeddedEngineOptions, embeddedExtensions, startParams }] = await Promise.all([import('@mikro-orm/pglite'), import('./embedded-engine.ts')]);
  const inMemory = config.dataDir.startsWith('memory:');
  if (!inMemory) mkdirSync(config.dataDir, { recursive: true });
  // A shared instance is used as it is; a snapshot (tests) is the start of an in-memory cluster;
  // otherwise the engine's settings, and a new cluster comes from the template (embedded-engine.ts).
  const start = config.pglite ? { pglite: config.pglite }
    : inMemory && config.pgliteSnapshot ? { loadDataDir: config.pgliteSnapshot, startParams: await startParams(), extensions: await embeddedExtensions() }
      : await embeddedEngineOptions(inMemory ? null : config.dataDir);
  // A function: MikroORM copies plain option objects, and a copied Blob loses its contents.
  return (await MikroORM.init({ ...baseOptions(entities), dbName: inMemory ? 'memory://' : config.dataDir, driverOptions: () => start } as never)) as unknown as Orm;
}

/** ORMs connected to a PostgreSQL server (not the embedded database): several processes may share one. */
const serverOrms = new WeakSet<Orm>();

/** True for an ORM on a PostgreSQL server, false for the embedded database. */
export const isOnServer = (orm: Orm): boolean => serverOrms.has(orm);

function onServer(orm: Orm): Orm {
  serverOrms.add(orm);
  return orm;
}

/**
 * Applies pending migrations. On PostgreSQL several instances may start at once against one
 * database: each takes a transaction-scoped advisory lock first, so one migrates while the others
 * wait, then find nothing pending. (The embedded database has one process; see data-dir-lock.ts.)
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const up = async () => (await orm.migrator.up()).map((m) => m.name);
  // The embedded database has one connection: a lock held on it would wait for itself.
  if (!serverOrms.has(orm)) return up();
  return orm.em.fork().transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('bomcore:migrations'))`);
    return up();
  });
}
