import type { QueryResult } from '@mikro-orm/core';
import type { Em } from '../db/orm.ts';

/**
 * Erases every row of a shop, whatever table holds it (every table with a `shop_id` column, read
 * from the database's catalogue so a new table is never forgotten), and the shop itself: what
 * Shopify's shop/redact asks of an app when the operator chose BOMCORE_SHOP_REDACT=erase. In the
 * caller's transaction; one statement per table and pass. Returns the tables that lost rows. The
 * shop's data-version counter is raised again at commit (a number, no data): a shop made later under
 * the same id never answers with a tag a client cached of this one.
 */
export async function eraseShopData(em: Em, shopId: string): Promise<string[]> {
  const tables = await em.execute<{ table_name: string }[]>(
    `select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = 'shop_id'
        and table_name in (select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE')
      order by table_name`,
  );
  const erased = new Set<string>();
  // Triggers keep per-shop aggregates (list counts, data versions) current on every write, so a
  // delete may write one again: passes repeat until one erases nothing (a delete of no row fires no
  // insert). Two or three passes in practice.
  for (let pass = 0; pass < 5; pass += 1) {
    let any = false;
    for (const { table_name: table } of tables) {
      const result = await em.execute<QueryResult>(`delete from "${table.replaceAll('"', '""')}" where shop_id = ?`, [shopId], 'run');
      if (result.affectedRows > 0) {
        erased.add(table);
        any = true;
      }
    }
    if (!any) break;
  }
  const shop = await em.execute<QueryResult>('delete from shops where id = ?', [shopId], 'run');
  if (shop.affectedRows > 0) erased.add('shops');
  return [...erased];
}
