import { Migration } from '@mikro-orm/migrations';

/**
 * A connection's contact with its store: when bomcore last read the store whole (a full sync or a
 * reconciliation pass that ended), and since when its attempts fail. Reads of a shop whose store
 * does not answer say so, with the age of what they serve.
 */
export class Migration20261130080000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_connections" add "last_contact_at" timestamptz(3) null, add "failing_since" timestamptz(3) null;`);
    this.addSql(`update "platform_connections" set "last_contact_at" = "sync_completed_at";`);
  }

  override down(): void {
    this.addSql(`alter table "platform_connections" drop column "last_contact_at", drop column "failing_since";`);
  }
}
