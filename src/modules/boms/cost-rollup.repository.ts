import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { CatalogSources } from '../../kernel/catalog-sources.ts';
import { bulkInsert } from '../../db/bulk-insert.ts';
import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import type { PlatformGateway } from '../../kernel/platform-port/gateway.ts';
import { LocalPlatformGateway } from '../../platform/local-gateway.ts';
import type { BillKey } from './engine/index.ts';
import type { BillOwnerType, RecipeLineType } from './recipe-vocabulary.ts';
import { recipesSql, type RecipesTables } from './tables.ts';

// The stored cost roll-up (`bill_costs`) and the BOM list's entries (`bom_list_entries`), kept current
// by ONE function, `refreshCostRollup`, that every write changing a recipe, a cost factor or a
// material cost calls inside its transaction with what it changed. This file is the only code that
// writes those two tables (the migration that created them backfilled them once). The list's stats
// (`bom_list_stats`) follow the entries through the database's triggers (Migration20261202090000):
// every statement here that writes entries also moves them, under the same advisory lock.

/** What a write changed. Every field is optional; absent = nothing of that kind. */
export interface CostRollupChanges {
  /**
   * Bills whose own base recipe lines changed, that were added or removed, or (BOMs) whose name or
   * finished-good variant changed. Their costs and those of every bill above them are recomputed;
   * a BOM among them also rewrites the list entries (ranks, status, finished-good fields).
   */
  bills?: readonly BillKey[];
  /** Materials whose unit cost changed. */
  materials?: readonly string[];
  /** Cost factors whose unit cost changed. */
  costFactors?: readonly string[];
}

/**
 * What the refresh needs of a shop context: the tenant, its (transactional) EntityManager, the
 * platform port and the catalogue sources (material unit costs).
 */
export interface RollupScope { shopId: string; em: Em; platform: PlatformGateway; catalog: CatalogSources }

/**
 * The list's collation: case- and accent-insensitive, digit runs compared by value
 * ("CANDLE-9" < "CANDLE-10"). Stored as ranks, so SQL orders exactly as this collator does.
 */
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** A guard against a recipe cycle (refused by every write): no real recipe nests this deep. */
const MAX_NESTING = 1000;

type Seed = SelectQueryBuilder<RecipesTables, never, { owner_type: string; owner_id: string }>;

/** Every bill of the shop (a whole rebuild). */
const allBills = (shopId: string): Seed => recipesSql.selectFrom('boms as b')
  .select([sql<string>`'bom'::text`.as('owner_type'), sql<string>`b.bom_id::text`.as('owner_id')]).where('b.shop_id', '=', shopId)
  .unionAll(recipesSql.selectFrom('assembly_bills as a')
    .select([sql<string>`'sub_assembly'::text`.as('owner_type'), sql<string>`a.assembly_id::text`.as('owner_id')]).where('a.shop_id', '=', shopId));

/** The changed bills and the bills whose own lines name a changed material or cost factor. */
const changedBills = (shopId: string, bills: readonly BillKey[], materials: readonly string[], costFactors: readonly string[]): Seed =>
  (recipesSql.selectFrom(sql<{ owner_type: string; owner_id: string }>`unnest(${textArrayLiteral(bills.map((b) => b.ownerType))}::text[], ${textArrayLiteral(bills.map((b) => b.ownerId))}::text[])`.as('s'))
    .selectAll() as unknown as Seed)
    .union(recipesSql.selectFrom('recipe_lines as l').select(['l.owner_type', 'l.owner_id'])
      .where('l.shop_id', '=', shopId)
      .where((eb) => eb.or([
        eb.and([eb('l.line_type', '=', 'raw'), eb('l.node_id', '=', sql<string>`any(${textArrayLiteral(materials)}::text[])`)]),
        eb.and([eb('l.line_type', '=', 'cost'), eb('l.node_id', '=', sql<string>`any(${textArrayLiteral(costFactors)}::text[])`)]),
      ])));

/**
 * The bills to recompute — the seeds and every bill that contains one through sub-assembly lines,
 * transitively — each with its level: the longest chain of recomputed bills below it. Computing level
 * 0, then 1, … means every sub-assembly a bill names is current before the bill itself. `present` is
 * false for a bill that no longer exists (its row is deleted).
 */
