import { migrate, openDatabase } from '../../src/database.ts';

/**
 * With DATABASE_URL (PostgreSQL) the test files share one database: migrate it once here, and each
 * file works in shops of its own. Without it every file opens its own in-memory PGlite.
 */
export default async function setup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return;
  const orm = await openDatabase({ databaseUrl, dataDir: 'memory://' });
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}
