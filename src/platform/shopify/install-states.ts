import { randomBytes } from 'node:crypto';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite, sqlBuilder } from '../../db/typed-sql.ts';
import { ShopifyInstallState } from './install-state.entity.ts';

// The shopify_install_states table's one reader and writer: an install link's `state`, made by
// `GET /shopify/install`, taken once by `GET /shopify/callback` on whichever instance it reaches.

const stateSql = sqlBuilder<InferKyselyDB<typeof ShopifyInstallState>>();

/** Shopify's redirect comes back within minutes; a link older than this is refused. */
export const INSTALL_STATE_TTL_MS = 10 * 60_000;

/** A new single-use state for an install of `domain` (and the expired ones swept, a few rows at most). */
export async function createInstallState(em: Em, domain: string): Promise<string> {
  const state = randomBytes(24).toString('base64url');
  await runSqlWrite(em, stateSql.deleteFrom('shopify_install_states').where('expires_at', '<', sql<Date>`now()`));
  await runSqlWrite(em, stateSql.insertInto('shopify_install_states').values({
    state, domain, expires_at: sql<Date>`now() + (${INSTALL_STATE_TTL_MS} * interval '1 millisecond')`,
  }));
  return state;
}

/** Takes a state once: the store it was made for, or null (unknown, used already, or older than ten minutes). */
export async function takeInstallState(em: Em, state: string): Promise<string | null> {
  const [row] = await runSql(em, stateSql.deleteFrom('shopify_install_states').where('state', '=', state).returning(['domain', 'expires_at']));
  if (!row) return null;
  return new Date(row.expires_at).getTime() > Date.now() ? row.domain : null;
}
