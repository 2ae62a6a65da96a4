import { sql } from 'kysely';
import type { Em } from '../../../db/orm.ts';
import { runSql } from '../../../db/typed-sql.ts';
import { TOPIC_APPLIERS } from './apply.ts';
import type { WebhookEventStatus } from './inbox.entity.ts';
import { NotYetApplicable } from './mirror-writes.ts';
import { webhookInboxSql } from './tables.ts';

/**
 * After a full sync replaced the mirror with Shopify's bulk snapshot, the webhook events already
 * applied whose change is newer than `since` (the snapshot's start, with a margin) are applied
 * again, in Shopify's order: a change that happened while the export ran, and reached bomcore by
 * webhook before the sync committed, is not lost under the older snapshot. Every mirror write is
 * guarded by Shopify's `updated_at`, so an event the snapshot already holds changes nothing.
 * Runs in the sync's transaction; its work is the events of the export window, not the shop.
 */
export async function reapplyEventsSince(em: Em, shopId: string, since: Date): Promise<number> {
  const rows = await runSql(em, webhookInboxSql.selectFrom('shopify_webhook_events')
    .select(['event_id', 'topic', 'resource', 'version', 'payload'])
    .where('shop_id', '=', shopId).where('status', '=', sql.lit<WebhookEventStatus>('applied')).where('version', '>=', since)
    .orderBy('version').orderBy('event_id'));
  let reapplied = 0;
  for (const r of rows) {
    const apply = TOPIC_APPLIERS[r.topic];
    if (!apply || r.topic === 'app/uninstalled') continue;
    const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>;
    try {
      await apply(em, { shopId, eventId: r.event_id, topic: r.topic, resource: r.resource, version: new Date(r.version), payload });
      reapplied += 1;
    } catch (error) {
      // What it needed is not in the snapshot either (a level of a product deleted since): nothing to restore.
      if (!(error instanceof NotYetApplicable)) throw error;
    }
  }
  return reapplied;
}
