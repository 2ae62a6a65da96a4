import { Migration } from '@mikro-orm/migrations';

/**
 * QC per item: a review records, for each item of its build run, the units it approved and the
 * units it failed. Reviews written before judged their whole run with one decision; they are
 * carried over as that decision applied to every unit each item of the run built.
 */
export class Migration20261123000000 extends Migration {
  override up(): void {
    this.addSql(`create table "qc_review_items" ("shop_id" text not null, "work_order_id" text not null, "review_id" text not null, "item_id" text not null, "approved_quantity" numeric(20,6) not null, "failed_quantity" numeric(20,6) not null, primary key ("shop_id", "work_order_id", "review_id", "item_id"));`);
    this.addSql(`insert into "qc_review_items" ("shop_id", "work_order_id", "review_id", "item_id", "approved_quantity", "failed_quantity")
      select q.shop_id, q.work_order_id, q.review_id, i.item_id,
             case when q.decision = 'approved' then i.quantity else 0 end,
             case when q.decision = 'approved' then 0 else i.quantity end
        from "qc_reviews" q
        join "build_run_items" i on i.shop_id = q.shop_id and i.work_order_id = q.work_order_id and i.build_run_id = q.build_run_id;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "qc_review_items" cascade;`);
  }
}
