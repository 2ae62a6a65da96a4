import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { ShopDataVersion } from './data-version.entity.ts';
import { Shop } from './shop.entity.ts';

/** The shops module's tables, typed from its entity definitions: its queries can name no other module's table. */
export type ShopsTables = InferKyselyDB<typeof Shop | typeof ShopDataVersion>;

/** Builds the shops module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const shopsSql = sqlBuilder<ShopsTables>();
