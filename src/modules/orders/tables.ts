import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { OrderFulfilment } from './order-fulfilment.entity.ts';

/** The orders module's tables, typed from their entity definitions: its queries can name no other module's table. */
export type OrdersTables = InferKyselyDB<typeof OrderFulfilment>;

/** Builds the orders module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const ordersSql = sqlBuilder<OrdersTables>();
