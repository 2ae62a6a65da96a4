import { mkdirSync } from 'node:fs';
import type { EntitySchema, MikroORM as CoreORM, Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Config } from '../config.ts';
import { migrationsList } from '../../migrations/index.ts';
import { CountingLogger } from './query-stats.ts';

export type Orm = CoreORM & { em: SqlEntityManager };
export type Em = SqlEntityManager;

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
  };
}

/**
 * Opens the database: PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite persisted under
 * the data directory (`memory://` keeps it in memory, for tests). The entity list comes from the
 * caller (`src/database.ts`): this layer knows no module.
 */
export async function openOrm(config: Pick<Config, 'databaseUrl' | 'dataDir'>, entities: readonly EntitySchema[]): Promise<Orm> {
  if (config.databaseUrl) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    return (await MikroORM.init({
      ...baseOptions(entities), clientUrl: config.databaseUrl, pool: { min: 0, max: 10 },
      // JIT off for every connection: the recipe walk is a recursive CTE whose row count the planner
      // cannot estimate, so its cost passes jit_above_cost and PostgreSQL spent ~0.5 s compiling a
      // query that runs in 13 ms (the 50-order breakdown). These are short OLTP statements; JIT
      // only pays off for long analytical scans.
      driverOptions: { options: '-c jit=off' },
    } as never)) as unknown as Orm;
  }
  const { MikroORM } = await import('@mikro-orm/pglite');
  const inMemory = config.dataDir.startsWith('memory:');
  if (!inMemory) mkdirSync(config.dataDir, { recursive: true });
  return (await MikroORM.init({ ...baseOptions(entities), dbName: inMemory ? 'memory://' : config.dataDir } as never)) as unknown as Orm;
}

export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}
