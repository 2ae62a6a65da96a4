import type { Em } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { shopsSql } from './tables.ts';

/** Whether stock levels of the shop may go below zero (dataset `shop.settings.allowNegativeInventory`). */
export async function shopAllowsNegative(em: Em, shopId: string): Promise<boolean> {
  const [row] = await runSql(em, shopsSql.selectFrom('shops').select('allow_negative_inventory as allow').where('id', '=', shopId));
  return row?.allow === true;
}
