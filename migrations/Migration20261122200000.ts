import { Migration } from '@mikro-orm/migrations';

/**
 * The materials list in O(page): a stored, lowered search text (the four searchable fields joined
 * by a unit separator, byte-compared) so a search is one cheap `like` per row instead of four
 * `ilike`s, and sort indexes in the list's own order (lowered name, name, variant id — all "C") so
 * a page of a name-sorted list is an index scan that stops at the page.
 */
export class Migration20261122200000 extends Migration {
  override up(): void {
    this.addSql(`alter table "materials" add column "search_text" text collate "C" generated always as
      (lower("product_name" || chr(31) || coalesce("variant_name", '') || chr(31) || coalesce("sku", '') || chr(31) || coalesce("vendor", ''))) stored;`);
    this.addSql(`drop index if exists "materials_shop_id_product_name_variant_id_index";`);
    this.addSql(`drop index if exists "materials_shop_id_variant_name_variant_id_index";`);
    this.addSql(`create index "materials_product_name_sort_index" on "materials"
      ("shop_id", lower("product_name") collate "C", "product_name" collate "C", "variant_id" collate "C");`);
    this.addSql(`create index "materials_variant_name_sort_index" on "materials"
      ("shop_id", lower("variant_name") collate "C", "variant_name" collate "C", "variant_id" collate "C");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "materials_product_name_sort_index";`);
    this.addSql(`drop index if exists "materials_variant_name_sort_index";`);
    this.addSql(`alter table "materials" drop column if exists "search_text";`);
    this.addSql(`create index "materials_shop_id_product_name_variant_id_index" on "materials" ("shop_id", "product_name", "variant_id");`);
    this.addSql(`create index "materials_shop_id_variant_name_variant_id_index" on "materials" ("shop_id", "variant_name", "variant_id");`);
  }
}
