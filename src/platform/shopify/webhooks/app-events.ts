import type { Em } from '../../../db/orm.ts';
import { runSql, runSqlWrite } from '../../../db/typed-sql.ts';
import { eraseMirror } from '../../mirror.ts';
import { platformStoreSql } from '../../tables.ts';
import { eraseConnection, markUninstalled, recordGrantedScopes } from '../connections.ts';
import { numericId } from '../ids.ts';
import type { Applied, InboxEvent } from './mirror-writes.ts';
import { webhookInboxSql } from './tables.ts';

// The topics about the app's installation and the mandatory compliance topics
// (https://shopify.dev/docs/apps/build/compliance/privacy-law-compliance): what each does to the
// shop's connection, mirror and inbox. What they mean for bomcore's own records of the shop (a
// shop/redact's erasure) follows outside src/platform (WebhookFollowers.shopRedacted).

/** Compliance payloads name people: once applied, an event of these topics keeps no payload. */
export const COMPLIANCE_TOPICS: ReadonlySet<string> = new Set(['customers/data_request', 'customers/redact', 'shop/redact']);

/** What is left of a personal payload once applied (and of a mirrored order's webhook payloads after customers/redact). */
export const REDACTED_PAYLOAD = { redacted: true } as const;

/** The numeric ids of a payload's list (orders_requested, orders_to_redact); anything else is left out. */
function ids(value: unknown): string[] {
  return Array.isArray(value) ? value.map(numericId).filter((id): id is string => id !== null) : [];
}

const customerIdOf = (payload: Record<string, unknown>): string | null => numericId((payload.customer as { id?: unknown } | null | undefined)?.id);

/** app/uninstalled: every call and push stops and the tokens are dropped (also done on receipt: markUninstalled keeps the first time). */
export async function uninstalled(em: Em, e: InboxEvent): Promise<Applied> {
  await markUninstalled(em, e.shopId, e.version);
  return { effect: 'upsert', variantIds: [] };
}

/** app/scopes_update: the scopes granted now, as Shopify's signed notice names them (`current`). */
export async function scopesUpdated(em: Em, e: InboxEvent): Promise<Applied> {
  const current = Array.isArray(e.payload.current) ? e.payload.current.filter((s): s is string => typeof s === 'string' && s !== '') : null;
  if (current === null) return { effect: 'none', variantIds: [] };
  await recordGrantedScopes(em, e.shopId, current);
  return { effect: 'upsert', variantIds: [] };
}

/**
 * customers/data_request: what bomcore holds of the customer, for the operator to send on (the
 * applier logs it): the requested orders bomcore mirrors, with their lines, and how many stored
 * webhook payloads (which carry the customer's details as Shopify sent them) are about them.
 * Two statements.
 */
export async function customerDataRequested(em: Em, e: InboxEvent): Promise<Applied> {
  const orderIds = ids(e.payload.orders_requested);
  const orders = orderIds.length === 0 ? [] : await runSql(em, platformStoreSql.selectFrom('platform_orders as o')
    .select(['o.order_id', 'o.name', (eb) => eb.selectFrom('platform_order_lines as l').select((l) => l.fn.countAll<string>().as('n'))
      .where('l.shop_id', '=', e.shopId).whereRef('l.order_id', '=', 'o.order_id').as('lines')])
    .where('o.shop_id', '=', e.shopId).where('o.order_id', 'in', orderIds).orderBy('o.order_id'));
  const [stored] = orderIds.length === 0 ? [{ n: '0' }] : await runSql(em, webhookInboxSql.selectFrom('shopify_webhook_events').select((eb) => eb.fn.countAll<string>().as('n'))
    .where('shop_id', '=', e.shopId).where('resource', 'in', orderIds.map((id) => `order:${id}`)));
  const dataRequest = e.payload.data_request as { id?: unknown } | undefined;
  return {
    effect: 'none', variantIds: [],
    report: {
      topic: e.topic, shopId: e.shopId, customerId: customerIdOf(e.payload), dataRequestId: numericId(dataRequest?.id), ordersRequested: orderIds,
      ordersHeld: orders.map((o) => ({ orderId: o.order_id, name: o.name, lines: Number(o.lines ?? 0) })),
      storedWebhookPayloads: Number(stored?.n ?? 0),
      personalData: 'bomcore keeps no customer record; an order it mirrors holds its name and lines, and the stored Shopify webhook payloads of the order hold what Shopify sent (customer, addresses) until they are pruned',
    },
  };
}

/**
 * customers/redact: the customer's personal data leaves the mirror: the named orders' notes (free
 * text a customer or the merchant wrote) are cleared, and every stored webhook payload of those
 * orders (Shopify's order JSON: customer, addresses, note) is replaced by a redaction mark. The
 * mirrored order itself (its name, lines, location) stays: stock was reserved and consumed for it.
 * Two statements.
 */
export async function customerRedacted(em: Em, e: InboxEvent): Promise<Applied> {
  const orderIds = ids(e.payload.orders_to_redact);
  if (orderIds.length > 0) {
    await runSqlWrite(em, platformStoreSql.updateTable('platform_orders').set({ note: null }).where('shop_id', '=', e.shopId).where('order_id', 'in', orderIds));
    await runSqlWrite(em, webhookInboxSql.updateTable('shopify_webhook_events').set({ payload: JSON.stringify(REDACTED_PAYLOAD) as never })
      .where('shop_id', '=', e.shopId).where('resource', 'in', orderIds.map((id) => `order:${id}`)).where('event_id', '!=', e.eventId));
  }
  return { effect: 'none', variantIds: [] };
}

/**
 * shop/redact (sent 48 hours after an uninstall): the store's mirror, its connection with every
 * token, and the shop's other stored webhooks are erased. bomcore's own records of the shop follow
 * the operator's BOMCORE_SHOP_REDACT (the follower). The event's own row stays until marked.
 */
export async function shopRedacted(em: Em, e: InboxEvent): Promise<Applied> {
  await eraseMirror(em, e.shopId);
  await eraseConnection(em, e.shopId);
  await runSqlWrite(em, webhookInboxSql.deleteFrom('shopify_webhook_events').where('shop_id', '=', e.shopId).where('event_id', '!=', e.eventId));
  return { effect: 'delete', variantIds: [], shopRedacted: true };
}
