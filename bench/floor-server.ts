// The hand-written floor (bench-only): plain Fastify + pg, the most straightforward SQL that gives
// the same rows and JSON shape as two bomcore reads, with the same API-key check (one statement).
// It is not exact about every field rule (e.g. decimals go through JS numbers); see docs/performance.md.
// Usage: DATABASE_URL=… PORT=… node bench/floor-server.ts
import { createHash } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { bomTree, type LineRow } from './floor-bom.ts';

// JIT off as in bomcore's own pool: these are short statements.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c jit=off' });
const app = Fastify({ logger: { level: process.env.LOG_LEVEL || 'info' } });
const num = (v: string | null) => (v === null ? null : Number(v));
const meta = (request: FastifyRequest) => ({ requestId: request.id, apiVersion: '1.2' });

/** The shop of the bearer key (revoked and expired keys refused), or null after a 401. */
async function shopOf(request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
  const secret = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const hash = secret ? createHash('sha256').update(secret).digest('hex') : '';
  const { rows } = await pool.query<{ shop_id: string }>(
    'select shop_id from api_keys where secret_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())', [hash]);
  if (rows[0]) return rows[0].shop_id;
  await reply.code(401).send({ code: 'UNAUTHENTICATED' });
  return null;
}

const ORDER: Record<string, string> = {
  productName: 'lower(product_name) collate "C" {dir}, product_name collate "C" {dir}',
  variantName: 'lower(variant_name) collate "C" {dir} nulls last, variant_name collate "C" {dir} nulls last',
  inventoryQuantity: 'inventory_quantity {dir}',
};
const USAGE = (ownerType: string) => `(select count(distinct r.owner_id) from recipe_lines r
  where r.shop_id = p.shop_id and r.line_type = 'raw' and r.node_id = p.variant_id and r.owner_type = '${ownerType}')`;

interface ListQuery { search?: string; sortBy?: string; sortOrder?: string; page?: string; pageSize?: string }

app.get('/api/v1/raw-materials', async (request, reply) => {
  const shopId = await shopOf(request, reply);
  if (!shopId) return reply;
  const q = request.query as ListQuery;
  const page = Math.max(1, Number(q.page ?? 1));
  const pageSize = Math.min(1000, Math.max(1, Number(q.pageSize ?? 50)));
  const sort = ORDER[q.sortBy ?? ''] ?? ORDER.productName!;
  const order = `${sort.replaceAll('{dir}', q.sortOrder === 'desc' ? 'desc' : 'asc')}, variant_id collate "C"`;
  // The schema's stored lowered search text (the four fields joined by U+001F), as bomcore matches.
  const pattern = q.search ? `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const { rows } = await pool.query(
    `with page as (
       select m.*, q.inventory_quantity, (select count(*) from materials c where c.shop_id = $1 and ($2::text is null or c.search_text like lower($2))) as total_count
         from materials m join material_quantities q using (shop_id, variant_id)
        where m.shop_id = $1 and ($2::text is null or m.search_text like lower($2))
        order by ${order} limit $3 offset $4)
     -- The schema's stored quantity (the cached platform total, else the sum of the material's levels, kept by triggers in its own row).
     select p.*, p.inventory_quantity as quantity,
            ${USAGE('bom')} as bom_usage_count, ${USAGE('sub_assembly')} as sub_assembly_usage_count,
            (select coalesce(json_agg(v.vendor order by v.vendor collate "C"), '[]')
               from (select distinct vendor from materials where shop_id = $1 and vendor <> '') v) as vendors
       from page p order by ${order}`,
    [shopId, pattern, pageSize, (page - 1) * pageSize],
  );
  const totalCount = Number(rows[0]?.total_count ?? 0);
  reply.header('X-Query-Count', '1');
  return {
    data: {
      items: rows.map((r) => ({
        variantId: r.variant_id, productId: r.product_id, inventoryItemId: r.inventory_item_id, productName: r.product_name,
        variantName: r.variant_name, sku: r.sku, vendor: r.vendor, unit: r.unit, unitCost: num(r.unit_cost), unitPrice: num(r.unit_price),
        inventoryQuantity: Number(r.quantity), isVirtual: r.origin === 'virtual', specifications: r.specifications, imageUrl: r.image_url,
        isNonEssentialMaterial: r.is_non_essential_material, weightValue: num(r.weight_value), weightUnitId: r.weight_unit_id,
        productType: r.product_type, productCategory: r.product_category,
        bomUsageCount: Number(r.bom_usage_count), subAssemblyUsageCount: Number(r.sub_assembly_usage_count),
      })),
      totalCount, page, pageSize, totalPages: Math.ceil(totalCount / pageSize), availableVendors: rows[0]?.vendors ?? [],
    },
    meta: meta(request),
  };
});

const TREE_SQL = `
with recursive bills(owner_type, owner_id) as (
  select 'bom'::text, $2::varchar
  union
  select 'sub_assembly'::text, r.node_id from bills b
    join recipe_lines r on r.shop_id = $1 and r.owner_type = b.owner_type and r.owner_id = b.owner_id and r.line_type = 'sub'
)
select r.owner_type, r.owner_id, r.line_type, r.node_id, r.quantity, r.waste_percentage,
       m.product_name, m.variant_name, m.sku, m.unit, m.unit_cost, m.origin, m.is_non_essential_material,
       a.name as assembly_name, a.only_consume_preassembled,
       c.name as cost_name, c.kind as cost_kind, c.unit as cost_unit, c.unit_cost as cost_unit_cost
  from bills b
  join recipe_lines r on r.shop_id = $1 and r.owner_type = b.owner_type and r.owner_id = b.owner_id
  left join materials m on r.line_type = 'raw' and m.shop_id = $1 and m.variant_id = r.node_id
  left join assembly_bills a on r.line_type = 'sub' and a.shop_id = $1 and a.assembly_id = r.node_id
  left join cost_factors c on r.line_type = 'cost' and c.shop_id = $1 and c.cost_factor_id = r.node_id
 order by r.owner_type, r.owner_id, r.line_type, r.position`;

const HEADER_SQL = `
select b.bom_id, b.name, b.status, b.variant_id, v.product_id, v.sku, v.price,
       (select coalesce(sum(s.quantity), 0) from preassembled_stock s where s.shop_id = b.shop_id and s.item_id = b.variant_id) as preassembled
  from boms b left join platform_variants v on v.shop_id = b.shop_id and v.variant_id = b.variant_id
 where b.shop_id = $1 and b.bom_id = $2`;

app.get('/api/v1/bills-of-materials/:id', async (request, reply) => {
  const shopId = await shopOf(request, reply);
  if (!shopId) return reply;
  const { id } = request.params as { id: string };
  const [header, lines] = await Promise.all([pool.query(HEADER_SQL, [shopId, id]), pool.query<LineRow>(TREE_SQL, [shopId, id])]);
  const bom = header.rows[0];
  reply.header('X-Query-Count', '2');
  if (!bom) return reply.code(404).send({ code: 'NOT_FOUND' });
  const tree = bomTree(id, lines.rows);
  return {
    data: {
      bomId: bom.bom_id, status: bom.status, name: bom.name, productId: bom.product_id, variantId: bom.variant_id, sku: bom.sku,
      price: num(bom.price), ...tree.costs, preAssembledQuantity: Number(bom.preassembled),
      rawMaterialReferences: tree.raw, subAssemblyReferences: tree.sub, costFactorReferences: tree.cost,
    },
    meta: meta(request),
  };
});

app.get('/healthz', async () => ({ status: 'ok' }));

const close = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', close);
process.on('SIGINT', close);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3100) });
