import { sql, type Compilable, type Expression, type InferResult, type SelectQueryBuilder } from 'kysely';
import { preparedSql, runSql } from '../../../db/typed-sql.ts';
import { textArrayLiteral } from '../../../db/sql-arrays.ts';
import { recipesSql, type RecipesTables } from '../tables.ts';
import type { ShopContext } from '../../../kernel/shop-context.ts';
import { exact, ZERO } from '../../../kernel/numbers/index.ts';
import type { BillOwnerType, BomStatus, LocationRuleAction, RecipeLineType, StorefrontStockMode } from '../recipe-vocabulary.ts';
import type { BillKey, EngineBill, RecipeForest } from './types.ts';

type ForestKind = 'bill' | 'line' | 'rule' | 'override';
type Seed = SelectQueryBuilder<RecipesTables, never, { owner_type: string; owner_id: string }>;

/** A typed null column of the tagged row set (`cast`: the SQL type the union needs for it). */
const nil = <T>() => <A extends string>(alias: A, cast?: 'int' | 'boolean') =>
  (cast ? sql<T | null>`null::${sql.raw(cast)}` : sql<T | null>`null`).as(alias);

// One statement: the recursive CTE walks sub-assembly lines and the assemblies location rules add or
// swap in (UNION de-duplicates, so shared assemblies are visited once and the walk ends on a DAG);
// then the bills, their lines, rules and overrides come back as one tagged row set. The planner
// cannot estimate how many bills the walk reaches, and with a guess it hashes whole tables; the
// lateral subqueries (fenced with `offset 0` so they are not flattened back into joins) make every
// table an index probe per reached bill, so the cost follows the recipe, not the shop (the location
// rules aside: a few rows per shop, joined; see their branch).
const OFFSET_0 = sql`offset 0`;

/** The roots given (two text[] literals): `select * from unnest(types, ids)`, its two columns named by the CTE's column list. */
const seedRoots = (types: string, ids: string): Seed => recipesSql
  .selectFrom(sql<{ owner_type: string; owner_id: string }>`unnest(${types}::text[], ${ids}::text[])`.as('r'))
  .selectAll() as unknown as Seed;

const seedAllBoms = (shopId: string): Seed => recipesSql
  .selectFrom('boms as b')
  .select([sql<string>`'bom'::text`.as('owner_type'), sql<string>`b.bom_id::text`.as('owner_id')])
  .where('b.shop_id', '=', shopId);

/**
 * JSON a statement attaches to the forest's rows, from other modules' correlated subqueries: to a
 * BOM's 'bill' row (its finished good's variant id in scope, null for none) and to a 'line' row
 * (its line type and node id). Null elsewhere.
 */
export interface ForestAttachments {
  bom(shopId: Expression<string>, variantId: Expression<string>): Expression<unknown>;
  line(shopId: Expression<string>, lineType: Expression<RecipeLineType>, nodeId: Expression<string>): Expression<unknown>;
}

