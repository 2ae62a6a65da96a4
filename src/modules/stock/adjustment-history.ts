import { textArrayLiteral } from '../../db/sql-arrays.ts';
import { PAGE_LIMITS } from '../../limits.ts';
import type { ShopContext } from '../../shop-context.ts';
import { pageWindow, toConnection, windowSql, type Connection, type ConnectionArgs, type KeysetRow, type SortColumn } from '../../db/keyset.ts';
import type { MovementSourceKind, StockKind } from './stock-vocabulary.ts';

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
  requestId: string | null;
  createdAt: Date;
}

/** The largest page of a history (the REST lists' general maximum). */
export const ADJUSTMENT_PAGE_MAX = PAGE_LIMITS.rows;

// Newest first; ids break ties between changes recorded in the same millisecond.
const COLUMNS: SortColumn[] = [
  { sql: 'a.created_at', dir: 'desc', cast: 'timestamptz' },
  { sql: 'a.id', dir: 'desc', cast: 'text' },
];
const TAG = 'adjustments';

interface Row extends KeysetRow {
  owner: string; id: string; variant_id: string; location_id: string; stock: StockKind; before: string; after: string; delta: string;
  requested_delta: string; source: MovementSourceKind; work_order_id: string | null; build_run_id: string | null; request_id: string | null;
  created_at: Date | string;
}

/** Validates the page arguments once, before any read (INVALID_INPUT naming the argument). */
export function adjustmentWindow(args: ConnectionArgs) {
  return pageWindow(args, ADJUSTMENT_PAGE_MAX, TAG, COLUMNS.length);
}

/**
 * One page of the material-level history of each of `variantIds` (the same window for all), in
 * ONE statement whatever the number of materials: a lateral seek per material on the
 * (shop, variant, created_at) index, with its total count.
 */
export async function adjustmentConnections(ctx: ShopContext, variantIds: readonly string[], args: ConnectionArgs): Promise<Connection<AdjustmentView>[]> {
  const window = adjustmentWindow(args);
  const w = windowSql(COLUMNS, window);
  const scope = `a.shop_id = ? and a.variant_id = v.variant_id and a.stock = 'material'`;
  const rows = await ctx.em.execute<Row[]>(
    `select v.variant_id as owner,
            (select count(*) from inventory_adjustments a where ${scope}) as total_count,
            ${w.outside ? `exists (select 1 from inventory_adjustments a where ${scope} and (${w.outside.sql}))` : 'false'} as outside,
            p.*
       from unnest(?::text[]) with ordinality as v(variant_id, n)
       left join lateral (
         select a.id, a.variant_id, a.location_id, a.stock, trim_scale(a.before)::text as before, trim_scale(a.after)::text as after,
                trim_scale(a.delta)::text as delta, trim_scale(a.requested_delta)::text as requested_delta, a.source, a.work_order_id,
                a.build_run_id, a.request_id, a.created_at, ${w.keys}, row_number() over (order by ${w.order}) as ord_
           from inventory_adjustments a
          where ${scope} and ${w.bounds.sql}
          order by ${w.order} limit ?) p on true
      order by v.n, p.ord_`,
    [
      ctx.shopId, ...(w.outside ? [ctx.shopId, ...w.outside.args] : []), textArrayLiteral(variantIds), ctx.shopId, ...w.bounds.args, w.limit,
    ],
  );
  const byOwner = new Map<string, Row[]>();
  for (const row of rows) byOwner.set(row.owner, [...(byOwner.get(row.owner) ?? []), row]);
  return variantIds.map((id) => toConnection(byOwner.get(id) ?? [], window, TAG, COLUMNS.length, (r) => view(r as Row)));
}

function view(r: Row): AdjustmentView {
  return {
    adjustmentId: r.id, variantId: r.variant_id, locationId: r.location_id, stock: r.stock, before: r.before, after: r.after, delta: r.delta,
    requestedDelta: r.requested_delta, source: r.source, workOrderId: r.work_order_id, buildRunId: r.build_run_id, requestId: r.request_id,
    createdAt: new Date(r.created_at),
  };
}
