import { Migration } from '@mikro-orm/migrations';

/**
 * Shopify webhooks in: the inbox (stored first, deduplicated by event id, applied after), Shopify's
 * `updated_at` on the mirror rows webhooks change (a late, older event never overwrites newer
 * state) and the time a store uninstalled the app.
 */
export class Migration20261128120000 extends Migration {
  override up(): void {
    this.addSql(`create table "shopify_webhook_events" ("shop_id" text not null, "event_id" text not null, "topic" text not null, "resource" text not null, "version" timestamptz(3) not null, "payload" jsonb not null, "received_at" timestamptz(3) not null, "status" text not null default 'pending', "effect" text null, "attempts" int not null default 0, "next_attempt_at" timestamptz(3) not null, "applied_at" timestamptz(3) null, "last_error" text null, primary key ("shop_id", "event_id"));`);
    this.addSql(`create index "shopify_webhook_events_status_next_attempt_at_index" on "shopify_webhook_events" ("status", "next_attempt_at");`);
    this.addSql(`create index "shopify_webhook_events_shop_id_resource_index" on "shopify_webhook_events" ("shop_id", "resource");`);
    this.addSql(`create index "shopify_webhook_events_received_at_index" on "shopify_webhook_events" ("received_at");`);
    this.addSql(`alter table "shopify_webhook_events" add constraint "shopify_webhook_events_status_check" check ("status" in ('pending', 'applied', 'skipped'));`);
    this.addSql(`alter table "shopify_webhook_events" add constraint "shopify_webhook_events_effect_check" check ("effect" in ('upsert', 'remove', 'delete', 'none'));`);
    this.addSql(`alter table "platform_connections" add "uninstalled_at" timestamptz(3) null;`);
    this.addSql(`alter table "platform_levels" add "updated_at" timestamptz(3) null;`);
    this.addSql(`alter table "platform_locations" add "updated_at" timestamptz(3) null;`);
    this.addSql(`alter table "platform_orders" add "updated_at" timestamptz(3) null;`);
    this.addSql(`alter table "platform_variants" add "updated_at" timestamptz(3) null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "shopify_webhook_events" cascade;`);
    for (const table of ['platform_levels', 'platform_locations', 'platform_orders', 'platform_variants']) this.addSql(`alter table "${table}" drop column "updated_at";`);
    this.addSql(`alter table "platform_connections" drop column "uninstalled_at";`);
  }
}