function forestQuery(shopId: string, seed: Seed, attach?: ForestAttachments) {
  const s = shopId;
  const shop = sql<string>`${s}`;
  const none = sql<unknown>`null::json`.as('attached');
  const assemblyOf = sql<string>`coalesce(o.replacement_node_id, o.node_id)`;
  return recipesSql
    .withRecursive('reach(owner_type, owner_id)', (db) => seed.union(
      db.selectFrom('reach as r')
        .innerJoinLateral((eb) => eb.selectFrom('recipe_lines as l').select('l.node_id')
          .where('l.shop_id', '=', s).whereRef('l.owner_type', '=', 'r.owner_type').whereRef('l.owner_id', '=', 'r.owner_id').where('l.line_type', '=', 'sub')
          .unionAll(eb.selectFrom('location_rule_overrides as o')
            .innerJoin('assembly_bills as x', (j) => j.onRef('x.shop_id', '=', 'o.shop_id').on('x.assembly_id', '=', assemblyOf))
            .select(assemblyOf.as('node_id'))
            .where('o.shop_id', '=', s).whereRef('o.owner_type', '=', 'r.owner_type').whereRef('o.owner_id', '=', 'r.owner_id')
            .where('o.action', 'in', ['add', 'replace']))
          .as('e'), (j) => j.onTrue())
        .select([sql<string>`'sub_assembly'::text`.as('owner_type'), sql<string>`e.node_id::text`.as('owner_id')]),
    ))
    .selectFrom('reach as r')
    .leftJoinLateral((eb) => eb.selectFrom('boms as b').select(['b.name', 'b.variant_id', 'b.status', 'b.storefront_stock', 'b.bom_id', 'b.lead_time_days'])
      .where(sql<boolean>`r.owner_type = 'bom'`).where('b.shop_id', '=', s).whereRef('b.bom_id', '=', 'r.owner_id').modifyEnd(OFFSET_0)
      .as('b'), (j) => j.onTrue())
    .leftJoinLateral((eb) => eb.selectFrom('assembly_bills as a').select(['a.name', 'a.only_consume_preassembled', 'a.assembly_id', 'a.lead_time_days'])
      .where(sql<boolean>`r.owner_type = 'sub_assembly'`).where('a.shop_id', '=', s).whereRef('a.assembly_id', '=', 'r.owner_id').modifyEnd(OFFSET_0)
      .as('a'), (j) => j.onTrue())
    .select([
      sql<ForestKind>`'bill'`.as('kind'), sql<BillOwnerType>`r.owner_type`.as('owner_type'), 'r.owner_id',
      sql<string | null>`coalesce(b.name, a.name)`.as('name'), sql<boolean | null>`a.only_consume_preassembled`.as('only_consume'),
      sql<string | null>`b.variant_id`.as('variant_id'), sql<BomStatus | null>`b.status`.as('status'), sql<StorefrontStockMode | null>`b.storefront_stock`.as('storefront_stock'), nil<RecipeLineType>()('line_type'),
      nil<number>()('position', 'int'), nil<string>()('node_id'), nil<string>()('quantity'), nil<string>()('waste'),
      nil<string>()('location_id'), nil<LocationRuleAction>()('action'), nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly', 'boolean'),
      sql<number | null>`coalesce(b.lead_time_days, a.lead_time_days)`.as('lead_time_days'),
      attach ? sql<unknown>`case when b.variant_id is not null then ${attach.bom(shop, sql.ref('b.variant_id'))} end`.as('attached') : none,
    ])
    .where((eb) => eb.or([eb('b.bom_id', 'is not', null), eb('a.assembly_id', 'is not', null)]))
    .unionAll((db) => db.selectFrom('reach as r')
      .innerJoinLateral((eb) => eb.selectFrom('recipe_lines as l').select(['l.line_type', 'l.position', 'l.node_id', 'l.quantity', 'l.waste_percentage'])
        .where('l.shop_id', '=', s).whereRef('l.owner_type', '=', 'r.owner_type').whereRef('l.owner_id', '=', 'r.owner_id').modifyEnd(OFFSET_0)
        .as('l'), (j) => j.onTrue())
      .select([
        sql<ForestKind>`'line'`.as('kind'), sql<BillOwnerType>`r.owner_type`.as('owner_type'), 'r.owner_id', nil<string>()('name'), nil<boolean>()('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), sql<RecipeLineType | null>`l.line_type`.as('line_type'), sql<number | null>`l.position`.as('position'),
        sql<string | null>`l.node_id`.as('node_id'), sql<string | null>`l.quantity::text`.as('quantity'), sql<string | null>`l.waste_percentage::text`.as('waste'),
        nil<string>()('location_id'), nil<LocationRuleAction>()('action'), nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly'),
        nil<number>()('lead_time_days'),
        attach ? sql<unknown>`${attach.line(shop, sql.ref('l.line_type'), sql.ref('l.node_id'))}`.as('attached') : none,
      ]))
    // Joined, not a fenced probe per bill: a shop has one rule row per bill and location with rules,
    // so few that the planner scanned the table whole for each reached bill instead of probing its
    // key (an order breakdown batch of the bench's 20k shop reaches 602 bills: about 40 % of the
    // statement's time). Joined, the shop's rules are read once.
    .unionAll((db) => db.selectFrom('reach as r')
      .innerJoin('location_rules as g', (j) => j.on('g.shop_id', '=', s).onRef('g.owner_type', '=', 'r.owner_type').onRef('g.owner_id', '=', 'r.owner_id'))
      .select([
        sql<ForestKind>`'rule'`.as('kind'), sql<BillOwnerType>`r.owner_type`.as('owner_type'), 'r.owner_id', nil<string>()('name'), nil<boolean>()('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), nil<RecipeLineType>()('line_type'), nil<number>()('position'), nil<string>()('node_id'),
        nil<string>()('quantity'), nil<string>()('waste'), sql<string | null>`g.location_id`.as('location_id'), nil<LocationRuleAction>()('action'),
        nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly'), nil<number>()('lead_time_days'), none,
      ]))
    .unionAll((db) => db.selectFrom('reach as r')
      .innerJoinLateral((eb) => eb.selectFrom('location_rule_overrides as o').selectAll('o')
        .where('o.shop_id', '=', s).whereRef('o.owner_type', '=', 'r.owner_type').whereRef('o.owner_id', '=', 'r.owner_id').modifyEnd(OFFSET_0)
        .as('o'), (j) => j.onTrue())
      .leftJoin('assembly_bills as x', (j) => j.onRef('x.shop_id', '=', 'o.shop_id').on('x.assembly_id', '=', assemblyOf))
      .select([
        sql<ForestKind>`'override'`.as('kind'), sql<BillOwnerType>`r.owner_type`.as('owner_type'), 'r.owner_id', nil<string>()('name'), nil<boolean>()('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), nil<RecipeLineType>()('line_type'), sql<number | null>`o.position`.as('position'),
        sql<string | null>`o.node_id`.as('node_id'), sql<string | null>`o.quantity::text`.as('quantity'), sql<string | null>`o.waste_percentage::text`.as('waste'),
        sql<string | null>`o.location_id`.as('location_id'), sql<LocationRuleAction | null>`o.action`.as('action'),
        sql<string | null>`o.replacement_node_id`.as('replacement_node_id'), sql<boolean | null>`(x.assembly_id is not null)`.as('introduces_assembly'),
        nil<number>()('lead_time_days'), none,
      ]));
}

type ForestRow = InferResult<ReturnType<typeof forestQuery>>[number];

/**
 * The forest of every bill of the shop, as forestQuery tags its rows, without the walk: every bill
 * is a root, so every table is read whole for the shop (a scan, hashed where joined) instead of
 * probed once per reached bill. Probing cost grows with the index as well as with the bills (the
 * bench's 100k shop: 15,000 bills, 0.004 → 0.012 ms a probe, the statement 62 → 620 ms, 10× for 5×
 * the shop); read whole it follows the rows. Rows of an owner that is no bill are left out by
 * toForest, as the walk never reached them.
 */
function shopForestQuery(shopId: string) {
  const s = shopId;
  const none = sql<unknown>`null::json`.as('attached');
  const assemblyOf = sql<string>`coalesce(o.replacement_node_id, o.node_id)`;
  return recipesSql.selectFrom('boms as b')
    .select([
      sql<ForestKind>`'bill'`.as('kind'), sql<BillOwnerType>`'bom'::text`.as('owner_type'), sql<string>`b.bom_id::text`.as('owner_id'),
      sql<string | null>`b.name`.as('name'), nil<boolean>()('only_consume', 'boolean'),
      sql<string | null>`b.variant_id`.as('variant_id'), sql<BomStatus | null>`b.status`.as('status'), sql<StorefrontStockMode | null>`b.storefront_stock`.as('storefront_stock'), nil<RecipeLineType>()('line_type'),
      nil<number>()('position', 'int'), nil<string>()('node_id'), nil<string>()('quantity'), nil<string>()('waste'),
      nil<string>()('location_id'), nil<LocationRuleAction>()('action'), nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly', 'boolean'),
      sql<number | null>`b.lead_time_days`.as('lead_time_days'), none,
    ])
    .where('b.shop_id', '=', s)
    .unionAll((db) => db.selectFrom('assembly_bills as a')
      .select([
        sql<ForestKind>`'bill'`.as('kind'), sql<BillOwnerType>`'sub_assembly'::text`.as('owner_type'), sql<string>`a.assembly_id::text`.as('owner_id'),
        sql<string | null>`a.name`.as('name'), sql<boolean | null>`a.only_consume_preassembled`.as('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), nil<RecipeLineType>()('line_type'),
        nil<number>()('position'), nil<string>()('node_id'), nil<string>()('quantity'), nil<string>()('waste'),
        nil<string>()('location_id'), nil<LocationRuleAction>()('action'), nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly'),
        sql<number | null>`a.lead_time_days`.as('lead_time_days'), none,
      ])
      .where('a.shop_id', '=', s))
    .unionAll((db) => db.selectFrom('recipe_lines as l')
      .select([
        sql<ForestKind>`'line'`.as('kind'), sql<BillOwnerType>`l.owner_type`.as('owner_type'), sql<string>`l.owner_id`.as('owner_id'), nil<string>()('name'), nil<boolean>()('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), sql<RecipeLineType | null>`l.line_type`.as('line_type'), sql<number | null>`l.position`.as('position'),
        sql<string | null>`l.node_id`.as('node_id'), sql<string | null>`l.quantity::text`.as('quantity'), sql<string | null>`l.waste_percentage::text`.as('waste'),
        nil<string>()('location_id'), nil<LocationRuleAction>()('action'), nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly'),
        nil<number>()('lead_time_days'), none,
      ])
      .where('l.shop_id', '=', s))
    .unionAll((db) => db.selectFrom('location_rules as g')
      .select([
        sql<ForestKind>`'rule'`.as('kind'), sql<BillOwnerType>`g.owner_type`.as('owner_type'), sql<string>`g.owner_id`.as('owner_id'), nil<string>()('name'), nil<boolean>()('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), nil<RecipeLineType>()('line_type'), nil<number>()('position'), nil<string>()('node_id'),
        nil<string>()('quantity'), nil<string>()('waste'), sql<string | null>`g.location_id`.as('location_id'), nil<LocationRuleAction>()('action'),
        nil<string>()('replacement_node_id'), nil<boolean>()('introduces_assembly'), nil<number>()('lead_time_days'), none,
      ])
      .where('g.shop_id', '=', s))
    .unionAll((db) => db.selectFrom('location_rule_overrides as o')
      .leftJoin('assembly_bills as x', (j) => j.onRef('x.shop_id', '=', 'o.shop_id').on('x.assembly_id', '=', assemblyOf))
      .select([
        sql<ForestKind>`'override'`.as('kind'), sql<BillOwnerType>`o.owner_type`.as('owner_type'), sql<string>`o.owner_id`.as('owner_id'), nil<string>()('name'), nil<boolean>()('only_consume'),
        nil<string>()('variant_id'), nil<BomStatus>()('status'), nil<StorefrontStockMode>()('storefront_stock'), nil<RecipeLineType>()('line_type'), sql<number | null>`o.position`.as('position'),
        sql<string | null>`o.node_id`.as('node_id'), sql<string | null>`o.quantity::text`.as('quantity'), sql<string | null>`o.waste_percentage::text`.as('waste'),
        sql<string | null>`o.location_id`.as('location_id'), sql<LocationRuleAction | null>`o.action`.as('action'),
        sql<string | null>`o.replacement_node_id`.as('replacement_node_id'), sql<boolean | null>`(x.assembly_id is not null)`.as('introduces_assembly'),
        nil<number>()('lead_time_days'), none,
      ])
      .where('o.shop_id', '=', s));
}

const shopForestStatement = preparedSql((_shape: 'shop', shopId: string) => shopForestQuery(shopId) as unknown as Compilable<ForestRow>);

/** A forest row that carries attached JSON (ForestAttachments): its kind, owner, line type and node, and the JSON. */
export type AttachedRow = Pick<ForestRow, 'kind' | 'owner_type' | 'owner_id' | 'variant_id' | 'line_type' | 'node_id' | 'attached'>;

/**
 * The forest statement of each seed, built once (preparedSql): `roots` (the roots' types and ids as
 * text[] literals) or every BOM of the shop (every bill of the shop: shopForestStatement).
 */
const forestStatement = preparedSql((seed: 'roots' | 'boms', shopId: string, types = '', ids = '') =>
  forestQuery(shopId, seed === 'roots' ? seedRoots(types, ids) : seedAllBoms(shopId)));

const LINE_ORDER = { raw: 0, sub: 1, cost: 2 } as const;

function toForest(rows: readonly ForestRow[]): RecipeForest {
  // One pass: the walk's row set has each bill's row before its lines, rules and overrides only by
  // chance, so rows of a bill not met yet wait in `pending` (no key object or second pass per row).
  const bills = new Map<string, EngineBill>();
  const pending: ForestRow[] = [];
  const attach = (bill: EngineBill, r: ForestRow) => {
    if (r.kind === 'line') {
      bill.lines.push({
        lineType: r.line_type!, nodeId: r.node_id!, quantity: exact(r.quantity!), wastePercentage: r.waste === null ? ZERO : exact(r.waste),
        position: Number(r.position), changedBy: null,
      });
      return;
    }
    let overrides = bill.rules.get(r.location_id!);
    if (!overrides) bill.rules.set(r.location_id!, overrides = []);
    if (r.kind === 'override') {
      overrides.push({
        action: r.action!, position: Number(r.position), nodeId: r.node_id!, replacementNodeId: r.replacement_node_id,
        quantity: r.quantity === null ? null : exact(r.quantity), wastePercentage: r.waste === null ? null : exact(r.waste),
        introducesAssembly: r.introduces_assembly === true,
      });
    }
  };
  for (const r of rows) {
    if (r.kind !== 'bill') {
      const bill = bills.get(`${r.owner_type}:${r.owner_id}`);
      if (bill) attach(bill, r);
      else pending.push(r);
      continue;
    }
    bills.set(`${r.owner_type}:${r.owner_id}`, {
      key: { ownerType: r.owner_type, ownerId: r.owner_id },
      name: r.name ?? '',
      onlyConsumePreassembled: r.owner_type === 'sub_assembly' && r.only_consume === true,
      variantId: r.variant_id,
      status: r.status,
      storefrontStock: r.storefront_stock,
      leadTimeDays: Number(r.lead_time_days ?? 0),
      lines: [],
      rules: new Map(),
    });
  }
  for (const r of pending) {
    const bill = bills.get(`${r.owner_type}:${r.owner_id}`);
    if (bill) attach(bill, r);
  }
  for (const bill of bills.values()) {
    bill.lines.sort((a, b) => LINE_ORDER[a.lineType] - LINE_ORDER[b.lineType] || a.position - b.position);
    for (const overrides of bill.rules.values()) overrides.sort((a, b) => a.position - b.position);
  }
  return { bills, lineCache: new Map() };
}

/**
 * Loads every bill reachable from the roots — following sub-assembly lines AND sub-assemblies added
 * or substituted by location rules — in ONE SQL round trip (recursive CTE), whatever the depth or
 * width. Unknown roots are simply absent (hasBill returns false).
 */
export async function loadRecipeForest(ctx: ShopContext, roots: readonly BillKey[]): Promise<RecipeForest> {
  if (roots.length === 0) return { bills: new Map(), lineCache: new Map() };
  return toForest(await runSql(ctx.em, forestStatement('roots', ctx.shopId, textArrayLiteral(roots.map((r) => r.ownerType)), textArrayLiteral(roots.map((r) => r.ownerId)))));
}

const attachedStatements = new Map<string, (shape: string, shopId: string, types: string, ids: string) => Compilable<ForestRow>>();

/**
 * loadRecipeForest with JSON attached to its rows (ForestAttachments), still ONE round trip: the
 * forest and `attached`, the rows that carry JSON. `shape` names the attachments: the statement is
 * prepared once per shape, with the attachments given at its first use, so their SQL must depend only
 * on the shape (and their arguments).
 */
export async function loadRecipeForestAttached(ctx: ShopContext, roots: readonly BillKey[], shape: string, attach: () => ForestAttachments): Promise<{ forest: RecipeForest; attached: AttachedRow[] }> {
  if (roots.length === 0) return { forest: { bills: new Map(), lineCache: new Map() }, attached: [] };
  let statement = attachedStatements.get(shape);
  if (!statement) {
    const attachments = attach();
    attachedStatements.set(shape, statement = preparedSql((_shape: string, shopId: string, types: string, ids: string) => forestQuery(shopId, seedRoots(types, ids), attachments)));
  }
  const rows = await runSql(ctx.em, statement(shape, ctx.shopId, textArrayLiteral(roots.map((r) => r.ownerType)), textArrayLiteral(roots.map((r) => r.ownerId))));
  return { forest: toForest(rows), attached: rows.filter((r) => r.attached !== null) };
}

/**
 * A loader of the forests whose roots another module's statement names: `seed(shopId, key)` selects
 * (owner_type, owner_id) rows from the caller's own tables, e.g. the items of some work orders, so the
 * recipe walk needs no earlier read of the roots and runs beside the caller's other reads. Built once
 * per seed (call this at module level); `key` is the seed's one value besides the shop (a text[] literal of ids).
 */
export function seededForestLoader(name: string, seed: (shopId: string, key: string) => Expression<{ owner_type: string; owner_id: string }>) {
  const statement = preparedSql((_seed: string, shopId: string, key: string) => forestQuery(shopId, recipesSql
    .selectFrom(sql<{ owner_type: string; owner_id: string }>`(${seed(shopId, key)})`.as('s')).selectAll() as unknown as Seed));
  return async (ctx: ShopContext, key: string): Promise<RecipeForest> => toForest(await runSql(ctx.em, statement(name, ctx.shopId, key)));
}

/** The forest of every BOM of the shop (lists and stats), in one SQL round trip. */
export async function loadShopRecipeForest(ctx: ShopContext): Promise<RecipeForest> {
  return toForest(await runSql(ctx.em, forestStatement('boms', ctx.shopId)));
}

/** The forest of every bill of the shop, BOMs and assembly bills alike (planning), in one SQL round trip. */
export async function loadAllBillsForest(ctx: ShopContext): Promise<RecipeForest> {
  return toForest(await runSql(ctx.em, shopForestStatement('shop', ctx.shopId)));
}
