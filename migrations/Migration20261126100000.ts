import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys get `claimed_until`: an `in_flight` claim is held until then (the request
 * deadline), and a retry after it takes the key over. Keys already `in_flight` when this runs were
 * claimed by the earlier code, whose write may have committed without its answer being stored: they
 * stay reserved until their 24 h end (never applied twice).
 */
export class Migration20261126100000 extends Migration {
  override up(): void {
    this.addSql(`alter table "idempotency_keys" add column "claimed_until" timestamptz(3) null;`);
    this.addSql(`update "idempotency_keys" set "claimed_until" = case when "state" = 'in_flight' then "expires_at" else "created_at" end;`);
    this.addSql(`alter table "idempotency_keys" alter column "claimed_until" set not null;`);
  }

  override down(): void {
    this.addSql(`alter table "idempotency_keys" drop column "claimed_until";`);
  }
}
