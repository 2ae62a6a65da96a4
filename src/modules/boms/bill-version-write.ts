import { sql, type SqlBool } from 'kysely';
import { createHash } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql, runSqlWrite } from '../../db/typed-sql.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import type { BillKey } from './engine/index.ts';
import type { BillSaveTrigger } from './recipe-vocabulary.ts';
import { recipesSql } from './tables.ts';

// Bill versions are written in two steps so that a save never waits for its summary and is never
// lost: the save's own transaction freezes the bill's content into a `pending` version row
// (`recordPendingBillVersion`), and a later pass (`fillPendingBillVersions`, run by the filler in
// `bill-version-filler.ts` or called directly) derives the content hash and the change summary
// against the previous version and marks the row `ready`. A crash between the two leaves a
// pending row with its content, which the next pass completes.

/** The bill's header fields, per owner type, as JSON (its own row, read by primary key). */
const HEADER = {
  bom: (shopId: string, bomId: string) => recipesSql.selectFrom('boms as b')
    .select(sql<unknown>`jsonb_build_object('name', b.name, 'status', b.status, 'variantId', b.variant_id, 'archived', b.archived_at is not null)`.as('header'))
    .where('b.shop_id', '=', shopId).where('b.bom_id', '=', bomId),
  sub_assembly: (shopId: string, assemblyId: string) => recipesSql.selectFrom('assembly_bills as a')
    .select(sql<unknown>`jsonb_build_object('name', a.name, 'onlyConsumePreassembled', a.only_consume_preassembled, 'archived', a.archived_at is not null)`.as('header'))
    .where('a.shop_id', '=', shopId).where('a.assembly_id', '=', assemblyId),
} as const;

/**
 * Freezes the bill as it now stands (inside the save's transaction, after its writes) into a new
 * pending version: the next number after the bill's highest. The caller holds the bill's row lock,
 * so two saves of one bill never take the same number. One statement; returns the version number.
 */
export async function recordPendingBillVersion(tx: ShopContext, key: BillKey, trigger: BillSaveTrigger, savedBy: string | null): Promise<number> {
  const s = tx.shopId;
  // The bill's own rows of a table aliased `alias`.
  const owned = (alias: string) =>
    sql<SqlBool>`${sql.ref(`${alias}.shop_id`)} = ${s} and ${sql.ref(`${alias}.owner_type`)} = ${key.ownerType} and ${sql.ref(`${alias}.owner_id`)} = ${key.ownerId}`;
  const [row] = await runSql(tx.em, recipesSql.insertInto('bill_versions')
    .columns(['shop_id', 'owner_type', 'owner_id', 'version', 'state', 'saved_at', 'saved_by', 'trigger', 'content'])
    .expression(recipesSql.selectNoFrom([
      sql.val(s).as('shop_id'), sql.val(key.ownerType).as('owner_type'), sql.val(key.ownerId).as('owner_id'),
      sql<number>`coalesce(${recipesSql.selectFrom('bill_versions as v').select((eb) => eb.fn.max('v.version').as('v')).where(owned('v'))}, 0) + 1`.as('version'),
      sql.lit('pending').as('state'), sql`now()`.as('saved_at'), sql.val(savedBy).as('saved_by'), sql.val(trigger).as('trigger'),
      sql`jsonb_build_object(
        'header', ${HEADER[key.ownerType](s, key.ownerId)},
        'lines', coalesce(${recipesSql.selectFrom('recipe_lines as l').where(owned('l'))
          .select(sql`jsonb_agg(jsonb_build_array(l.line_type, l.node_id, trim_scale(l.quantity)::text, trim_scale(l.waste_percentage)::text)
                             order by l.line_type, l.position)`.as('lines'))}, '[]'::jsonb),
        'rules', coalesce(${recipesSql.selectFrom('location_rules as g').where(owned('g'))
          .select(sql`jsonb_agg(jsonb_build_object('locationId', g.location_id, 'overrides', coalesce(${recipesSql.selectFrom('location_rule_overrides as o')
            .select(sql`jsonb_agg(jsonb_build_array(o.action, o.node_id, o.replacement_node_id,
                     trim_scale(o.quantity)::text, trim_scale(o.waste_percentage)::text) order by o.position)`.as('overrides'))
            .where('o.shop_id', '=', sql.ref<string>('g.shop_id')).where('o.owner_type', '=', sql.ref<BillKey['ownerType']>('g.owner_type'))
            .where('o.owner_id', '=', sql.ref<string>('g.owner_id')).where('o.location_id', '=', sql.ref<string>('g.location_id'))}, '[]'::jsonb)) order by g.location_id)`.as('rules'))}, '[]'::jsonb))`.as('content'),
    ]))
    .returning('version'));
  return Number(row!.version);
}

/** A frozen bill: header fields, base lines `[type, node, quantity, waste]`, rules with overrides. */
interface BillContent {
  header: Record<string, unknown>;
  lines: [string, string, string, string][];
  rules: { locationId: string; overrides: [string, string, string | null, string | null, string | null][] }[];
}

export interface BillChangeSummary { recipeFields: number; materials: number; locationRules: number; overrides: number }

/** Keys of `a` and `b` whose values differ, plus keys only one of them has. */
function changedKeys<T>(a: Map<string, T>, b: Map<string, T>, same: (x: T, y: T) => boolean): number {
  let n = 0;
  for (const [k, v] of a) if (!b.has(k) || !same(v, b.get(k)!)) n += 1;
  for (const k of b.keys()) if (!a.has(k)) n += 1;
  return n;
}

