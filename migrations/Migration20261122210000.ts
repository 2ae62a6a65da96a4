import { Migration } from '@mikro-orm/migrations';

/**
 * The catalogue write surface: an archive mark on materials, cost factors, assembly bills and BOMs
 * (archived rows leave the lists and cannot be newly referenced; existing references keep working),
 * and the content snapshot a bill save freezes into its pending version row, from which the
 * version filler computes the change summary and content hash after the save commits.
 */
export class Migration20261122210000 extends Migration {
  override up(): void {
    this.addSql(`alter table "materials" add column "archived_at" timestamptz(3) null;`);
    this.addSql(`alter table "cost_factors" add column "archived_at" timestamptz(3) null;`);
    this.addSql(`alter table "assembly_bills" add column "archived_at" timestamptz(3) null;`);
    this.addSql(`alter table "boms" add column "archived_at" timestamptz(3) null;`);
    this.addSql(`alter table "bill_versions" add column "content" jsonb null;`);
    this.addSql(`create index "bill_versions_state_shop_id_index" on "bill_versions" ("state", "shop_id");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "bill_versions_state_shop_id_index";`);
    this.addSql(`alter table "bill_versions" drop column if exists "content";`);
    this.addSql(`alter table "boms" drop column if exists "archived_at";`);
    this.addSql(`alter table "assembly_bills" drop column if exists "archived_at";`);
    this.addSql(`alter table "cost_factors" drop column if exists "archived_at";`);
    this.addSql(`alter table "materials" drop column if exists "archived_at";`);
  }
}
