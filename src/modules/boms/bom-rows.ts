import { sql, type InferResult, type Selectable } from 'kysely';
import type { CatalogSources } from '../../kernel/catalog-sources.ts';
import type { LeftJoined } from '../../db/keyset.ts';
import type { CostFactorInfo, MaterialInfo } from './recipe-data.ts';
import type { RecipeLineType } from './recipe-vocabulary.ts';
import { columnNames, pickColumns } from '../../db/typed-sql.ts';
import { recipesSql, type RecipesTables } from './tables.ts';

// A BOM as the list and the cursor connection read it: one select over a page of
// `bom_list_entries` rows (the statement's CTE `page`): its name and status, cost roll-up,
// finished-good shelves, and lines with their materials and cost factors — by primary-key probes,
// so the cost follows the page only. Its columns are named as the API names the fields, so the
// query types the BOM's header (`BomView`).

/** A line as the row's JSON carries it (type, node, quantity, waste, position, material, cost factor). */
interface LineJson {
  t: RecipeLineType; n: string; q: string; w: string; p: number;
  m: MaterialInfo | null;
  f: CostFactorInfo | null;
}

/** What the page CTE holds of each entry. */
type PageEntry = Pick<Selectable<RecipesTables['bom_list_entries']>, 'bom_id' | 'product_id' | 'sku' | 'price'>;

const exactText = (column: string) => sql<string>`trim_scale(${sql.ref(column)})::text`;

/**
 * The BOM of each entry of the statement's `page` (aliased `p`; the caller adds the page's order
 * and keys and joins it as a subquery). Shelves and materials are other modules': their correlated
 * subqueries come from the shop context's catalogue sources. The header and costs are probed per
 * page row (lateral, offset 0), so the plan stays cheap even before the planner has statistics.
 */
function bomRowsQuery(catalog: CatalogSources, shopId: string) {
  return recipesSql.withTables<{ page: PageEntry }>().selectFrom('page as p')
    .innerJoinLateral((eb) => eb.selectFrom('boms as b').select(['b.name', 'b.status', 'b.variant_id', 'b.storefront_stock', 'b.lead_time_days'])
      .where('b.shop_id', '=', shopId).whereRef('b.bom_id', '=', 'p.bom_id').modifyEnd(sql`offset 0`).as('b'), (j) => j.onTrue())
    .innerJoinLateral((eb) => eb.selectFrom('bill_costs as c').select(['c.raw_material_cost', 'c.sub_assembly_cost', 'c.cost_factor_cost', 'c.total_cost'])
      .where('c.shop_id', '=', shopId).where('c.owner_type', '=', 'bom').whereRef('c.owner_id', '=', 'p.bom_id').modifyEnd(sql`offset 0`).as('c'), (j) => j.onTrue())
    .select([
      'p.bom_id as bomId', 'b.name', 'b.status', 'b.variant_id as variantId', 'b.storefront_stock as storefrontStock', 'p.product_id as productId', 'p.sku', 'b.lead_time_days as leadTimeDays',
      sql<string | null>`p.price::text`.as('price'),
      exactText('c.raw_material_cost').as('totalRawMaterialCost'), exactText('c.sub_assembly_cost').as('totalSubAssemblyCost'),
      exactText('c.cost_factor_cost').as('directCostFactorCost'), exactText('c.total_cost').as('totalCost'),
      sql<string>`${catalog.shelfTotal(shopId, sql.ref('b.variant_id'))}`.as('preAssembledQuantity'),
      sql<LineJson[] | string>`(select coalesce(json_agg(json_build_object(
            't', l.line_type, 'n', l.node_id, 'q', trim_scale(l.quantity)::text, 'w', trim_scale(l.waste_percentage)::text, 'p', l.position,
            'm', case when l.line_type = 'raw' then ${catalog.materialJson(sql.ref('l.shop_id'), sql.ref('l.node_id'))} end,
            'f', (select json_build_object('costFactorId', f.cost_factor_id, 'name', f.name, 'kind', f.kind, 'unit', f.unit,
                    'unitCost', f.unit_cost::text)
                    from cost_factors f where l.line_type = 'cost' and f.shop_id = l.shop_id and f.cost_factor_id = l.node_id))
          order by case l.line_type when 'raw' then 0 when 'sub' then 1 else 2 end, l.position), '[]'::json)
     from recipe_lines l where l.shop_id = ${shopId} and l.owner_type = 'bom' and l.owner_id = p.bom_id)`.as('lines'),
    ]);
}

type BomEntry = InferResult<ReturnType<typeof bomRowsQuery>>[number];

/** A BOM's header as `bomRows` reads it: its ids, finished good, costs and shelves. */
export type BomHeader = Omit<BomEntry, 'lines'>;

/**
 * The query (to join as a subquery beside the page's own columns) and the BOM of a statement row
 * that carries a page entry (the list's rows carry no assembly bills). The statement left-joins its
 * page, which types the entry's columns nullable; a row that has one holds them as the query types
 * them, and is cut back to the query's columns.
 */
export function bomRows(catalog: CatalogSources, shopId: string) {
  const query = bomRowsQuery(catalog, shopId);
  const names = columnNames(query);
  return { query, toView: (row: LeftJoined<BomEntry>) => bomView(pickColumns<BomEntry>(row, names)) };
}

function bomView({ lines: json, ...header }: BomEntry) {
  const lines = (typeof json === 'string' ? JSON.parse(json) : json) as LineJson[];
  const of = (type: RecipeLineType) => lines.filter((l) => l.t === type);
  return {
    ...header,
    rawMaterialLines: of('raw').map((l) => ({ nodeId: l.n, quantity: l.q, wastePercentage: l.w, position: l.p, node: l.m })),
    subAssemblyLines: of('sub').map((l) => ({ nodeId: l.n, quantity: l.q, position: l.p })),
    costFactorLines: of('cost').map((l) => ({ costFactorId: l.n, quantity: l.q, position: l.p, node: l.f })),
    assemblyBills: [],
  };
}
