import { sql } from 'kysely';
import type { CatalogSources } from '../../catalog-sources.ts';
import type { BomView, CostLineView, RawLineView, SubLineView } from './bom-views.ts';
import type { CostFactorInfo, MaterialInfo } from './recipe-data.ts';
import type { BomStatus, RecipeLineType } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

// A BOM list row as one SQL select over a page of `bom_list_entries` rows (alias `p`: bom_id,
// product_id, sku, price): its name and status, cost roll-up, finished-good shelves, and lines with
// their materials and cost factors — by primary-key probes, so the cost follows the page only.
// Used by the cursor connection; the same select as the paged BOM list (bom-list.service.ts).

interface LineJson {
  t: RecipeLineType; n: string; q: string; w: string; p: number;
  m: MaterialInfo | null;
  f: CostFactorInfo | null;
}

export interface BomRow {
  bom_id: string | null; name: string; status: BomStatus; variant_id: string | null; product_id: string | null; sku: string | null;
  price: string | null; raw_material_cost: string; sub_assembly_cost: string; cost_factor_cost: string; total_cost: string;
  preassembled: string; lines: LineJson[] | string;
}

/**
 * The row's columns as SQL text and its arguments. Shelves and materials are other modules': their
 * correlated subqueries come from the shop context's catalogue sources.
 */
export function bomRowColumns(catalog: CatalogSources, shopId: string): { sql: string; args: unknown[] } {
  const compiled = sql<never>`p.bom_id, b.name, b.status, b.variant_id, p.product_id, p.sku, p.price::text as price,
  trim_scale(c.raw_material_cost)::text as raw_material_cost, trim_scale(c.sub_assembly_cost)::text as sub_assembly_cost,
  trim_scale(c.cost_factor_cost)::text as cost_factor_cost, trim_scale(c.total_cost)::text as total_cost,
  ${catalog.shelfTotal(shopId, sql.ref('b.variant_id'))} as preassembled,
  (select coalesce(json_agg(json_build_object(
            't', l.line_type, 'n', l.node_id, 'q', trim_scale(l.quantity)::text, 'w', trim_scale(l.waste_percentage)::text, 'p', l.position,
            'm', case when l.line_type = 'raw' then ${catalog.materialJson(sql.ref('l.shop_id'), sql.ref('l.node_id'))} end,
            'f', (select json_build_object('costFactorId', f.cost_factor_id, 'name', f.name, 'kind', f.kind, 'unit', f.unit,
                    'unitCost', f.unit_cost::text)
                    from cost_factors f where l.line_type = 'cost' and f.shop_id = l.shop_id and f.cost_factor_id = l.node_id))
          order by case l.line_type when 'raw' then 0 when 'sub' then 1 else 2 end, l.position), '[]'::json)
     from recipe_lines l where l.shop_id = ${shopId} and l.owner_type = 'bom' and l.owner_id = p.bom_id) as lines`.compile(recipesSql);
  return { sql: compiled.sql, args: [...compiled.parameters] };
}

/** The row's joins (lateral, offset 0: probed per page row even before the planner has statistics); bind `bomRowJoinArgs(shopId)`. */
export const BOM_ROW_JOINS = `
  left join lateral (select b.name, b.status, b.variant_id from boms b where b.shop_id = ? and b.bom_id = p.bom_id offset 0) b on true
  left join lateral (select c.raw_material_cost, c.sub_assembly_cost, c.cost_factor_cost, c.total_cost from bill_costs c
                      where c.shop_id = ? and c.owner_type = 'bom' and c.owner_id = p.bom_id offset 0) c on true`;

export const bomRowJoinArgs = (shopId: string): unknown[] => [shopId, shopId];

export function toBomView(r: BomRow): BomView {
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
