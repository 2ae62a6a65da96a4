import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { InventoryAdjustment, MaterialLevel } from './ledger.entity.ts';
import { PlatformPush } from './platform-push.entity.ts';
import { PreassembledStock, Reservation, Residual } from './stock.entity.ts';

/** The stock module's tables, typed from their entity definitions: its queries can name no other module's table. */
export type StockTables = InferKyselyDB<
  typeof MaterialLevel | typeof InventoryAdjustment | typeof PreassembledStock | typeof Residual | typeof Reservation | typeof PlatformPush
>;

/** Builds the stock module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const stockSql = sqlBuilder<StockTables>();
