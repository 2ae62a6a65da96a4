import { Migration } from '@mikro-orm/migrations';

/**
 * The work-order list's facets stored per shop, so the list without a narrowing filter reads them in
 * O(facet values) instead of grouping every work order of the shop per request.
 *
 * - `work_order_facet_counts` (shop, facet, value, count): how many work orders of the shop have
 *   that status, that production location, that assignee, that tag (a tag counted once per entry
 *   of a work order's `tags`, as the list counts it). Only values held by at least one work order
 *   have a row. Work orders with no location or no assignee have no row: the list derives those
 *   counts as the total (the sum of the status counts) minus the counted ones.
 * - All four facets live on the `work_orders` row, so one statement-level trigger per event on
 *   `work_orders` keeps the counts: it adds each statement's net change per (shop, facet, value) from
 *   its transition tables (one pass, whatever the number of rows: a 2,500-row load pays one upsert),
 *   then deletes the rows it brought to 0. A write that changes none of the four columns (a run, a
 *   message touching `updated_at`) has a net change of nothing and touches no count.
 *   A delta, not a recount: two transactions changing different work orders of one value both add
 *   theirs (the second waits for the first's row lock and adds to the committed count). The upsert
 *   takes its rows in key order, so two statements changing the same values queue instead of
 *   deadlocking. A count row is locked from the statement that changes it to the commit: writers of
 *   one shop that move work orders into or out of the same value queue there (creates already queue
 *   on the shop's short-id lock). A row deleted at 0 by one transaction while another waits to add
 *   to it is inserted again by the waiter (INSERT … ON CONFLICT retries when the conflicting row
 *   is gone). Key order holds within a statement only: two transactions that each change facet
 *   values in several statements, in opposite orders, can deadlock (PostgreSQL aborts one, the
 *   counts stay exact). Each service changes them in one statement per transaction; `bomcore load`
 *   uses several (the delete, then batches), so a load racing other writes of the same shop may be
 *   the one aborted, leaving the shop as it was.
 * - TRUNCATE of `work_orders` (no code does it) empties the counts.
 *
 * Every writer of work orders (the services, `bomcore load`, deletes) is covered without knowing: the
 * triggers are the only writers of the table. It carries no data-version triggers: it changes only
 * with `work_orders`, in the same statement, and `work_orders` raises the version.
 */

/** The facet entries of the work orders in `rows`, each with `sign` (1 or -1). */
const facetsOf = (rows: string, sign: 1 | -1) => `
  select r."shop_id", 'status' as facet, r."status" as value, ${sign} as d from ${rows} r
  union all select r."shop_id", 'location', r."production_location_id", ${sign} from ${rows} r where r."production_location_id" is not null
  union all select r."shop_id", 'assignee', r."assignee_id", ${sign} from ${rows} r where r."assignee_id" is not null
  union all select r."shop_id", 'tag', t.tag, ${sign} from ${rows} r cross join unnest(r."tags") as t(tag) where t.tag is not null`;

/** Adds the net change of `entries` to the counts (rows in key order) and notes the keys it brought to 0. */
const addCounts = (entries: string) => `
  with up as (
    insert into "work_order_facet_counts" as c ("shop_id", "facet", "value", "count")
      select "shop_id", facet, value, sum(d) from (${entries}) e group by 1, 2, 3 having sum(d) <> 0 order by 1, 2, 3
      on conflict ("shop_id", "facet", "value") do update set "count" = c."count" + excluded."count"
      returning c."shop_id", c."facet", c."value", c."count")
  select array_agg("shop_id"), array_agg("facet"), array_agg("value") into zero_shops, zero_facets, zero_values from up where "count" = 0;`;

export class Migration20261202100000 extends Migration {
  override up(): void {
    this.addSql(`create table "work_order_facet_counts" ("shop_id" text not null, "facet" text not null, "value" text not null, "count" int not null, primary key ("shop_id", "facet", "value"));`);
    this.addSql(`alter table "work_order_facet_counts" add constraint "work_order_facet_counts_facet_check" check ("facet" in ('status', 'location', 'assignee', 'tag'));`);
    this.addSql(`insert into "work_order_facet_counts" ("shop_id", "facet", "value", "count")
      select "shop_id", facet, value, sum(d) from (${facetsOf('"work_orders"', 1)}) e group by 1, 2, 3;`);
    this.addSql(`create function "bomcore_count_work_order_facets"() returns trigger language plpgsql as $$
declare
  zero_shops text[];
  zero_facets text[];
  zero_values text[];
begin
  if TG_OP = 'INSERT' then${addCounts(facetsOf('new_rows', 1))}
  elsif TG_OP = 'DELETE' then${addCounts(facetsOf('old_rows', -1))}
  else${addCounts(`${facetsOf('new_rows', 1)}\n  union all ${facetsOf('old_rows', -1)}`)}
  end if;
  if zero_shops is not null then
    delete from "work_order_facet_counts" c using unnest(zero_shops, zero_facets, zero_values) as z(shop_id, facet, value)
      where c."shop_id" = z.shop_id and c."facet" = z.facet and c."value" = z.value and c."count" = 0;
  end if;
  return null;
end $$;`);
    for (const [event, rows] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const) {
      const referencing = event === 'update' ? 'old table as old_rows new table as new_rows' : `${rows} table as ${rows}_rows`;
      this.addSql(`create trigger "work_orders_facets_${event}" after ${event} on "work_orders" referencing ${referencing} for each statement execute function "bomcore_count_work_order_facets"();`);
    }
    this.addSql(`create function "bomcore_clear_work_order_facets"() returns trigger language plpgsql as $$
begin
  delete from "work_order_facet_counts";
  return null;
end $$;`);
    this.addSql(`create trigger "work_orders_facets_truncate" after truncate on "work_orders" for each statement execute function "bomcore_clear_work_order_facets"();`);
  }

  override down(): void {
    for (const event of ['insert', 'update', 'delete', 'truncate']) this.addSql(`drop trigger if exists "work_orders_facets_${event}" on "work_orders";`);
    this.addSql(`drop function if exists "bomcore_clear_work_order_facets"();`);
    this.addSql(`drop function if exists "bomcore_count_work_order_facets"();`);
    this.addSql(`drop table if exists "work_order_facet_counts" cascade;`);
  }
}
