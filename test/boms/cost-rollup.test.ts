import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.ts';
import { generateDataset } from '../../src/dataset/generate.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import type { Dataset } from '../../src/dataset/types.ts';
import { refreshCostRollup, type CostRollupChanges } from '../../src/modules/boms/cost-rollup.repository.ts';
import { CostCalculator } from '../../src/modules/boms/costs.ts';
import { loadRecipeForest, type BillKey } from '../../src/modules/boms/engine/index.ts';
import { forestNodeIds, loadCostFactors, loadMaterials } from '../../src/modules/boms/recipe-data.ts';
import { inShopTransaction, type ShopContext } from '../../src/kernel/shop-context.ts';
import { countQueries, shopContext } from '../helpers/bom-context.ts';
import { databaseLabel, openTestOrm, uniqueShopId, usingPostgres } from '../helpers/database.ts';

// The stored cost roll-up (bill_costs) against the JS cost calculator (src/modules/boms/costs.ts)
// on a generated shop nobody tuned: deep shared assemblies, waste, cost factors, location rules (which
// costs ignore). Every comparison is exact (canonical decimal text, no rounding).

let orm: Orm;
let ds: Dataset;
const shop = uniqueShopId('rollup');
const twin = uniqueShopId('rollup-twin');

beforeAll(async () => {
  orm = await openTestOrm();
  ds = generateDataset({ materials: 150, boms: 80, depth: 5, locations: 3, workOrders: 0, orders: 0, seed: 20261123, shopId: shop });
  await loadDataset(orm.em, ds);
  // The same shop under another id: ids collide, so any write that ignored shop_id would show.
  await loadDataset(orm.em, generateDataset({ materials: 150, boms: 80, depth: 5, locations: 3, workOrders: 0, orders: 0, seed: 20261123, shopId: twin }));
});
afterAll(() => orm.close());

/** Exact decimal text in one canonical form: no exponent, no trailing fractional zeros, "0" for zero. */
function canon(text: string): string {
  const negative = text.startsWith('-');
  let [int, frac = ''] = (negative ? text.slice(1) : text).split('.');
  int = int!.replace(/^0+(?=\d)/, '');
  frac = frac.replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : int;
  return negative && body !== '0' ? `-${body}` : body;
}

const key = (b: BillKey) => `${b.ownerType}:${b.ownerId}`;
type Costs = Record<string, [raw: string, sub: string, cf: string, total: string]>;

/** The stored roll-up of a shop, canonical. */
async function stored(ctx: ShopContext): Promise<Costs> {
  const rows = await ctx.em.execute<{ owner_type: string; owner_id: string; raw: string; sub: string; cf: string; total: string }[]>(
    `select owner_type, owner_id, raw_material_cost::text as raw, sub_assembly_cost::text as sub, cost_factor_cost::text as cf, total_cost::text as total
       from bill_costs where shop_id = ?`, [ctx.shopId]);
  return Object.fromEntries(rows.map((r) => [`${r.owner_type}:${r.owner_id}`, [canon(r.raw), canon(r.sub), canon(r.cf), canon(r.total)]]));
}

/** What the JS calculator gives for every BOM and assembly bill of the shop, from the database's current rows. */
async function recomputed(ctx: ShopContext): Promise<Costs> {
  const bills = await ctx.em.execute<{ owner_type: 'bom' | 'sub_assembly'; owner_id: string }[]>(
    `select 'bom' as owner_type, bom_id as owner_id from boms where shop_id = ?
     union all select 'sub_assembly', assembly_id from assembly_bills where shop_id = ?`, [ctx.shopId, ctx.shopId]);
  const roots = bills.map((b) => ({ ownerType: b.owner_type, ownerId: b.owner_id }));
  const forest = await loadRecipeForest(ctx, roots);
  const calculator = new CostCalculator(forest, await loadMaterials(ctx, forestNodeIds(forest).materials), await loadCostFactors(ctx, null));
  return Object.fromEntries(roots.map((b) => {
    const c = calculator.costs(b);
    return [key(b), [canon(c.rawMaterialCost.toFixed()), canon(c.subAssemblyCost.toFixed()), canon(c.costFactorCost.toFixed()), canon(c.total.toFixed())]];
  }));
}

