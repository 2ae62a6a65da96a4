import { Migration } from '@mikro-orm/migrations';

/**
 * Planning fields: a material's lead time (whole days), minimum order quantity and order multiple
 * (null = any quantity); a BOM's and an assembly bill's lead time. Existing rows take the defaults
 * (no lead time, no minimum, any quantity), so plans of shops that never set them are unchanged.
 */
export class Migration20261205120000 extends Migration {
  override up(): void {
    this.addSql(`alter table "materials" add column if not exists "lead_time_days" int not null default 0;`);
    this.addSql(`alter table "materials" add column if not exists "minimum_order_quantity" numeric(20,6) not null default 0;`);
    this.addSql(`alter table "materials" add column if not exists "order_multiple" numeric(20,6) null;`);
    this.addSql(`alter table "boms" add column if not exists "lead_time_days" int not null default 0;`);
    this.addSql(`alter table "assembly_bills" add column if not exists "lead_time_days" int not null default 0;`);
  }

  override down(): void {
    this.addSql(`alter table "assembly_bills" drop column if exists "lead_time_days";`);
    this.addSql(`alter table "boms" drop column if exists "lead_time_days";`);
    this.addSql(`alter table "materials" drop column if exists "order_multiple";`);
    this.addSql(`alter table "materials" drop column if exists "minimum_order_quantity";`);
    this.addSql(`alter table "materials" drop column if exists "lead_time_days";`);
  }
}
