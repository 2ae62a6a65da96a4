import { Migration } from '@mikro-orm/migrations';

/** Shopify connections: a shop's store domain, its sealed access token and its sync state. */
export class Migration20261127000000 extends Migration {
  override up(): void {
    this.addSql(`create table "platform_connections" ("shop_id" text not null, "domain" text not null, "api_version" text not null, "token_sealed" text not null, "scopes" jsonb not null, "store_name" text not null, "connected_at" timestamptz(3) not null, "sync_started_at" timestamptz(3) null, "sync_completed_at" timestamptz(3) null, "sync_counts" jsonb null, "sync_error" text null, "webhook_uri" text null, "webhook_topics" jsonb null, constraint "platform_connections_pkey" primary key ("shop_id"));`);
    this.addSql(`alter table "platform_connections" add constraint "platform_connections_domain_unique" unique ("domain");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "platform_connections" cascade;`);
  }
}
