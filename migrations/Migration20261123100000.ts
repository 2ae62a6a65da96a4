import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys of PATCH requests (the `Idempotency-Key` header): per shop and key, the hash of
 * the first request and its stored response, replayed to a retry for 24 h.
 */
export class Migration20261123100000 extends Migration {
  override up(): void {
    this.addSql(`create table "idempotency_keys" ("shop_id" text not null, "key" text not null, "request_hash" text not null, "state" text not null, "claim_token" text not null, "response_status" int null, "response_headers" jsonb null, "response_body" text null, "created_at" timestamptz(3) not null, "expires_at" timestamptz(3) not null, primary key ("shop_id", "key"));`);
    this.addSql(`create index "idempotency_keys_shop_id_expires_at_index" on "idempotency_keys" ("shop_id", "expires_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }
}
