import { loadConfig, type Config } from '../kernel/config.ts';
import { forBatchWork, migrate, openDatabase, type Orm } from '../app/database.ts';

/** Opens the configured database, migrates it, runs `fn`, and always closes it. */
export async function withDatabase<T>(fn: (orm: Orm, config: Config) => Promise<T>, options: { migrate?: boolean } = {}): Promise<T> {
  const config = loadConfig();
  const orm = await openDatabase(forBatchWork(config));
  try {
    if (options.migrate !== false) await migrate(orm);
    return await fn(orm, config);
  } finally {
    await orm.close();
  }
}
