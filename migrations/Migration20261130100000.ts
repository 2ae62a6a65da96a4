import { Migration } from '@mikro-orm/migrations';

/**
 * Every shop's data version (docs/api-conventions.md, "Caching"): a counter raised once by every
 * committed transaction that changed any row a read of the shop can show. The database raises it,
 * so no write path can forget it: a statement-level trigger on each tracked table notes the shops
 * its statement changed (one scan of its transition table, not one call per row: a 20,000-row load
 * pays one note), and a deferred trigger raises the noted shops' versions at commit, in shop order.
 * Taking the version row locks last, at commit, means concurrent writers of one shop never wait on
 * each other before then and never deadlock on them; and since the raise commits with the data, no
 * reader sees the new data with the old version. (A version drawn from a sequence during the write
 * would not do: a lower number can commit after a higher one.)
 *
 * Not tracked: api_keys (no read shows a key; a read's tag names its key's scopes), idempotency_keys
 * (stored PATCH replies) and shopify_webhook_events (the inbox: applying an event writes the mirror,
 * which is tracked).
 */
export const TRACKED_TABLES: readonly (readonly [table: string, shopColumn: string])[] = [
  ['shops', 'id'], ['platform_connections', 'shop_id'],
  ...[
    'platform_locations', 'platform_variants', 'platform_levels', 'platform_orders', 'platform_order_lines', 'platform_order_metafields',
    'platform_applied_pushes', 'materials', 'material_levels', 'inventory_adjustments', 'cost_factors', 'assembly_bills', 'boms', 'recipe_lines',
    'location_rules', 'location_rule_overrides', 'bill_versions', 'bill_costs', 'bom_list_entries', 'preassembled_stock', 'residuals',
    'reservations', 'order_fulfilments', 'platform_pushes', 'assignees', 'flows', 'tasks', 'work_orders', 'work_order_items',
    'work_order_manual_materials', 'build_runs', 'build_run_items', 'build_run_picks', 'qc_reviews', 'qc_review_items', 'rework_items',
    'work_order_documents', 'work_order_messages', 'lifecycle_events',
  ].map((table) => [table, 'shop_id'] as const),
];

const NOTED = `coalesce(nullif(current_setting('bomcore.changed_shops', true), ''), '{}')::text[]`;

export class Migration20261130100000 extends Migration {
  override up(): void {
    this.addSql(`create table "shop_data_versions" ("shop_id" text not null, "version" bigint not null, primary key ("shop_id"));`);
    this.addSql(`create table "shop_data_version_marks" ("tx" bigint not null default txid_current(), primary key ("tx"));`);
    // The shops a transaction changed live in a transaction-local setting (rolled back with a
    // savepoint, gone at commit); the first note of a transaction inserts its mark.
    this.addSql(`create function "bomcore_note_changed_shops"() returns trigger language plpgsql as $$
declare
  noted text[] := ${NOTED};
  changed text[];
begin
  execute format('select array_agg(distinct %I) from %I where not (%I = any($1))', TG_ARGV[0], case when TG_OP = 'DELETE' then 'old_rows' else 'new_rows' end, TG_ARGV[0])
    into changed using noted;
  if changed is null then return null; end if;
  if cardinality(noted) = 0 then insert into "shop_data_version_marks" default values on conflict do nothing; end if;
  perform set_config('bomcore.changed_shops', (noted || changed)::text, true);
  return null;
end $$;`);
    this.addSql(`create function "bomcore_raise_data_versions"() returns trigger language plpgsql as $$
declare
  shops text[] := ${NOTED};
begin
  perform set_config('bomcore.changed_shops', '', true);
  delete from "shop_data_version_marks" where "tx" = txid_current();
  if cardinality(shops) = 0 then return null; end if;
  insert into "shop_data_versions" ("shop_id", "version") select s, 1 from unnest(shops) as s order by s
    on conflict ("shop_id") do update set "version" = "shop_data_versions"."version" + 1;
  return null;
end $$;`);
    this.addSql(`create constraint trigger "raise_data_versions" after insert on "shop_data_version_marks" deferrable initially deferred for each row execute function "bomcore_raise_data_versions"();`);
    for (const [table, column] of TRACKED_TABLES) {
      for (const [event, rows] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const) {
        this.addSql(`create trigger "${table}_note_${event}" after ${event} on "${table}" referencing ${rows} table as ${rows}_rows for each statement execute function "bomcore_note_changed_shops"('${column}');`);
      }
    }
  }

  override down(): void {
    for (const [table] of TRACKED_TABLES) {
      for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "${table}_note_${event}" on "${table}";`);
    }
    this.addSql(`drop table if exists "shop_data_version_marks" cascade;`);
    this.addSql(`drop table if exists "shop_data_versions" cascade;`);
    this.addSql(`drop function if exists "bomcore_note_changed_shops"();`);
    this.addSql(`drop function if exists "bomcore_raise_data_versions"();`);
  }
}
