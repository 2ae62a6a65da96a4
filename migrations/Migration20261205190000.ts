import { Migration } from '@mikro-orm/migrations';

/**
 * The materials search without a scan: one GIN index on (shop, trigrams of the stored lowered
 * `search_text`), which the list's `shop_id = … and search_text like '%…%'` uses for any search of
 * three characters or more: the index finds the shop's candidate rows, PostgreSQL rechecks each,
 * so answers are exactly the scan's. The shop is in the index (btree_gin) so a search in one shop
 * never walks another shop's matches. pg_trgm and btree_gin are trusted extensions: the database
 * owner may create them (PostgreSQL 13+); the embedded engine loads both at start (src/db/orm.ts).
 */
export class Migration20261205190000 extends Migration {
  override up(): void {
    this.addSql(`create extension if not exists "pg_trgm";`);
    this.addSql(`create extension if not exists "btree_gin";`);
    this.addSql(`create index if not exists "materials_search_text_trgm_index" on "materials" using gin ("shop_id", "search_text" gin_trgm_ops) with (fastupdate = off);`);
  }

  override down(): void {
    this.addSql(`drop index if exists "materials_search_text_trgm_index";`);
  }
}