function levelsQuery(shopId: string, seed: Seed) {
  return recipesSql
    .withRecursive('seed(owner_type, owner_id)', () => seed)
    .withRecursive('up(owner_type, owner_id, depth)', (db) => db.selectFrom('seed').select(['owner_type', 'owner_id', sql<number>`0`.as('depth')])
      .union(db.selectFrom('up as u')
        .innerJoinLateral((eb) => eb.selectFrom('recipe_lines as l').select(['l.owner_type', 'l.owner_id'])
          .where('l.shop_id', '=', shopId).where('l.line_type', '=', 'sub').whereRef('l.node_id', '=', 'u.owner_id').modifyEnd(sql`offset 0`)
          .as('p'), (j) => j.onTrue())
        .select(['p.owner_type', 'p.owner_id', sql<number>`u.depth + 1`.as('depth')])
        .where('u.owner_type', '=', 'sub_assembly').where('u.depth', '<', MAX_NESTING)))
    .selectFrom('up as u')
    .leftJoin('boms as b', (j) => j.on(sql<boolean>`u.owner_type = 'bom'`).on('b.shop_id', '=', shopId).onRef('b.bom_id', '=', 'u.owner_id'))
    .leftJoin('assembly_bills as a', (j) => j.on(sql<boolean>`u.owner_type = 'sub_assembly'`).on('a.shop_id', '=', shopId).onRef('a.assembly_id', '=', 'u.owner_id'))
    .select([
      sql<BillOwnerType>`u.owner_type`.as('owner_type'), 'u.owner_id', sql<number | string>`max(u.depth)`.as('level'),
      sql<boolean>`bool_or(b.bom_id is not null or a.assembly_id is not null)`.as('present'),
    ])
    .groupBy(['u.owner_type', 'u.owner_id']);
}

// The three sums of each bill from its base lines, exact (numeric without a scale; `* 0.01` keeps
// waste/100 exact): raw lines unitCost × quantity × (1 + waste/100) with a missing material or a
// null unit cost counting 0, sub lines quantity × the assembly bill's stored total (0 for an unknown
// assembly), cost-factor lines quantity × unitCost (0 for an unknown factor).
// Plan-proof: right after a load the tables have no statistics yet, so every lookup is a correlated
// subquery (always an index probe by primary key), never a join the planner could turn into scans.
// A BOM's new total is copied into its list entry in the same statement. A material's unit cost is
// the materials module's: its correlated subquery comes from the catalogue sources.
function upsertLevel(catalog: CatalogSources, shopId: string, level: readonly BillKey[]) {
  const sum = (lineType: RecipeLineType, unitCost: Expression<string | null>, withWaste = false) =>
    sql<string>`coalesce(sum(l.quantity${withWaste ? sql` * (1 + l.waste_percentage * 0.01)` : sql``} * coalesce(${unitCost}, 0)) filter (where l.line_type = ${sql.lit(lineType)}), 0)`;
  const bills = sql<{ owner_type: BillOwnerType; owner_id: string }>`unnest(${textArrayLiteral(level.map((b) => b.ownerType))}::text[], ${textArrayLiteral(level.map((b) => b.ownerId))}::text[])`
    .as<'s'>(sql`s(owner_type, owner_id)`);
  const trimmed = (value: RawBuilder<unknown>) => sql<string>`trim_scale(${value})`;
  return recipesSql
    .with('costs', (db) => db.insertInto('bill_costs')
      .columns(['shop_id', 'owner_type', 'owner_id', 'raw_material_cost', 'sub_assembly_cost', 'cost_factor_cost', 'total_cost'])
      .expression(db.selectFrom(bills)
        .innerJoinLateral((eb) => eb.selectFrom('recipe_lines as l')
          .select((le) => [
            sum('raw', catalog.materialUnitCost(le.ref('l.shop_id'), le.ref('l.node_id')), true).as('raw'),
            sum('sub', le.selectFrom('bill_costs as c').select('c.total_cost')
              .whereRef('c.shop_id', '=', 'l.shop_id').where('c.owner_type', '=', 'sub_assembly').whereRef('c.owner_id', '=', 'l.node_id').$asScalar()).as('sub'),
            sum('cost', le.selectFrom('cost_factors as f').select('f.unit_cost')
              .whereRef('f.shop_id', '=', 'l.shop_id').whereRef('f.cost_factor_id', '=', 'l.node_id').$asScalar()).as('cf'),
          ])
          .where('l.shop_id', '=', shopId).whereRef('l.owner_type', '=', 's.owner_type').whereRef('l.owner_id', '=', 's.owner_id')
          .as('t'), (j) => j.onTrue())
        .select([
          sql.val(shopId).as('shop_id'), 's.owner_type', 's.owner_id', trimmed(sql`t.raw`).as('raw'), trimmed(sql`t.sub`).as('sub'),
          trimmed(sql`t.cf`).as('cf'), trimmed(sql`t.raw + t.sub + t.cf`).as('total'),
        ]))
      .onConflict((oc) => oc.columns(['shop_id', 'owner_type', 'owner_id']).doUpdateSet((eb) => ({
        raw_material_cost: eb.ref('excluded.raw_material_cost'), sub_assembly_cost: eb.ref('excluded.sub_assembly_cost'),
        cost_factor_cost: eb.ref('excluded.cost_factor_cost'), total_cost: eb.ref('excluded.total_cost'),
      })))
      .returning(['owner_type', 'owner_id', 'total_cost']))
    .updateTable('bom_list_entries as e').from('costs')
    .set((eb) => ({ total_cost: eb.ref('costs.total_cost') }))
    .where('costs.owner_type', '=', 'bom').where('e.shop_id', '=', shopId).whereRef('e.bom_id', '=', 'costs.owner_id');
}

