import { Migration } from '@mikro-orm/migrations';

/**
 * Events out: the per-shop event sequence, the events written in the transaction of each change,
 * the webhook endpoints of a shop (sealed secrets) and the delivery outbox their worker drains.
 * None carries the shop data version's triggers: no REST read shows them, and a delivery changes
 * on every attempt (a tag would change with it).
 */
export class Migration20261201100000 extends Migration {
  override up(): void {
    this.addSql(`create table "events" ("shop_id" text not null, "sequence" bigint not null, "event_id" text not null, "type" text not null, "resource" text not null, "occurred_at" timestamptz(3) not null, "data" text not null, primary key ("shop_id", "sequence"));`);
    this.addSql(`create index "events_shop_id_event_id_index" on "events" ("shop_id", "event_id");`);
    this.addSql(`create table "event_sequences" ("shop_id" text not null, "last_sequence" bigint not null, primary key ("shop_id"));`);
    this.addSql(`create table "webhook_deliveries" ("shop_id" text not null, "delivery_id" text not null, "endpoint_id" text not null, "event_sequence" bigint null, "event_type" text not null, "resource" text not null, "status" text not null, "attempts" int not null default 0, "created_at" timestamptz(3) not null, "next_attempt_at" timestamptz(3) not null, "last_attempt_at" timestamptz(3) null, "first_failed_at" timestamptz(3) null, "last_status_code" int null, "last_error" text null, "delivered_at" timestamptz(3) null, primary key ("shop_id", "delivery_id"));`);
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where status = 'pending';`);
    this.addSql(`create index "webhook_deliveries_resource_index" on "webhook_deliveries" ("shop_id", "endpoint_id", "resource", "event_sequence") where status = 'pending';`);
    this.addSql(`create index "webhook_deliveries_shop_id_endpoint_id_created_at_index" on "webhook_deliveries" ("shop_id", "endpoint_id", "created_at");`);
    this.addSql(`create table "webhook_endpoints" ("shop_id" text not null, "endpoint_id" text not null, "url" text not null, "topics" text[] not null, "description" text null, "secret_sealed" text not null, "previous_secret_sealed" text null, "previous_secret_expires_at" timestamptz(3) null, "disabled_at" timestamptz(3) null, "disabled_reason" text null, "failing_since" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("shop_id", "endpoint_id"));`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('pending', 'delivered', 'abandoned', 'note'));`);
  }

  override down(): void {
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
    this.addSql(`drop table if exists "event_sequences" cascade;`);
  }
}