const sameJson = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/**
 * The change counts of a version against the one before it (no previous content, e.g. the first
 * version or one loaded from a dataset: everything counts as changed). Recipe fields: header fields
 * and sub-assembly and cost-factor lines; materials: raw-material lines; location rules: locations
 * whose rule appeared, went or changed; overrides: overrides (by location and node) that did.
 */
export function summariseBillChange(previous: BillContent | null, current: BillContent): BillChangeSummary {
  const before: BillContent = previous ?? { header: {}, lines: [], rules: [] };
  const lines = (c: BillContent, raw: boolean) => new Map(c.lines.filter((l) => (l[0] === 'raw') === raw).map((l) => [`${l[0]}:${l[1]}`, l]));
  const header = (c: BillContent) => new Map(Object.entries(c.header));
  const rules = (c: BillContent) => new Map(c.rules.map((r) => [r.locationId, r.overrides]));
  const overrides = (c: BillContent) => new Map(c.rules.flatMap((r) => r.overrides.map((o) => [`${r.locationId}|${o[1]}`, o] as const)));
  return {
    recipeFields: changedKeys(header(before), header(current), sameJson) + changedKeys(lines(before, false), lines(current, false), sameJson),
    materials: changedKeys(lines(before, true), lines(current, true), sameJson),
    locationRules: changedKeys(rules(before), rules(current), sameJson),
    overrides: changedKeys(overrides(before), overrides(current), sameJson),
  };
}

/** JSON with object keys sorted at every level: equal content, equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function billContentHash(content: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(content)).digest('hex')}`;
}

const parse = (v: BillContent | string): BillContent => (typeof v === 'string' ? JSON.parse(v) as BillContent : v);

/**
 * One pass of the version filler: claims up to `limit` pending versions that carry content
 * (oldest first; `skip locked`, so passes running at once never share a row), computes each one's
 * hash and summary against the version before it, and marks them ready. Versions loaded from a
 * dataset as pending carry no content and are left as the file says. `shopIds` null = every shop.
 * Three statements whatever the batch size. Returns how many versions became ready.
 */
export async function fillPendingBillVersions(em: Em, options: { shopIds: readonly string[] | null; limit: number }): Promise<number> {
  return em.transactional(async (tx) => {
    const pending = recipesSql.selectFrom('bill_versions as v')
      .select((eb) => [
        'v.shop_id', 'v.owner_type', 'v.owner_id', 'v.version', sql<BillContent | string>`v.content`.as('content'),
        eb.selectFrom('bill_versions as p').select(sql<BillContent | string>`p.content`.as('content'))
          .whereRef('p.shop_id', '=', 'v.shop_id').whereRef('p.owner_type', '=', 'v.owner_type').whereRef('p.owner_id', '=', 'v.owner_id')
          .whereRef('p.version', '<', 'v.version')
          .orderBy('p.version', 'desc').limit(1).as('previous'),
      ])
      .where('v.state', '=', 'pending').where('v.content', 'is not', null)
      .orderBy('v.saved_at').orderBy('v.version')
      .limit(options.limit).forUpdate('v').skipLocked();
    const rows = await runSql(tx as Em, options.shopIds
      ? pending.where('v.shop_id', '=', sql<string>`any(${textArrayLiteral(options.shopIds)}::text[])`)
      : pending);
    if (rows.length === 0) return 0;
    const filled = rows.map((r) => ({ row: r, hash: billContentHash(parse(r.content)), changes: summariseBillChange(r.previous === null ? null : parse(r.previous), parse(r.content)) }));
    const column = (pick: (f: (typeof filled)[number]) => string | number) => textArrayLiteral(filled.map((f) => String(pick(f))));
    type Filled = { shop_id: string; owner_type: string; owner_id: string; version: number; hash: string; recipe_fields: number; materials: number; location_rules: number; overrides: number };
    const source = sql<Filled>`unnest(${column((f) => f.row.shop_id)}::text[], ${column((f) => f.row.owner_type)}::text[], ${column((f) => f.row.owner_id)}::text[],
      ${column((f) => f.row.version)}::int[], ${column((f) => f.hash)}::text[], ${column((f) => f.changes.recipeFields)}::int[],
      ${column((f) => f.changes.materials)}::int[], ${column((f) => f.changes.locationRules)}::int[], ${column((f) => f.changes.overrides)}::int[])`
      .as<'s'>(sql`s(shop_id, owner_type, owner_id, version, hash, recipe_fields, materials, location_rules, overrides)`);
    await runSqlWrite(tx as Em, recipesSql.updateTable('bill_versions as v').from(source)
      .set((eb) => ({
        state: 'ready', content_hash: eb.ref('s.hash'), changed_recipe_fields: eb.ref('s.recipe_fields'), changed_materials: eb.ref('s.materials'),
        changed_location_rules: eb.ref('s.location_rules'), changed_overrides: eb.ref('s.overrides'),
      }))
      .whereRef('v.shop_id', '=', 's.shop_id').where('v.owner_type', '=', sql.ref<BillKey['ownerType']>('s.owner_type'))
      .whereRef('v.owner_id', '=', 's.owner_id').whereRef('v.version', '=', 's.version'));
    return filled.length;
  });
}