/** A write of the kind the roll-up follows: SQL change and refresh in one transaction. */
async function write(ctx: ShopContext, sql: string, params: unknown[], changes: CostRollupChanges): Promise<number> {
  const { count } = await countQueries(() => inShopTransaction(ctx, async (tx) => {
    await tx.em.execute(sql, params, 'run');
    await refreshCostRollup(tx, changes);
  }));
  return count;
}

async function listEntries(ctx: ShopContext) {
  return ctx.em.execute<{ bom_id: string; status: string; total_cost: string; bom_status: string; bill_total: string }[]>(
    `select e.bom_id, e.status, e.total_cost::text as total_cost, b.status as bom_status, c.total_cost::text as bill_total
       from boms b left join bom_list_entries e on e.shop_id = b.shop_id and e.bom_id = b.bom_id
       left join bill_costs c on c.shop_id = b.shop_id and c.owner_type = 'bom' and c.owner_id = b.bom_id
      where b.shop_id = ? order by b.bom_id`, [ctx.shopId]);
}

describe(`stored BOM cost roll-up on ${databaseLabel}`, () => {
  it('after a load, every BOM and assembly bill has one roll-up row equal to the JS cost calculator (raw × (1 + waste/100) + sub × unit cost + cost factors, base recipes, exact)', async () => {
    const ctx = shopContext(orm, shop);
    const expected = await recomputed(ctx);
    expect(Object.keys(expected)).toHaveLength(ds.boms.length + ds.assemblyBills.length);
    expect(ds.locationRules.length).toBeGreaterThan(0); // rules exist, and costs ignore them
    expect(await stored(ctx)).toEqual(expected);
    // Deep products keep every digit: some totals have far more than 6 fractional places.
    expect(Object.values(expected).some(([, , , total]) => (total.split('.')[1] ?? '').length > 12)).toBe(true);
  });

  it('each list entry copies its BOM\'s status and roll-up total', async () => {
    const rows = await listEntries(shopContext(orm, shop));
    expect(rows).toHaveLength(ds.boms.length);
    for (const r of rows) expect([r.bom_id, r.status, canon(r.total_cost)]).toEqual([r.bom_id, r.bom_status, canon(r.bill_total)]);
  });

  it('a material unit-cost change recomputes the bills that use it and every bill above them, in a few statements, and nothing else', async () => {
    const ctx = shopContext(orm, shop);
    // The material named by the most lines, so the change climbs through shared assemblies.
    const material = (await ctx.em.execute<{ node_id: string }[]>(
      `select node_id from recipe_lines where shop_id = ? and line_type = 'raw' group by node_id order by count(*) desc, node_id limit 1`, [shop]))[0]!.node_id;
    const before = await stored(ctx);
    const count = await write(ctx, `update materials set unit_cost = unit_cost * 3 + 0.123457 where shop_id = ? and variant_id = ?`, [shop, material], { materials: [material] });
    const after = await stored(ctx);
    expect(after).toEqual(await recomputed(ctx));
    const changed = Object.keys(after).filter((k) => after[k]![3] !== before[k]![3]);
    expect(changed.length).toBeGreaterThan(1);
    expect(changed.length).toBeLessThan(Object.keys(after).length);
    // lock + levels + one statement per nesting level (depth 5 → at most 6), plus the update and the transaction
    expect(count).toBeLessThanOrEqual(2 + 6 + 1 + 2);
    for (const r of await listEntries(ctx)) expect(canon(r.total_cost)).toBe(canon(r.bill_total));
  });

  it('a material whose unit cost becomes null counts 0, as the calculator does', async () => {
    const ctx = shopContext(orm, shop);
    const material = (await ctx.em.execute<{ node_id: string }[]>(
      `select l.node_id from recipe_lines l join materials m on m.shop_id = l.shop_id and m.variant_id = l.node_id
        where l.shop_id = ? and l.line_type = 'raw' and m.origin = 'virtual' order by l.node_id limit 1`, [shop]))[0]!.node_id;
    await write(ctx, `update materials set unit_cost = null where shop_id = ? and variant_id = ?`, [shop, material], { materials: [material] });
    expect(await stored(ctx)).toEqual(await recomputed(ctx));
  });

  it('a cost-factor unit-cost change and a recipe-line change (the future write surface) keep the roll-up equal to a recompute', async () => {
    const ctx = shopContext(orm, shop);
    await write(ctx, `update cost_factors set unit_cost = unit_cost + 1.5 where shop_id = ? and cost_factor_id = 'CF-1'`, [shop], { costFactors: ['CF-1'] });
    expect(await stored(ctx)).toEqual(await recomputed(ctx));
    // Double the quantity of one sub line of the first assembly bill that has one.
    const [line] = await ctx.em.execute<{ owner_id: string; position: number }[]>(
      `select owner_id, position from recipe_lines where shop_id = ? and owner_type = 'sub_assembly' and line_type = 'sub' order by owner_id, position limit 1`, [shop]);
    await write(ctx, `update recipe_lines set quantity = quantity * 2 where shop_id = ? and owner_type = 'sub_assembly' and owner_id = ? and line_type = 'sub' and position = ?`,
      [shop, line!.owner_id, line!.position], { bills: [{ ownerType: 'sub_assembly', ownerId: line!.owner_id }] });
    expect(await stored(ctx)).toEqual(await recomputed(ctx));
  });

  it('a removed bill loses its row; a changed BOM rewrites the list entries (status copied)', async () => {
    const ctx = shopContext(orm, shop);
    const bom = ds.boms[0]!.bomId;
    await write(ctx, `update boms set status = case status when 'active' then 'inactive' else 'active' end where shop_id = ? and bom_id = ?`, [shop, bom],
      { bills: [{ ownerType: 'bom', ownerId: bom }] });
    for (const r of await listEntries(ctx)) expect(r.status).toBe(r.bom_status);
    await write(ctx, `with lines as (delete from recipe_lines where shop_id = ? and owner_type = 'bom' and owner_id = ?) delete from boms where shop_id = ? and bom_id = ?`,
      [shop, bom, shop, bom], { bills: [{ ownerType: 'bom', ownerId: bom }] });
    const costs = await stored(ctx);
    expect(costs[`bom:${bom}`]).toBeUndefined();
    expect(costs).toEqual(await recomputed(ctx));
    expect((await listEntries(ctx)).map((r) => r.bom_id)).not.toContain(bom);
  });

  it('two writes changing materials of the same assembly at the same time lose neither change (writers of a shop are serialised)', async () => {
    const ctx = shopContext(orm, shop);
    const [pair] = await ctx.em.execute<{ m1: string; m2: string }[]>(
      `select a.node_id as m1, b.node_id as m2 from recipe_lines a
         join recipe_lines b on b.shop_id = a.shop_id and b.owner_type = a.owner_type and b.owner_id = a.owner_id and b.line_type = 'raw' and b.node_id > a.node_id
        where a.shop_id = ? and a.owner_type = 'sub_assembly' and a.line_type = 'raw' order by a.owner_id, a.node_id, b.node_id limit 1`, [shop]);
    const change = (material: string, gate?: Promise<void>) => inShopTransaction(shopContext(orm, shop), async (tx) => {
      await tx.em.execute(`update materials set unit_cost = coalesce(unit_cost, 0) + 1.000001 where shop_id = ? and variant_id = ?`, [shop, material], 'run');
      await refreshCostRollup(tx, { materials: [material] });
      await gate;
    });
    let release = () => {};
    const first = change(pair!.m1, new Promise<void>((resolve) => { release = resolve; }));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the first write has refreshed and holds its transaction open
    const second = change(pair!.m2);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the second has updated its material and waits to refresh
    release();
    await Promise.all([first, second]);
    expect(await stored(ctx)).toEqual(await recomputed(ctx));
  });

  it('refreshing one shop never touches another shop with the same ids (tenancy)', async () => {
    const ctx = shopContext(orm, twin);
    expect(await stored(ctx)).toEqual(await recomputed(ctx));
  });

  it('refuses to run outside the transaction of the write it follows', async () => {
    await expect(refreshCostRollup(shopContext(orm, shop), { materials: ['44001'] })).rejects.toThrow(/inside the transaction/);
  });

  // The migration backfills shops that were loaded before it. Run on PGlite only: migrating down and
  // up again would drop the tables under the other test files sharing a PostgreSQL database.
  if (!usingPostgres) it('the migration that adds the roll-up backfills shops already loaded with the same figures', async () => {
    const ctx = shopContext(orm, twin);
    const entries = () => ctx.em.execute('select * from bom_list_entries where shop_id = ? order by bom_id', [twin]);
    const before = { costs: await stored(ctx), entries: await entries() };
    await orm.migrator.down({ to: 'Migration20261122150000' });
    await orm.migrator.up();
    expect({ costs: await stored(ctx), entries: await entries() }).toEqual(before);
  });
});