/**
 * Brings the roll-up up to date after a write, inside the writer's transaction (required: the
 * roll-up commits or rolls back with the write). `'shop'` rebuilds the whole shop (a dataset load:
 * a handful of statements, one per nesting level, never one per bill); otherwise only the changed
 * bills and the bills above them are recomputed, and the list entries are rewritten only when a BOM changed.
 *
 * Concurrent writers of one shop are serialised by a transaction-level advisory lock taken before
 * anything is read, so the last writer computes from every committed change (no lost update when
 * two writes change inputs of one assembly).
 *
 * Round trips: lock 1 + levels 1 + one per nesting level recomputed (+1 to delete removed bills)
 * (+4 for the list entries when a BOM changed: BOMs, finished-good variants through the platform port, delete, insert).
 */
export async function refreshCostRollup(scope: RollupScope, changes: CostRollupChanges | 'shop'): Promise<void> {
  const { em, shopId } = scope;
  if (!em.isInTransaction()) throw new Error('refreshCostRollup must run inside the transaction of the write it follows');
  const whole = changes === 'shop';
  const bills = whole ? [] : (changes.bills ?? []);
  const materials = whole ? [] : (changes.materials ?? []);
  const costFactors = whole ? [] : (changes.costFactors ?? []);
  if (!whole && bills.length === 0 && materials.length === 0 && costFactors.length === 0) return;

  await runSql(em, recipesSql.selectNoFrom(sql<unknown>`pg_advisory_xact_lock(hashtextextended(${`bomcore:cost-rollup:${shopId}`}, 0))`.as('locked')));
  if (whole) {
    await runSql(em, recipesSql.with('costs', (db) => db.deleteFrom('bill_costs').where('shop_id', '=', shopId))
      .deleteFrom('bom_list_entries').where('shop_id', '=', shopId));
  }
  const rows = await runSql(em, levelsQuery(shopId, whole ? allBills(shopId) : changedBills(shopId, bills, materials, costFactors)));

  const levels: BillKey[][] = [];
  const removed: BillKey[] = [];
  for (const r of rows) {
    const level = Number(r.level);
    if (level >= MAX_NESTING) throw new Error(`recipes of shop ${shopId} nest ${MAX_NESTING} deep or form a cycle`);
    const key = { ownerType: r.owner_type, ownerId: r.owner_id };
    if (!r.present) removed.push(key);
    else (levels[level] ??= []).push(key);
  }
  if (removed.length > 0) {
    const gone = sql<{ owner_type: BillOwnerType; owner_id: string }>`unnest(${textArrayLiteral(removed.map((b) => b.ownerType))}::text[], ${textArrayLiteral(removed.map((b) => b.ownerId))}::text[])`
      .as<'s'>(sql`s(owner_type, owner_id)`);
    await runSqlWrite(em, recipesSql.deleteFrom('bill_costs as c').using(gone)
      .where('c.shop_id', '=', shopId).whereRef('c.owner_type', '=', 's.owner_type').whereRef('c.owner_id', '=', 's.owner_id'));
  }
  for (const level of levels) {
    if (!level?.length) continue;
    await runSqlWrite(em, upsertLevel(scope.catalog, shopId, level));
  }
  if (whole || bills.some((b) => b.ownerType === 'bom')) await rewriteListEntries(scope);
}

