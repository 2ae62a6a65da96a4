import { randomBytes } from 'node:crypto';
import { migrate, openDatabase, type Orm } from '../../src/database.ts';

export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const databaseLabel = usingPostgres ? 'PostgreSQL' : 'PGlite';

/** The test database: PostgreSQL when DATABASE_URL is set (migrated by global setup), else a fresh in-memory PGlite. */
export async function openTestOrm(): Promise<Orm> {
  const orm = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, dataDir: 'memory://' });
  if (!usingPostgres) await migrate(orm);
  return orm;
}

/** A shop id no other test file uses, so files can share one PostgreSQL database. */
export function uniqueShopId(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}
