import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { Material, MaterialListCount, MaterialQuantity } from './material.entity.ts';

/** The materials module's table, typed from its entity definition: its queries can name no other module's table. */
export type MaterialsTables = InferKyselyDB<typeof Material | typeof MaterialListCount | typeof MaterialQuantity>;

/** Builds the materials module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const materialsSql = sqlBuilder<MaterialsTables>();
