import type { Config } from './config.ts';
import { migrate, openOrm, type Orm } from './db/orm.ts';
import { entities } from './modules/entities.ts';

export { migrate, type Orm };

/** Opens the service's database with every entity of the modules registered. */
export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Orm> {
  return openOrm(config, entities as never);
}