/**
 * The dataset load's call: rebuilds the whole roll-up of the shop it has just written, inside the
 * load's transaction, reading finished-good variants from the local platform store the load filled.
 */
export async function rebuildShopCostRollup(em: Em, shopId: string, catalog: CatalogSources): Promise<void> {
  em.setFilterParams('tenant', { shopId });
  await refreshCostRollup({ shopId, em, platform: new LocalPlatformGateway({ shopId, em }), catalog }, 'shop');
}

/** Dense ranks of `values` in collator order (equal under the collator = equal rank); null stays null. */
function denseRanks(values: readonly (string | null)[]): (number | null)[] {
  const order = values.map((v, i) => ({ v, i })).filter((x): x is { v: string; i: number } => x.v !== null)
    .sort((a, b) => collator.compare(a.v, b.v));
  const ranks: (number | null)[] = values.map(() => null);
  let rank = 0;
  order.forEach((x, n) => {
    if (n > 0 && collator.compare(order[n - 1]!.v, x.v) !== 0) rank += 1;
    ranks[x.i] = rank;
  });
  return ranks;
}

/**
 * Rewrites every BOM's list entry (after the costs, whose totals it copies); archived BOMs have
 * none, so they leave the list, its filters and its sums. Ranks need the whole
 * shop's names, so this is per shop. 4 round trips: BOMs, finished-good variants through the
 * platform port, delete, insert.
 */
async function rewriteListEntries(scope: RollupScope): Promise<void> {
  const { em, shopId } = scope;
  const boms = await runSql(em, recipesSql.selectFrom('boms as b')
    .select((eb) => ['b.bom_id', 'b.name', 'b.status', 'b.variant_id',
      eb.selectFrom('bill_costs as c').select(sql<string>`c.total_cost::text`.as('total_cost'))
        .whereRef('c.shop_id', '=', 'b.shop_id').where('c.owner_type', '=', 'bom').whereRef('c.owner_id', '=', 'b.bom_id').as('total_cost')])
    .where('b.shop_id', '=', shopId).where('b.archived_at', 'is', null));
  const variantIds = [...new Set(boms.map((b) => b.variant_id).filter((v): v is string => v !== null))];
  const variants = new Map((variantIds.length ? await scope.platform.getVariants(variantIds) : []).map((v) => [v.variantId, v]));
  const finished = boms.map((b) => (b.variant_id === null ? undefined : variants.get(b.variant_id)));
  const nameRanks = denseRanks(boms.map((b) => b.name));
  const bomIdRanks = denseRanks(boms.map((b) => b.bom_id));
  const skuRanks = denseRanks(finished.map((v) => v?.sku ?? null));
  await runSql(em, recipesSql.deleteFrom('bom_list_entries').where('shop_id', '=', shopId));
  await bulkInsert(em, 'bom_list_entries',
    ['shop_id', 'bom_id', 'status', 'variant_id', 'total_cost', 'name_rank', 'bom_id_rank', 'sku_rank', 'product_id', 'sku', 'price', 'search_name', 'search_sku', 'search_bom_id'],
    boms.map((b, i) => {
      const v = finished[i];
      if (b.total_cost === null) throw new Error(`BOM ${b.bom_id} of shop ${shopId} has no cost roll-up row`);
      return [shopId, b.bom_id, b.status, b.variant_id, b.total_cost, nameRanks[i], bomIdRanks[i], skuRanks[i], v?.productId ?? null, v?.sku ?? null,
        v?.price ?? null, b.name.toLowerCase(), v?.sku?.toLowerCase() ?? null, b.bom_id.toLowerCase()];
    }));
}
