import type { Em } from '../../db/orm.ts';
import { PlatformUnavailableError, type PlatformOrderInfo } from '../../kernel/platform-port/gateway.ts';
import type { ShopifyAdminApi } from './admin-api.ts';
import { fromGid, toGid } from './ids.ts';
import { writeOrderHistory, type OrderWrite } from './mirror-guard.ts';
import { requestOperation } from './operations.ts';
import { readRestOfLines, toOrderLines, type OrderNode } from './reconcile/reads.ts';
import { blankToNull } from './values.ts';

// Orders on demand. The mirror holds a store's open orders; a read that names another order (one
// fulfilled and closed, archived, cancelled, or placed before the store was connected) asks
// Shopify for it, and the mirror keeps it as history (it reserves nothing: mirror-guard.ts).

/** A bare numeric id, the only form of a Shopify order's id bomcore reads (any other names no order). */
const ORDER_ID = /^\d{1,20}$/;

/** Ids per request: Shopify's `nodes` takes at most 250. */
const IDS_PER_REQUEST = 250;

type HistoryNode = Pick<OrderNode, 'id' | 'name' | 'updatedAt' | 'note' | 'lineItems'>;

/** No budget of requests: an order with over 100 lines reads on (order-line-items.graphql). */
const UNBOUNDED = { take: () => true };

/**
 * A client waits for these reads: two attempts of at most 4 s each, so a store that does not answer
 * is a 503 within the request's deadline (BOMCORE_REQUEST_DEADLINE_MS, 10 s), not a retry loop.
 */
export const ORDER_HISTORY_API = { maxAttempts: 2, timeoutMs: 4_000, backoffBaseMs: 200, maxThrottleWaits: 2 } as const;

/**
 * The orders Shopify has of `orderIds` (bare numeric ids; any other id names no Shopify order),
 * read in one request per 250 ids, kept in the mirror as history (two statements), in id order.
 * An id Shopify does not know — or does not show: without `read_all_orders`, orders older than 60
 * days — is absent. When Shopify does not answer, PlatformUnavailableError: the orders may exist.
 */
export async function readOrderHistory(api: ShopifyAdminApi, em: Em, shopId: string, orderIds: readonly string[]): Promise<PlatformOrderInfo[]> {
  const ids = [...new Set(orderIds)].filter((id) => ORDER_ID.test(id));
  if (ids.length === 0) return [];
  const nodes: HistoryNode[] = [];
  try {
    for (let start = 0; start < ids.length; start += IDS_PER_REQUEST) {
      const answer = await api.request<{ nodes: (Partial<HistoryNode> | null)[] }>(requestOperation('order-history'),
        { ids: ids.slice(start, start + IDS_PER_REQUEST).map((id) => toGid('Order', id)) });
      nodes.push(...answer.nodes.filter((n): n is HistoryNode => typeof n?.id === 'string'));
    }
    for (const node of nodes) await readRestOfLines(api, node, UNBOUNDED);
  } catch (error) {
    throw new PlatformUnavailableError(`Shopify (${api.domain}) did not answer the read of order ${ids.join(', ')}: ${(error as Error).message}`, { cause: error });
  }
  const orders: OrderWrite[] = nodes.map((n) => ({
    orderId: fromGid('Order', n.id), name: n.name, note: blankToNull(n.note), version: new Date(n.updatedAt), lines: toOrderLines(n),
  }));
  await writeOrderHistory(em, shopId, orders);
  return orders.map((o) => ({ orderId: o.orderId, name: o.name, note: o.note, lineItems: o.lines })).sort((x, y) => x.orderId.localeCompare(y.orderId));
}

/** `held` (what the mirror answered for `orderIds`) with the orders it lacks, read by `read`; in id order, as the port answers. */
export async function withOrderHistory(
  held: PlatformOrderInfo[], orderIds: readonly string[], read: (missing: string[]) => Promise<PlatformOrderInfo[]>,
): Promise<PlatformOrderInfo[]> {
  const have = new Set(held.map((o) => o.orderId));
  const missing = [...new Set(orderIds)].filter((id) => !have.has(id) && ORDER_ID.test(id));
  if (missing.length === 0) return held;
  return [...held, ...await read(missing)].sort((x, y) => x.orderId.localeCompare(y.orderId));
}
