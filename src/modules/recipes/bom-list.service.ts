import type { ShopContext } from '../../shop-context.ts';
import type { BomView, CostLineView, RawLineView, SubLineView } from './bom-views.ts';
import type { CostFactorInfo, MaterialInfo } from './recipe-data.ts';

export const BOM_SORTS = ['name', 'bomId', 'sku', 'price', 'totalCost', 'status'] as const;
export type BomSort = (typeof BOM_SORTS)[number];
export const BOM_STATUS_FILTERS = ['all', 'active', 'inactive'] as const;

export interface BomListInput {
  search: string | null; statusFilter: 'all' | 'active' | 'inactive'; sortBy: string | null; sortOrder: 'asc' | 'desc'; page: number; pageSize: number;
}
export interface BomStats { total: number; active: number; inactive: number; totalValue: string; avgCost: string; platformLinked: number }
export interface BomListPage { items: BomView[]; totalCount: number; page: number; pageSize: number; totalPages: number; stats: BomStats }

// Everything the list filters, sorts, searches and sums on is in bom_list_entries (kept by
// cost-rollup.repository.ts): the text keys are ranks in the list collation (case-insensitive,
// digit runs by value), so SQL orders exactly as that collator does. Ties break on bomId ascending:
// its collation rank, then its bytes (bomIds are ASCII).
const TIE = 'e.bom_id_rank asc, e.bom_id collate "C" asc';
const SORT_SQL: Record<BomSort, string> = {
  name: `e.name_rank {dir}, ${TIE}`,
  bomId: `e.bom_id_rank {dir}, e.bom_id collate "C" asc`,
  sku: `e.sku_rank {dir} nulls last, ${TIE}`,
  price: `e.price {dir} nulls last, ${TIE}`,
  totalCost: `e.total_cost {dir}, ${TIE}`,
  status: `e.status {dir}, ${TIE}`, // 'active' < 'inactive' in every collation
};

interface LineJson {
  t: 'raw' | 'sub' | 'cost'; n: string; q: string; w: string; p: number;
  m: MaterialInfo | null;
  f: CostFactorInfo | null;
}

interface ListRow {
  total: string | number; active: string | number; inactive: string | number; platform_linked: string | number; total_value: string; avg_cost: string;
  total_count: string | number | null;
  bom_id: string | null; name: string; status: 'active' | 'inactive'; variant_id: string | null; product_id: string | null; sku: string | null;
  price: string | null; raw_material_cost: string; sub_assembly_cost: string; cost_factor_cost: string; total_cost: string;
  preassembled: string; lines: LineJson[] | string;
}

/**
 * The BOM list in ONE SQL statement whatever the page size or the size of the shop: the page
 * (filtered, sorted, limited in SQL over the BOM list entries), the filtered count (with a search),
 * the stats over every BOM of the shop, and the page's lines (with their materials and cost factors)
 * and finished-good shelves. Nothing here computes a cost: `refreshCostRollup` keeps the roll-up
 * current on every write.
 *
 * search: case-insensitive literal substring of name, sku or bomId (lower-cased when the keys are
 * written, so it matches exactly as `toLowerCase().includes` does). Sort keys: name (default),
 * bomId (by its number), sku, price, totalCost, status; nulls last in both directions; ties by
 * bomId ascending. Costs are exact; the Decimal scalar rounds them half-up to 6 places.
 */
