import { Migration } from '@mikro-orm/migrations';

/**
 * A material's inventory quantity moves out of the wide `materials` row into a narrow row of its own,
 * `material_quantities` (materials module), so a stock move no longer rewrites the material.
 *
 * Until now (Migration20261201090000) every moved virtual level updated `materials.level_total`, and
 * the generated `inventory_quantity` it feeds is indexed (the list's quantity sort): the update could
 * never be HOT, so each move wrote a new `materials` tuple and an entry in every one of its eight
 * indexes (the trigram GIN with `fastupdate = off` among them: ~120 buffers per material moved on the
 * 20k shop) and fired the materials' own statement triggers (list count, data version).
 *
 * - `material_quantities` (shop, variant): `level_total`, the sum of the variant's levels (0 with none),
 *   kept by the same statement-level triggers on `material_levels` (a delta per statement and variant,
 *   upserted in key order: two transactions moving different levels of one variant both add theirs,
 *   the second waiting for the first's row lock); `platform_quantity`, the material's cached platform
 *   total when it is platform-linked (null otherwise), copied by statement-level triggers on `materials`
 *   when a material is inserted or its origin or cached quantity changes; and `inventory_quantity`,
 *   generated from the two: the one definition of a material's quantity (docs/datasets.md), unchanged.
 * - The list's two quantity orders are indexed there (ties on variant id ascending in both); the list
 *   joins the row by primary key. Archived materials keep their row: the list leaves them out through
 *   the join, as before through the partial index.
 * - Every material has a row (its insert makes it); levels written before their material make it first
 *   (then the material's insert sets only its platform quantity). A material deleted with no level left
 *   loses its row; one that still has levels keeps their total, without a platform quantity.
 *
 * The narrow row is derived: it changes only in the statement of a change to `materials` or
 * `material_levels` of the same shop, which raises the data version already, so it has no version
 * triggers of its own. Every writer is covered without knowing, as before: the triggers are its only writers.
 * PGlite runs the same SQL.
 */
