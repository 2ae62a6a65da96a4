import { Migration } from '@mikro-orm/migrations';

/**
 * A shop's plan (`standard` | `enhanced`): the enhanced-plan operations (starting a build run) are
 * refused on a standard shop with PLAN_REQUIRED. Every existing shop is enhanced: it could start
 * build runs until now, and keeps that.
 */
export class Migration20261204170000 extends Migration {
  override up(): void {
    this.addSql(`alter table "shops" add column if not exists "plan" text not null default 'enhanced';`);
    this.addSql(`alter table "shops" drop constraint if exists "shops_plan_check";`);
    this.addSql(`alter table "shops" add constraint "shops_plan_check" check ("plan" in ('standard', 'enhanced'));`);
  }

  override down(): void {
    this.addSql(`alter table "shops" drop constraint if exists "shops_plan_check";`);
    this.addSql(`alter table "shops" drop column if exists "plan";`);
  }
}
