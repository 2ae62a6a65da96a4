import { Migration } from '@mikro-orm/migrations';

/**
 * Pre-assembled shelves can be counted and adjusted by hand: the adjustment history records why
 * (`reason`: count, damaged, lost, found, correction) and the note given. Both are null for every
 * other change, so existing rows need nothing.
 */
export class Migration20261204180000 extends Migration {
  override up(): void {
    this.addSql(`alter table "inventory_adjustments" add column if not exists "reason" text null;`);
    this.addSql(`alter table "inventory_adjustments" add column if not exists "note" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "inventory_adjustments" drop column if exists "note";`);
    this.addSql(`alter table "inventory_adjustments" drop column if exists "reason";`);
  }
}