export class Migration20261206090000 extends Migration {
  override up(): void {
    this.addSql(`create table "material_quantities" ("shop_id" text not null, "variant_id" text not null,
      "level_total" numeric not null default 0, "platform_quantity" numeric null,
      "inventory_quantity" numeric generated always as (coalesce("platform_quantity", "level_total")) stored,
      primary key ("shop_id", "variant_id"));`);
    this.addSql(`insert into "material_quantities" ("shop_id", "variant_id", "level_total", "platform_quantity")
      select k."shop_id", k."variant_id", coalesce(l.total, 0), case when m."origin" = 'platform' then coalesce(m."cached_quantity", 0) end
      from (select "shop_id", "variant_id" from "materials" union select "shop_id", "variant_id" from "material_levels") k
      left join "materials" m on m."shop_id" = k."shop_id" and m."variant_id" = k."variant_id"
      left join (select "shop_id", "variant_id", sum("available") as total from "material_levels" group by 1, 2) l
        on l."shop_id" = k."shop_id" and l."variant_id" = k."variant_id";`);
    this.addSql(`create index "material_quantities_asc_index" on "material_quantities" ("shop_id", "inventory_quantity" asc, "variant_id" collate "C" asc);`);
    this.addSql(`create index "material_quantities_desc_index" on "material_quantities" ("shop_id", "inventory_quantity" desc, "variant_id" collate "C" asc);`);

    // The levels' totals: the same triggers (material_levels_total_*), now adding to the narrow row.
    this.addSql(`create or replace function "bomcore_add_level_totals"() returns trigger language plpgsql as $$
begin
  -- The rows are taken in key order first (the updates below take them in their join's order), so two
  -- statements moving levels of the same variants at different locations queue instead of deadlocking.
  if TG_OP = 'DELETE' then
    perform 1 from "material_quantities" q where (q."shop_id", q."variant_id") in (select "shop_id", "variant_id" from old_rows)
      order by q."shop_id", q."variant_id" for no key update;
  elsif TG_OP = 'UPDATE' then
    perform 1 from "material_quantities" q where (q."shop_id", q."variant_id") in (select "shop_id", "variant_id" from new_rows)
      order by q."shop_id", q."variant_id" for no key update;
  end if;
  if TG_OP = 'INSERT' then
    -- An upsert in key order: a level written before its material makes the row.
    insert into "material_quantities" as q ("shop_id", "variant_id", "level_total")
      select "shop_id", "variant_id", sum("available") from new_rows group by 1, 2 order by 1, 2
      on conflict ("shop_id", "variant_id") do update set "level_total" = q."level_total" + excluded."level_total"
      where excluded."level_total" <> 0;
  elsif TG_OP = 'DELETE' then
    update "material_quantities" q set "level_total" = q."level_total" - d.delta
      from (select "shop_id", "variant_id", sum("available") as delta from old_rows group by 1, 2) d
      where q."shop_id" = d."shop_id" and q."variant_id" = d."variant_id" and d.delta <> 0;
  else
    update "material_quantities" q set "level_total" = q."level_total" + d.delta
      from (select "shop_id", "variant_id", sum(v) as delta from
              (select "shop_id", "variant_id", "available" as v from new_rows
               union all select "shop_id", "variant_id", -"available" from old_rows) c group by 1, 2) d
      where q."shop_id" = d."shop_id" and q."variant_id" = d."variant_id" and d.delta <> 0;
  end if;
  return null;
end $$;`);
    // The materials' side: the platform quantity follows the row; a material's insert makes its row.
    this.addSql(`create function "bomcore_material_quantities"() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    insert into "material_quantities" as q ("shop_id", "variant_id", "platform_quantity")
      select "shop_id", "variant_id", case when "origin" = 'platform' then coalesce("cached_quantity", 0) end from new_rows order by 1, 2
      on conflict ("shop_id", "variant_id") do update set "platform_quantity" = excluded."platform_quantity"
      where q."platform_quantity" is distinct from excluded."platform_quantity";
  elsif TG_OP = 'UPDATE' then
    insert into "material_quantities" as q ("shop_id", "variant_id", "platform_quantity")
      select n."shop_id", n."variant_id", case when n."origin" = 'platform' then coalesce(n."cached_quantity", 0) end from new_rows n
      where not exists (select 1 from old_rows o where o."shop_id" = n."shop_id" and o."variant_id" = n."variant_id"
        and o."origin" = n."origin" and o."cached_quantity" is not distinct from n."cached_quantity")
      order by 1, 2
      on conflict ("shop_id", "variant_id") do update set "platform_quantity" = excluded."platform_quantity"
      where q."platform_quantity" is distinct from excluded."platform_quantity";
  else
    delete from "material_quantities" q using old_rows o
      where q."shop_id" = o."shop_id" and q."variant_id" = o."variant_id" and q."level_total" = 0
        and not exists (select 1 from "material_levels" l where l."shop_id" = q."shop_id" and l."variant_id" = q."variant_id");
    update "material_quantities" q set "platform_quantity" = null from old_rows o
      where q."shop_id" = o."shop_id" and q."variant_id" = o."variant_id" and q."platform_quantity" is not null;
  end if;
  return null;
end $$;`);
    for (const [event, referencing] of [['insert', 'new table as new_rows'], ['update', 'old table as old_rows new table as new_rows'], ['delete', 'old table as old_rows']] as const) {
      this.addSql(`create trigger "materials_quantity_${event}" after ${event} on "materials" referencing ${referencing} for each statement execute function "bomcore_material_quantities"();`);
    }

    // The wide row's copy goes, with its indexes and its insert trigger.
    this.addSql(`drop trigger if exists "materials_level_total_insert" on "materials";`);
    this.addSql(`drop function if exists "bomcore_material_level_total"();`);
    this.addSql(`drop index if exists "materials_inventory_quantity_asc_index";`);
    this.addSql(`drop index if exists "materials_inventory_quantity_desc_index";`);
    this.addSql(`alter table "materials" drop column if exists "inventory_quantity";`);
    this.addSql(`alter table "materials" drop column if exists "level_total";`);
  }

  override down(): void {
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "materials_quantity_${event}" on "materials";`);
    this.addSql(`drop function if exists "bomcore_material_quantities"();`);
    this.addSql(`alter table "materials" add column "level_total" numeric not null default 0;`);
    this.addSql(`update "materials" m set "level_total" = q."level_total" from "material_quantities" q where q."shop_id" = m."shop_id" and q."variant_id" = m."variant_id";`);
    // That update raised the shops' data versions through a deferred trigger (Migration20261130100000): fire it
    // now, so that a migration further down, in the same transaction, may drop its table.
    this.addSql(`set constraints all immediate;`);
    this.addSql(`alter table "materials" add column "inventory_quantity" numeric generated always as
      (case when "origin" = 'platform' then coalesce("cached_quantity", 0) else "level_total" end) stored;`);
    this.addSql(`create index "materials_inventory_quantity_asc_index" on "materials"
      ("shop_id", "inventory_quantity" asc, "variant_id" collate "C" asc) where "archived_at" is null;`);
    this.addSql(`create index "materials_inventory_quantity_desc_index" on "materials"
      ("shop_id", "inventory_quantity" desc, "variant_id" collate "C" asc) where "archived_at" is null;`);
    this.addSql(`drop table if exists "material_quantities";`);
    this.addSql(`create or replace function "bomcore_add_level_totals"() returns trigger language plpgsql as $$
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
    this.addSql(`create function "bomcore_material_level_total"() returns trigger language plpgsql as $$
begin
  new."level_total" := coalesce((select sum(l."available") from "material_levels" l where l."shop_id" = new."shop_id" and l."variant_id" = new."variant_id"), 0);
  return new;
end $$;`);
    this.addSql(`create trigger "materials_level_total_insert" before insert on "materials" for each row execute function "bomcore_material_level_total"();`);
  }
}
