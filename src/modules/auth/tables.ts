import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { ApiKey } from './api-key.entity.ts';

/** The auth module's table, typed from its entity definition: its queries can name no other module's table. */
export type AuthTables = InferKyselyDB<typeof ApiKey>;

/** Builds the auth module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const authSql = sqlBuilder<AuthTables>();
