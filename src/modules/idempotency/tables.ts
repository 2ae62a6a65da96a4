import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { IdempotencyKey } from './idempotency.entity.ts';

/** The idempotency module's table, typed from its entity definition: its queries can name no other module's table. */
export type IdempotencyTables = InferKyselyDB<typeof IdempotencyKey>;

/** Builds the idempotency module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const idempotencySql = sqlBuilder<IdempotencyTables>();
