import type { Em } from '../../db/orm.ts';

/** Whether stock levels of the shop may go below zero (dataset `shop.settings.allowNegativeInventory`). */
export async function shopAllowsNegative(em: Em, shopId: string): Promise<boolean> {
  const [row] = await em.execute<{ allow: boolean }[]>('select allow_negative_inventory as allow from shops where id = ?', [shopId]);
  return row?.allow === true;
}
