import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import { shopsSql } from './tables.ts';

/** Whether stock levels of the shop may go below zero (dataset `shop.settings.allowNegativeInventory`). */
export async function shopAllowsNegative(em: Em, shopId: string): Promise<boolean> {
  const [row] = await runSql(em, shopsSql.selectFrom('shops').select('allow_negative_inventory as allow').where('id', '=', shopId));
  return row?.allow === true;
}

/** Whether the shop exists (a command naming a shop refuses one that does not, as `key create` does). */
export async function shopExists(em: Em, shopId: string): Promise<boolean> {
  const rows = await runSql(em, shopsSql.selectFrom('shops').select('id').where('id', '=', shopId));
  return rows.length > 0;
}

/** Creates the shop when it does not exist yet (a store connected before any dataset was loaded); an existing shop is left as it is. */
export async function ensureShop(em: Em, shopId: string, name: string): Promise<void> {
  const now = new Date();
  await runSqlWrite(em, shopsSql.insertInto('shops').values({ id: shopId, name, allow_negative_inventory: false, material_requirements_metafield: false, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('id').doNothing()));
}
