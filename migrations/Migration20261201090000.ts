import { Migration } from '@mikro-orm/migrations';

/**
 * A material's inventory quantity stored on its row, so the materials list sorts by it in O(page)
 * (an index scan that stops at the page, instead of summing every level of the shop per request).
 *
 * - `level_total`: the sum of the material's own levels (`material_levels.available`), 0 with none.
 *   The database keeps it: a statement-level trigger per event on `material_levels` adds each
 *   statement's net change per material (one pass over its transition tables, so a 20,000-row load
 *   pays one update per material, not one per row). A delta, not a recount: two transactions moving
 *   different levels of one material both add theirs (the second waits for the first's row lock and
 *   adds to the committed total), where a recount read from the second's snapshot would lose the first.
 *   A material inserted after its levels starts from their sum (a BEFORE INSERT trigger).
 * - `inventory_quantity`: generated from the row, the one definition of a material's quantity
 *   (docs/datasets.md): the cached platform total for platform-linked materials, the level total for
 *   virtual ones. Platform totals follow the platform through `cached_quantity` as before.
 *
 * Every writer of levels (the stock ledger, `bomcore load`, anything later) is covered without
 * knowing: the trigger is the only writer of `level_total`, and nothing writes `inventory_quantity`.
 * The trigger's update takes the materials' rows `for no key update`: a writer that locks a material
 * before moving its levels locks it `for key share` (which that update does not wait for) or `for update`
 * (then it holds the row already); `for share` held by two writers of one material would deadlock.
 */
export class Migration20261201090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "materials" add column "level_total" numeric not null default 0;`);
    this.addSql(`update "materials" m set "level_total" = s.total from
      (select "shop_id", "variant_id", sum("available") as total from "material_levels" group by "shop_id", "variant_id") s
      where m."shop_id" = s."shop_id" and m."variant_id" = s."variant_id";`);
    this.addSql(`alter table "materials" add column "inventory_quantity" numeric generated always as
      (case when "origin" = 'platform' then coalesce("cached_quantity", 0) else "level_total" end) stored;`);
    // The list's two quantity orders (ties on variant id ascending in both), archived rows left out as the lists do.
    this.addSql(`create index "materials_inventory_quantity_asc_index" on "materials"
      ("shop_id", "inventory_quantity" asc, "variant_id" collate "C" asc) where "archived_at" is null;`);
    this.addSql(`create index "materials_inventory_quantity_desc_index" on "materials"
      ("shop_id", "inventory_quantity" desc, "variant_id" collate "C" asc) where "archived_at" is null;`);
    // The materials' rows are locked in key order before the update (whose join order is the planner's), so two
    // statements moving levels of the same materials at different locations queue instead of deadlocking.
    this.addSql(`create function "bomcore_add_level_totals"() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    perform 1 from "materials" m where (m."shop_id", m."variant_id") in (select "shop_id", "variant_id" from old_rows)
      order by m."shop_id", m."variant_id" for no key update;
  else
    perform 1 from "materials" m where (m."shop_id", m."variant_id") in (select "shop_id", "variant_id" from new_rows)
      order by m."shop_id", m."variant_id" for no key update;
  end if;
  if TG_OP = 'INSERT' then
    update "materials" m set "level_total" = m."level_total" + d.delta
      from (select "shop_id", "variant_id", sum("available") as delta from new_rows group by 1, 2) d
      where m."shop_id" = d."shop_id" and m."variant_id" = d."variant_id" and d.delta <> 0;
  elsif TG_OP = 'DELETE' then
    update "materials" m set "level_total" = m."level_total" - d.delta
      from (select "shop_id", "variant_id", sum("available") as delta from old_rows group by 1, 2) d
      where m."shop_id" = d."shop_id" and m."variant_id" = d."variant_id" and d.delta <> 0;
  else
    update "materials" m set "level_total" = m."level_total" + d.delta
      from (select "shop_id", "variant_id", sum(v) as delta from
              (select "shop_id", "variant_id", "available" as v from new_rows
               union all select "shop_id", "variant_id", -"available" from old_rows) c group by 1, 2) d
      where m."shop_id" = d."shop_id" and m."variant_id" = d."variant_id" and d.delta <> 0;
  end if;
  return null;
end $$;`);
    for (const [event, rows] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const) {
      const referencing = event === 'update' ? 'old table as old_rows new table as new_rows' : `${rows} table as ${rows}_rows`;
      this.addSql(`create trigger "material_levels_total_${event}" after ${event} on "material_levels" referencing ${referencing} for each statement execute function "bomcore_add_level_totals"();`);
    }
    this.addSql(`create function "bomcore_material_level_total"() returns trigger language plpgsql as $$
begin
  new."level_total" := coalesce((select sum(l."available") from "material_levels" l where l."shop_id" = new."shop_id" and l."variant_id" = new."variant_id"), 0);
  return new;
end $$;`);
    this.addSql(`create trigger "materials_level_total_insert" before insert on "materials" for each row execute function "bomcore_material_level_total"();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists "materials_level_total_insert" on "materials";`);
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "material_levels_total_${event}" on "material_levels";`);
    this.addSql(`drop function if exists "bomcore_material_level_total"();`);
    this.addSql(`drop function if exists "bomcore_add_level_totals"();`);
    this.addSql(`drop index if exists "materials_inventory_quantity_asc_index";`);
    this.addSql(`drop index if exists "materials_inventory_quantity_desc_index";`);
    this.addSql(`alter table "materials" drop column if exists "inventory_quantity";`);
    this.addSql(`alter table "materials" drop column if exists "level_total";`);
  }
}
