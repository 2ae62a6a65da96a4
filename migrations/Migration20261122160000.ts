import { Migration } from '@mikro-orm/migrations';

/**
 * The stored BOM cost roll-up (`bill_costs`: every bill's three cost sums and total, exact, unscaled
 * numeric) and the BOM list's entries (`bom_list_entries`: status and total cost, collation ranks of
 * name, bomId and sku, lower-cased search text, the finished good's productId/sku/price), so the BOM
 * list pages, sorts, filters and aggregates in SQL. Shops already loaded are backfilled here.
 *
 * The backfill is written out in full (not imported from the service) so that this migration keeps
 * doing what it did when later code changes; it computes what `refreshCostRollup` computes.
 */
export class Migration20261122160000 extends Migration {
  override async up(): Promise<void> {
    await this.execute(`create table "bill_costs" ("shop_id" text not null, "owner_type" text not null, "owner_id" text not null, "raw_material_cost" numeric not null, "sub_assembly_cost" numeric not null, "cost_factor_cost" numeric not null, "total_cost" numeric not null, primary key ("shop_id", "owner_type", "owner_id"));`);
    await this.execute(`alter table "bill_costs" add constraint "bill_costs_owner_type_check" check ("owner_type" in ('bom', 'sub_assembly'));`);
    await this.execute(`create table "bom_list_entries" ("shop_id" text not null, "bom_id" text not null, "status" text not null, "total_cost" numeric not null, "name_rank" int not null, "bom_id_rank" int not null, "sku_rank" int null, "product_id" text null, "sku" text null, "price" numeric(20,6) null, "search_name" text not null, "search_sku" text null, "search_bom_id" text not null, primary key ("shop_id", "bom_id"));`);
    await this.execute(`alter table "bom_list_entries" add constraint "bom_list_entries_status_check" check ("status" in ('active', 'inactive'));`);
    await this.execute(`create index "bom_list_entries_shop_id_name_rank_bom_id_rank_index" on "bom_list_entries" ("shop_id", "name_rank", "bom_id_rank");`);
    await this.execute(`create index "bom_list_entries_shop_id_bom_id_rank_index" on "bom_list_entries" ("shop_id", "bom_id_rank");`);
    await this.execute(`create index "bom_list_entries_shop_id_sku_rank_bom_id_rank_index" on "bom_list_entries" ("shop_id", "sku_rank", "bom_id_rank");`);
    await this.execute(`create index "bom_list_entries_shop_id_price_bom_id_rank_index" on "bom_list_entries" ("shop_id", "price", "bom_id_rank");`);
    await this.execute(`create index "bom_list_entries_shop_id_total_cost_bom_id_rank_index" on "bom_list_entries" ("shop_id", "total_cost", "bom_id_rank");`);
    await this.execute(`create index "bom_list_entries_shop_id_status_bom_id_rank_index" on "bom_list_entries" ("shop_id", "status", "bom_id_rank");`);
    await this.backfillCosts();
    await this.backfillListEntries();
  }

  override async down(): Promise<void> {
    await this.execute(`drop table if exists "bill_costs" cascade;`);
    await this.execute(`drop table if exists "bom_list_entries" cascade;`);
  }

