import { Migration } from '@mikro-orm/migrations';

/**
 * Whether the platform counts a variant's stock (Shopify's `InventoryItem.tracked`): an untracked
 * item (labels, string, anything a shop does not count) has no levels worth reading, so it is not
 * stock and never limits what can be built. Mirrored on the platform's variants, with the time of
 * the inventory item's own last change (its webhooks carry their own `updated_at`, not the
 * product's), and on platform-linked materials, which buildable reads. Every existing row is
 * tracked: that is what bomcore assumed until now, and the next sync reads the truth.
 */
export class Migration20261204120000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_variants" add column if not exists "tracked" boolean not null default true;`);
    this.addSql(`alter table "platform_variants" add column if not exists "item_updated_at" timestamptz(3) null;`);
    this.addSql(`alter table "materials" add column if not exists "tracked" boolean not null default true;`);
  }

  override down(): void {
    this.addSql(`alter table "materials" drop column if exists "tracked";`);
    this.addSql(`alter table "platform_variants" drop column if exists "item_updated_at";`);
    this.addSql(`alter table "platform_variants" drop column if exists "tracked";`);
  }
}
