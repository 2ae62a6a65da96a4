import { Migration } from '@mikro-orm/migrations';

/**
 * Orders move stock: the fulfilments already consumed (one row per platform fulfilment, so a replay
 * consumes nothing twice) and the order and fulfilment an adjustment-history entry names.
 */
export class Migration20261129100000 extends Migration {
  override up(): void {
    this.addSql(`create table "order_fulfilments" ("shop_id" text not null, "fulfilment_id" text not null, "order_id" text not null, "location_id" text not null, "applied_at" timestamptz(3) not null, primary key ("shop_id", "fulfilment_id"));`);
    this.addSql(`create index "order_fulfilments_shop_id_order_id_index" on "order_fulfilments" ("shop_id", "order_id");`);
    this.addSql(`alter table "inventory_adjustments" add "order_id" text null, add "fulfilment_id" text null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "order_fulfilments" cascade;`);
    this.addSql(`alter table "inventory_adjustments" drop column "order_id", drop column "fulfilment_id";`);
  }
}