  /** Every bill of every shop, one statement per nesting level (children before parents). */
  private async backfillCosts(): Promise<void> {
    const rows = await this.execute(`
      with recursive up(shop_id, owner_type, owner_id, depth) as (
        select shop_id::text, 'bom'::text, bom_id::text, 0 from boms
        union all
        select shop_id::text, 'sub_assembly'::text, assembly_id::text, 0 from assembly_bills
        union
        select u.shop_id, p.owner_type, p.owner_id, u.depth + 1
          from up u
          cross join lateral (select l.owner_type::text, l.owner_id::text from recipe_lines l
                               where l.shop_id = u.shop_id and l.line_type = 'sub' and l.node_id = u.owner_id offset 0) p
         where u.owner_type = 'sub_assembly' and u.depth < 1000
      )
      select shop_id, owner_type, owner_id, max(depth) as level from up group by shop_id, owner_type, owner_id`) as
      { shop_id: string; owner_type: string; owner_id: string; level: number | string }[];
    const levels: { shop_id: string; owner_type: string; owner_id: string }[][] = [];
    for (const r of rows) {
      if (Number(r.level) >= 1000) throw new Error(`recipes of shop ${r.shop_id} nest 1000 deep or form a cycle`);
      (levels[Number(r.level)] ??= []).push(r);
    }
    for (const level of levels) {
      if (!level?.length) continue;
      await this.execute(`
        insert into bill_costs (shop_id, owner_type, owner_id, raw_material_cost, sub_assembly_cost, cost_factor_cost, total_cost)
        select s.shop_id, s.owner_type, s.owner_id, trim_scale(t.raw), trim_scale(t.sub), trim_scale(t.cf), trim_scale(t.raw + t.sub + t.cf)
          from unnest(?::text[], ?::text[], ?::text[]) as s(shop_id, owner_type, owner_id)
          cross join lateral (
            select coalesce(sum(l.quantity * (1 + l.waste_percentage * 0.01)
                     * coalesce((select m.unit_cost from materials m where m.shop_id = l.shop_id and m.variant_id = l.node_id), 0))
                     filter (where l.line_type = 'raw'), 0) as raw,
                   coalesce(sum(l.quantity
                     * coalesce((select c.total_cost from bill_costs c where c.shop_id = l.shop_id and c.owner_type = 'sub_assembly' and c.owner_id = l.node_id), 0))
                     filter (where l.line_type = 'sub'), 0) as sub,
                   coalesce(sum(l.quantity
                     * coalesce((select f.unit_cost from cost_factors f where f.shop_id = l.shop_id and f.cost_factor_id = l.node_id), 0))
                     filter (where l.line_type = 'cost'), 0) as cf
              from recipe_lines l
             where l.shop_id = s.shop_id and l.owner_type = s.owner_type and l.owner_id = s.owner_id
          ) t`, [arrayLiteral(level.map((b) => b.shop_id)), arrayLiteral(level.map((b) => b.owner_type)), arrayLiteral(level.map((b) => b.owner_id))]);
    }
  }

  /** Ranks per shop in the list collation; the finished good's fields from the local platform store. */
  private async backfillListEntries(): Promise<void> {
    const rows = await this.execute(`
      select b.shop_id, b.bom_id, b.name, b.status, c.total_cost::text as total_cost, v.product_id, v.sku, v.price::text as price
        from boms b
        join bill_costs c on c.shop_id = b.shop_id and c.owner_type = 'bom' and c.owner_id = b.bom_id
        left join platform_variants v on v.shop_id = b.shop_id and v.variant_id = b.variant_id
       order by b.shop_id`) as {
      shop_id: string; bom_id: string; name: string; status: string; total_cost: string; product_id: string | null; sku: string | null; price: string | null;
    }[];
    const byShop = new Map<string, typeof rows>();
    for (const r of rows) byShop.set(r.shop_id, [...(byShop.get(r.shop_id) ?? []), r]);
    for (const boms of byShop.values()) {
      const nameRanks = denseRanks(boms.map((b) => b.name));
      const bomIdRanks = denseRanks(boms.map((b) => b.bom_id));
      const skuRanks = denseRanks(boms.map((b) => b.sku));
      for (let start = 0; start < boms.length; start += 4000) {
        const chunk = boms.slice(start, start + 4000);
        await this.execute(`insert into bom_list_entries (shop_id, bom_id, status, total_cost, name_rank, bom_id_rank, sku_rank, product_id, sku, price,
            search_name, search_sku, search_bom_id)
          values ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((b, k) => {
          const i = start + k;
          return [b.shop_id, b.bom_id, b.status, b.total_cost, nameRanks[i], bomIdRanks[i], skuRanks[i], b.product_id, b.sku, b.price,
            b.name.toLowerCase(), b.sku?.toLowerCase() ?? null, b.bom_id.toLowerCase()];
        }));
      }
    }
  }
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function denseRanks(values: readonly (string | null)[]): (number | null)[] {
  const order = values.map((v, i) => ({ v, i })).filter((x): x is { v: string; i: number } => x.v !== null).sort((a, b) => collator.compare(a.v, b.v));
  const ranks: (number | null)[] = values.map(() => null);
  let rank = 0;
  order.forEach((x, n) => {
    if (n > 0 && collator.compare(order[n - 1]!.v, x.v) !== 0) rank += 1;
    ranks[x.i] = rank;
  });
  return ranks;
}

function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
