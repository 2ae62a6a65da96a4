import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { Shop } from './shop.entity.ts';

/** The shops module's table, typed from its entity definition: its queries can name no other module's table. */
export type ShopsTables = InferKyselyDB<typeof Shop>;

/** Builds the shops module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const shopsSql = sqlBuilder<ShopsTables>();
