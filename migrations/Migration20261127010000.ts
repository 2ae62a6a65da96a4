import { Migration } from '@mikro-orm/migrations';

/** A push the platform refused for good is stopped, not retried forever: `stopped_at` marks it. */
export class Migration20261127010000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_pushes" add column "stopped_at" timestamptz(3) null;`);
  }

  override down(): void {
    this.addSql(`alter table "platform_pushes" drop column "stopped_at";`);
  }
}
