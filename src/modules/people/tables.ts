import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { Assignee, Flow, Task } from './people.entity.ts';

/** The people module's tables, typed from their entity definitions: its queries can name no other module's table. */
export type PeopleTables = InferKyselyDB<typeof Assignee | typeof Flow | typeof Task>;

/** Builds the people module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const peopleSql = sqlBuilder<PeopleTables>();
