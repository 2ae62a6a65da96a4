import { sql, type InferResult, type NotNull, type SqlBool } from 'kysely';
import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { runSql } from '../../db/typed-sql.ts';
import { PAGE_LIMITS } from '../../kernel/limits.ts';
import type { ShopContext } from '../../kernel/shop-context.ts';
import { pageWindow, toConnection, windowSql, type Connection, type ConnectionArgs, type SortColumn, type WindowSql } from '../../db/keyset.ts';
import type { MovementSourceKind, StockKind } from './stock-vocabulary.ts';
import { stockSql } from './tables.ts';

// Reads the adjustment history the ledger appends to (ledger.ts recordAdjustments): every applied
// change of a material level, newest first.

export interface AdjustmentView {
  adjustmentId: string;
  variantId: string;
  locationId: string;
  stock: StockKind;
  before: string;
  after: string;
  delta: string;
  requestedDelta: string;
  source: MovementSourceKind;
  workOrderId: string | null;
  buildRunId: string | null;
  orderId: string | null;
  fulfilmentId: string | null;
  requestId: string | null;
  createdAt: Date;
}

/** The largest page of a history (the REST lists' general maximum). */
export const ADJUSTMENT_PAGE_MAX = PAGE_LIMITS.rows;

// Newest first; ids break ties between changes recorded in the same millisecond.
const COLUMNS: SortColumn[] = [
  { key: sql.ref('a.created_at'), dir: 'desc', cast: 'timestamptz' },
  { key: sql.ref('a.id'), dir: 'desc', cast: 'text' },
];
const TAG = 'adjustments';

/** Validates the page arguments once, before any read (INVALID_INPUT naming the argument). */
export function adjustmentWindow(args: ConnectionArgs) {
  return pageWindow(args, ADJUSTMENT_PAGE_MAX, TAG, COLUMNS.length);
}

/** The statement of adjustmentConnections; its rows type the page rows. */
function adjustmentPages(ctx: ShopContext, variantIds: readonly string[], w: WindowSql) {
  const scope = sql<SqlBool>`a.shop_id = ${ctx.shopId} and a.variant_id = v.variant_id and a.stock = 'material'`;
  const decimal = (column: string) => sql<string>`trim_scale(${sql.ref(column)})::text`;
  return stockSql
    .selectFrom(sql<{ variant_id: string; n: string }>`unnest(${textArrayLiteral(variantIds)}::text[]) with ordinality`.as<'v'>(sql`v(variant_id, n)`))
    .leftJoinLateral((eb) => eb.selectFrom('inventory_adjustments as a')
      .select([
        'a.id', 'a.variant_id', 'a.location_id', 'a.stock', decimal('a.before').as('before'), decimal('a.after').as('after'),
        decimal('a.delta').as('delta'), decimal('a.requested_delta').as('requested_delta'), 'a.source', 'a.work_order_id',
        'a.build_run_id', 'a.order_id', 'a.fulfilment_id', 'a.request_id', 'a.created_at', ...w.keys,
      ])
      .where(scope).where(w.bounds)
      .orderBy(w.order).limit(w.limit).as('p'), (join) => join.onTrue())
    .select((eb) => [
      'v.variant_id as owner',
      eb.selectFrom('inventory_adjustments as a').select((c) => c.fn.countAll<string>().as('n')).where(scope).as('total_count'),
      sql<boolean>`${w.outside
        ? eb.exists(eb.selectFrom('inventory_adjustments as a').select(sql.lit(1).as('one')).where(scope).where(w.outside))
        : sql`false`}`.as('outside'),
    ])
    .selectAll('p')
    .$narrowType<{ total_count: NotNull }>()
    .orderBy('v.n').orderBy('p.ord_');
}

type Row = InferResult<ReturnType<typeof adjustmentPages>>[number];
/** A row that carries a page entry (the lateral join matched): its columns are the adjustment's. */
type EntryRow = { [K in keyof Row]: NonNullable<Row[K]> };

/**
 * One page of the material-level history of each of `variantIds` (the same window for all), in
 * ONE statement whatever the number of materials: a lateral seek per material on the
 * (shop, variant, created_at) index, with its total count.
 */
export async function adjustmentConnections(ctx: ShopContext, variantIds: readonly string[], args: ConnectionArgs): Promise<Connection<AdjustmentView>[]> {
  const window = adjustmentWindow(args);
  const w = windowSql(COLUMNS, window);
  const rows = await runSql(ctx.em, adjustmentPages(ctx, variantIds, w));
  const byOwner = new Map<string, Row[]>();
  for (const row of rows) byOwner.set(row.owner, [...(byOwner.get(row.owner) ?? []), row]);
  return variantIds.map((id) => toConnection(byOwner.get(id) ?? [], window, TAG, COLUMNS.length, (r) => view(r as EntryRow)));
}

function view(r: EntryRow): AdjustmentView {
  return {
    adjustmentId: r.id, variantId: r.variant_id, locationId: r.location_id, stock: r.stock as StockKind, before: r.before, after: r.after, delta: r.delta,
    requestedDelta: r.requested_delta, source: r.source as MovementSourceKind, workOrderId: r.work_order_id, buildRunId: r.build_run_id, orderId: r.order_id, fulfilmentId: r.fulfilment_id, requestId: r.request_id,
    createdAt: new Date(r.created_at),
  };
}

/** What a work order's build runs did to pre-assembled shelves: their net move per (run, shelf, location). */
export interface RunShelfMove { buildRunId: string; itemId: string; locationId: string; source: MovementSourceKind; delta: string }

/**
 * The shelf moves of a work order's runs that are its output (completion, its reversal, QC failures)
 * as the adjustment history recorded them, summed per run, shelf, location and source: what a run
 * put on a shelf and what QC took off again. The run's own picks (a shelf consumed as a component)
 * are not output. One statement.
 */
export async function runShelfMoves(ctx: ShopContext, workOrderId: string): Promise<RunShelfMove[]> {
  const rows = await runSql(ctx.em, stockSql.selectFrom('inventory_adjustments as a')
    .select(['a.build_run_id', 'a.variant_id', 'a.location_id', 'a.source', sql<string>`trim_scale(sum(a.delta))::text`.as('delta')])
    .where('a.shop_id', '=', ctx.shopId).where('a.work_order_id', '=', workOrderId).where('a.stock', '=', sql.lit('preassembled'))
    .where('a.source', 'in', [sql.lit('build_run_completion'), sql.lit('build_run_completion_reversal'), sql.lit('qc_review')])
    .groupBy(['a.build_run_id', 'a.variant_id', 'a.location_id', 'a.source']));
  return rows.map((r) => ({ buildRunId: r.build_run_id!, itemId: r.variant_id, locationId: r.location_id, source: r.source as MovementSourceKind, delta: r.delta }));
}
