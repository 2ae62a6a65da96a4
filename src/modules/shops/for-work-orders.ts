import type { Em } from '../../db/orm.ts';
import { runSql } from '../../db/typed-sql.ts';
import { DEFAULT_SHOP_PLAN, type ShopPlan } from './shop-vocabulary.ts';
import { shopsSql } from './tables.ts';

// What the work-orders module (a higher tier) reads of its shop.

/** The shop's settings a build run needs: its plan (an enhanced-plan operation) and whether levels may go below zero. One read. */
export async function buildRunSettings(em: Em, shopId: string): Promise<{ plan: ShopPlan; allowNegative: boolean }> {
  const [row] = await runSql(em, shopsSql.selectFrom('shops').select(['plan', 'allow_negative_inventory']).where('id', '=', shopId));
  return { plan: row?.plan ?? DEFAULT_SHOP_PLAN, allowNegative: row?.allow_negative_inventory === true };
}
