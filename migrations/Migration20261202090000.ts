import { Migration } from '@mikro-orm/migrations';

/**
 * The aggregates the two big lists show over a whole shop, stored per shop so a list request reads
 * one row instead of counting every row of the shop (issue 21: a list's latency must not grow with the shop).
 *
 * - `material_list_counts.listed` (materials module): the shop's materials the raw-material lists show
 *   with no filter — both origins, archived ones left out. The unfiltered list answers its `totalCount` from it.
 * - `bom_list_stats` (recipes module): the BOM list's stats over its entries (`bom_list_entries`, one per
 *   BOM not archived): how many are active and inactive (the total is their sum: a status is one of the
 *   two), how many have a finished-good variant (`platform_linked`; the entries now carry the BOM's
 *   `variant_id` to count it from) and the sum of their stored total costs (`total_value`, exact numeric).
 *
 * The database keeps them, the way `materials.level_total` is kept (Migration20261201090000): a
 * statement-level trigger per event on the source table adds the statement's net change per shop,
 * one pass over its transition tables and one row upsert per shop the statement changed (a
 * 20,000-row load pays one per shop, not one per row). A statement whose net change is nil for a
 * shop (a mirror update of names and prices, a cost update of an entry) writes and locks nothing.
 * Every writer is covered without knowing: the services, `bomcore load`, the platform sync,
 * deletes, anything later. A delta, not a recount: a recount is O(shop), and one read from a
 * second writer's snapshot would lose the first writer's change.
 *
 * Concurrency: the upsert takes the shop's aggregate row lock until commit. Two transactions
 * inserting materials of one shop queue there: the second waits for the first to commit, then
 * adds its delta to the committed row (read committed re-reads the row it waited for; a missing
 * row is inserted once, the other conflicting insert turns into the update). Rows are upserted in
 * shop order, so statements touching several shops do not deadlock on them. The BOM list entries
 * are written only by the cost roll-up, under its per-shop advisory lock held to commit, so the
 * stats row lock never adds a wait there. The materials count row is locked by the writers of a
 * shop's list rows (create, archive/restore, load) before they record their event (whose per-shop
 * sequence row is held to commit as well), always in that order.
 *
 * Both tables are derived from tracked tables (Migration20261130100000): they change only in the
 * statement of a change to a tracked table of the same shop, which raises the data version already,
 * so they carry no version triggers of their own.
 *
 * PGlite runs the same SQL (transition tables, `on conflict`), in its single connection.
 */
export class Migration20261202090000 extends Migration {
  override up(): void {
    this.addSql(`create table "material_list_counts" ("shop_id" text not null, "listed" int not null, primary key ("shop_id"));`);
    this.addSql(`insert into "material_list_counts" ("shop_id", "listed")
      select "shop_id", count(*) from "materials" where "archived_at" is null group by "shop_id";`);
    this.addSql(`create function "bomcore_count_listed_materials"() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    insert into "material_list_counts" as c ("shop_id", "listed")
      select "shop_id", count(*) from new_rows where "archived_at" is null group by 1 order by 1
      on conflict ("shop_id") do update set "listed" = c."listed" + excluded."listed";
  elsif TG_OP = 'DELETE' then
    insert into "material_list_counts" as c ("shop_id", "listed")
      select "shop_id", -count(*) from old_rows where "archived_at" is null group by 1 order by 1
      on conflict ("shop_id") do update set "listed" = c."listed" + excluded."listed";
  else
    insert into "material_list_counts" as c ("shop_id", "listed")
      select "shop_id", sum(n) from
        (select "shop_id", 1 as n from new_rows where "archived_at" is null
         union all select "shop_id", -1 from old_rows where "archived_at" is null) d
      group by 1 having sum(n) <> 0 order by 1
      on conflict ("shop_id") do update set "listed" = c."listed" + excluded."listed";
  end if;
  return null;
end $$;`);
    for (const event of ['insert', 'update', 'delete'] as const) {
      const referencing = { insert: 'new table as new_rows', update: 'old table as old_rows new table as new_rows', delete: 'old table as old_rows' }[event];
      this.addSql(`create trigger "materials_list_count_${event}" after ${event} on "materials" referencing ${referencing} for each statement execute function "bomcore_count_listed_materials"();`);
    }

    this.addSql(`alter table "bom_list_entries" add column "variant_id" text null;`);
    this.addSql(`update "bom_list_entries" e set "variant_id" = b."variant_id" from "boms" b
      where b."shop_id" = e."shop_id" and b."bom_id" = e."bom_id" and b."variant_id" is not null;`);
    this.addSql(`create table "bom_list_stats" ("shop_id" text not null, "active" int not null, "inactive" int not null, "platform_linked" int not null, "total_value" numeric not null, primary key ("shop_id"));`);
    this.addSql(`insert into "bom_list_stats" ("shop_id", "active", "inactive", "platform_linked", "total_value")
      select "shop_id", count(*) filter (where "status" = 'active'), count(*) filter (where "status" = 'inactive'), count("variant_id"), sum("total_cost")
      from "bom_list_entries" group by "shop_id";`);
    // Each entry counts +1 (new rows) or -1 (old rows) in its status, its link and its cost.
    const delta = (rows: 'new_rows' | 'old_rows', sign: 1 | -1) => `select "shop_id", ${sign} * ("status" = 'active')::int as a, ${sign} * ("status" = 'inactive')::int as i,
          ${sign} * ("variant_id" is not null)::int as l, ${sign === 1 ? '' : '-'}"total_cost" as v from ${rows}`;
    const upsert = (source: string) => `insert into "bom_list_stats" as s ("shop_id", "active", "inactive", "platform_linked", "total_value")
      select "shop_id", sum(a), sum(i), sum(l), sum(v) from (${source}) d
      group by 1 having sum(a) <> 0 or sum(i) <> 0 or sum(l) <> 0 or sum(v) <> 0 order by 1
      on conflict ("shop_id") do update set "active" = s."active" + excluded."active", "inactive" = s."inactive" + excluded."inactive",
        "platform_linked" = s."platform_linked" + excluded."platform_linked", "total_value" = s."total_value" + excluded."total_value";`;
    this.addSql(`create function "bomcore_add_bom_list_stats"() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    ${upsert(delta('new_rows', 1))}
  elsif TG_OP = 'DELETE' then
    ${upsert(delta('old_rows', -1))}
  else
    ${upsert(`${delta('new_rows', 1)} union all ${delta('old_rows', -1)}`)}
  end if;
  return null;
end $$;`);
    for (const event of ['insert', 'update', 'delete'] as const) {
      const referencing = { insert: 'new table as new_rows', update: 'old table as old_rows new table as new_rows', delete: 'old table as old_rows' }[event];
      this.addSql(`create trigger "bom_list_entries_stats_${event}" after ${event} on "bom_list_entries" referencing ${referencing} for each statement execute function "bomcore_add_bom_list_stats"();`);
    }
  }

  override down(): void {
    for (const event of ['insert', 'update', 'delete']) {
      this.addSql(`drop trigger if exists "materials_list_count_${event}" on "materials";`);
      this.addSql(`drop trigger if exists "bom_list_entries_stats_${event}" on "bom_list_entries";`);
    }
    this.addSql(`drop function if exists "bomcore_count_listed_materials"();`);
    this.addSql(`drop function if exists "bomcore_add_bom_list_stats"();`);
    this.addSql(`drop table if exists "material_list_counts";`);
    this.addSql(`drop table if exists "bom_list_stats";`);
    this.addSql(`alter table "bom_list_entries" drop column if exists "variant_id";`);
  }
}
