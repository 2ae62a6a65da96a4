import { Migration } from '@mikro-orm/migrations';

/**
 * Work orders and build runs as the API writes them: short human ids (backfilled in creation
 * order for rows that exist), the run's actor, rework items, stored start warnings and change
 * token, what each pick really took from stock, and adjustment history that names the run.
 */
export class Migration20261122150000 extends Migration {
  override up(): void {
    this.addSql(`alter table "work_orders" add "short_id" text null;`);
    this.addSql(`update "work_orders" w set "short_id" = 'WO-' || lpad(n.rn::text, 4, '0')
      from (select shop_id, work_order_id, row_number() over (partition by shop_id order by created_at, work_order_id) as rn from "work_orders") n
     where n.shop_id = w.shop_id and n.work_order_id = w.work_order_id;`);
    this.addSql(`alter table "work_orders" alter column "short_id" set not null;`);
    this.addSql(`alter table "work_orders" add constraint "work_orders_shop_id_short_id_unique" unique ("shop_id", "short_id");`);

    this.addSql(`alter table "build_runs" add "short_id" text null, add "actor_user_id" text null, add "actor_display_name" text null,
      add "rework_item_ids" text[] not null default '{}', add "warnings" jsonb not null default '[]', add "reversed_at" timestamptz(3) null,
      add "updated_at" timestamptz(3) null;`);
    this.addSql(`update "build_runs" r set "short_id" = w.short_id || '-R' || n.rn, "updated_at" = coalesce(r.completed_at, r.started_at)
      from (select shop_id, work_order_id, build_run_id, row_number() over (partition by shop_id, work_order_id order by started_at, build_run_id) as rn from "build_runs") n,
           "work_orders" w
     where n.shop_id = r.shop_id and n.work_order_id = r.work_order_id and n.build_run_id = r.build_run_id
       and w.shop_id = r.shop_id and w.work_order_id = r.work_order_id;`);
    this.addSql(`alter table "build_runs" alter column "short_id" set not null, alter column "updated_at" set not null;`);

    this.addSql(`alter table "build_run_picks" add "stock" text not null default 'material', add "carried_whole" numeric(20,6) null, add "deducted" numeric(20,6) null;`);
    this.addSql(`alter table "inventory_adjustments" add "stock" text not null default 'material', add "work_order_id" text null, add "build_run_id" text null;`);
  }
}
