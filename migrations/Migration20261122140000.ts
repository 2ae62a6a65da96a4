import { Migration } from '@mikro-orm/migrations';

/**
 * The transactional outbox of platform-linked stock moves (`platform_pushes`) and the local
 * platform store's idempotency record of the pushes it applied (`platform_applied_pushes`).
 */
export class Migration20261122140000 extends Migration {
  override up(): void {
    this.addSql(`create table "platform_applied_pushes" ("shop_id" text not null, "push_id" text not null, "applied_at" timestamptz(3) not null, primary key ("shop_id", "push_id"));`);
    this.addSql(`create table "platform_pushes" ("shop_id" text not null, "push_id" text not null, "variant_id" text not null, "location_id" text not null, "delta" numeric(20,6) not null, "work_order_id" text null, "build_run_id" text null, "reason" text not null, "status" text not null default 'pending', "attempts" int not null default 0, "last_error" text null, "created_at" timestamptz(3) not null, "next_attempt_at" timestamptz(3) not null, "pushed_at" timestamptz(3) null, primary key ("shop_id", "push_id"));`);
    this.addSql(`alter table "platform_pushes" add constraint "platform_pushes_status_check" check ("status" in ('pending', 'pushed'));`);
    this.addSql(`create index "platform_pushes_status_next_attempt_at_index" on "platform_pushes" ("status", "next_attempt_at");`);
    this.addSql(`create index "platform_pushes_pending_level_index" on "platform_pushes" ("shop_id", "variant_id", "location_id") where status = 'pending';`);
    this.addSql(`create index "platform_pushes_shop_id_work_order_id_index" on "platform_pushes" ("shop_id", "work_order_id");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "platform_pushes";`);
    this.addSql(`drop table if exists "platform_applied_pushes";`);
  }
}