export async function listBoms(ctx: ShopContext, input: BomListInput): Promise<BomListPage> {
  const where: string[] = ['e.shop_id = ?'];
  const args: unknown[] = [ctx.shopId];
  if (input.statusFilter !== 'all') {
    where.push('e.status = ?');
    args.push(input.statusFilter);
  }
  const needle = input.search?.toLowerCase() ?? '';
  if (needle !== '') {
    where.push('(strpos(e.search_name, ?) > 0 or strpos(e.search_sku, ?) > 0 or strpos(e.search_bom_id, ?) > 0)');
    args.push(needle, needle, needle);
  }
  const sortBy: BomSort = (BOM_SORTS as readonly string[]).includes(input.sortBy ?? '') ? (input.sortBy as BomSort) : 'name';
  const order = SORT_SQL[sortBy].replaceAll('{dir}', input.sortOrder === 'desc' ? 'desc' : 'asc');
  const s = ctx.shopId;

  // Every part reads one table, or probes by primary key for the page's rows (lateral, offset 0),
  // so the plan stays cheap even before the planner has statistics (right after a load).
  const rows = await ctx.em.execute<ListRow[]>(
    `with page as (
       select e.bom_id, e.product_id, e.sku, e.price, row_number() over (order by ${order}) as ord
         from bom_list_entries e
        where ${where.join(' and ')}
        order by ${order}
        limit ? offset ?
     ),
     counts as (
       select count(*) as total, count(*) filter (where status = 'active') as active, count(*) filter (where status = 'inactive') as inactive,
              count(variant_id) as platform_linked
         from boms where shop_id = ?
     ),
     value as (select coalesce(sum(total_cost), 0) as total_value from bom_list_entries where shop_id = ?)
     select n.total, n.active, n.inactive, n.platform_linked, trim_scale(v.total_value)::text as total_value,
            -- avgCost = totalValue / total rounded half-up to 6 places, exactly (no intermediate rounding)
            case when n.total = 0 then '0'
                 else trim_scale(sign(v.total_value) * div(abs(v.total_value) * 2000000 + n.total, n.total * 2) / 1000000)::text end as avg_cost,
            ${needle === '' ? 'null' : `(select count(*) from bom_list_entries e where ${where.join(' and ')})`} as total_count,
            p.bom_id, b.name, b.status, b.variant_id, p.product_id, p.sku, p.price::text as price,
            trim_scale(c.raw_material_cost)::text as raw_material_cost, trim_scale(c.sub_assembly_cost)::text as sub_assembly_cost,
            trim_scale(c.cost_factor_cost)::text as cost_factor_cost, trim_scale(c.total_cost)::text as total_cost,
            (select trim_scale(coalesce(sum(ps.quantity), 0))::text from preassembled_stock ps
              where ps.shop_id = ? and ps.item_id = b.variant_id) as preassembled,
            (select coalesce(json_agg(json_build_object(
                      't', l.line_type, 'n', l.node_id, 'q', trim_scale(l.quantity)::text, 'w', trim_scale(l.waste_percentage)::text, 'p', l.position,
                      'm', (select json_build_object('variantId', m.variant_id, 'origin', m.origin, 'productName', m.product_name,
                              'variantName', m.variant_name, 'sku', m.sku, 'unit', m.unit, 'unitCost', m.unit_cost::text,
                              'isNonEssential', m.is_non_essential_material)
                              from materials m where l.line_type = 'raw' and m.shop_id = l.shop_id and m.variant_id = l.node_id),
                      'f', (select json_build_object('costFactorId', f.cost_factor_id, 'name', f.name, 'kind', f.kind, 'unit', f.unit,
                              'unitCost', f.unit_cost::text)
                              from cost_factors f where l.line_type = 'cost' and f.shop_id = l.shop_id and f.cost_factor_id = l.node_id))
                    order by case l.line_type when 'raw' then 0 when 'sub' then 1 else 2 end, l.position), '[]'::json)
               from recipe_lines l where l.shop_id = ? and l.owner_type = 'bom' and l.owner_id = p.bom_id) as lines
       from counts n cross join value v
       left join page p on true
       left join lateral (select b.name, b.status, b.variant_id from boms b where b.shop_id = ? and b.bom_id = p.bom_id offset 0) b on true
       left join lateral (select c.raw_material_cost, c.sub_assembly_cost, c.cost_factor_cost, c.total_cost from bill_costs c
                           where c.shop_id = ? and c.owner_type = 'bom' and c.owner_id = p.bom_id offset 0) c on true
      order by p.ord`,
    [...args, input.pageSize, (input.page - 1) * input.pageSize, s, s, ...(needle === '' ? [] : args), s, s, s, s],
  );

  const first = rows[0]!;
  // Without a search the filtered count is one of the stats.
  const totalCount = Number(first.total_count ?? (input.statusFilter === 'all' ? first.total : first[input.statusFilter]));
  return {
    items: rows.filter((r) => r.bom_id !== null).map(toBomView),
    totalCount, page: input.page, pageSize: input.pageSize, totalPages: Math.ceil(totalCount / input.pageSize),
    stats: {
      total: Number(first.total), active: Number(first.active), inactive: Number(first.inactive),
      totalValue: first.total_value, avgCost: first.avg_cost, platformLinked: Number(first.platform_linked),
    },
  };
}

function toBomView(r: ListRow): BomView {
  const lines = (typeof r.lines === 'string' ? JSON.parse(r.lines) : r.lines) as LineJson[];
  const rawMaterialLines: RawLineView[] = [];
  const subAssemblyLines: SubLineView[] = [];
  const costFactorLines: CostLineView[] = [];
  for (const l of lines) {
    if (l.t === 'raw') rawMaterialLines.push({ nodeId: l.n, quantity: l.q, wastePercentage: l.w, position: l.p, node: l.m });
    else if (l.t === 'sub') subAssemblyLines.push({ nodeId: l.n, quantity: l.q, position: l.p });
    else costFactorLines.push({ costFactorId: l.n, quantity: l.q, position: l.p, node: l.f });
  }
  return {
    bomId: r.bom_id!, name: r.name, status: r.status, variantId: r.variant_id, productId: r.product_id, sku: r.sku, price: r.price,
    totalRawMaterialCost: r.raw_material_cost, totalSubAssemblyCost: r.sub_assembly_cost, directCostFactorCost: r.cost_factor_cost,
    totalCost: r.total_cost, preAssembledQuantity: r.preassembled, rawMaterialLines, subAssemblyLines, costFactorLines, assemblyBills: [],
  };
}
