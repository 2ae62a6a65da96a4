import { Migration } from '@mikro-orm/migrations';

/**
 * Storefront stock for finished goods: a BOM says whether bomcore sets its finished good's
 * available level on the platform (`storefront_stock`: manual, the default for every existing BOM,
 * shelf or sellable), and `storefront_recomputes` holds one marker per finished good whose level
 * may have changed, upserted with the change and drained by the outbox drainer.
 */
export class Migration20261205090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "boms" add column if not exists "storefront_stock" text not null default 'manual';`);
    this.addSql(`alter table "boms" add constraint "boms_storefront_stock_check" check ("storefront_stock" in ('manual', 'shelf', 'sellable'));`);
    this.addSql(`create table "storefront_recomputes" ("shop_id" text not null, "variant_id" text not null, "generation" int not null default 1, "done_generation" int not null default 0, "next_attempt_at" timestamptz(3) not null, "attempts" int not null default 0, "last_error" text null, primary key ("shop_id", "variant_id"));`);
    this.addSql(`create index "storefront_recomputes_next_attempt_at_index" on "storefront_recomputes" ("next_attempt_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "storefront_recomputes" cascade;`);
    this.addSql(`alter table "boms" drop constraint if exists "boms_storefront_stock_check";`);
    this.addSql(`alter table "boms" drop column if exists "storefront_stock";`);
  }
}
