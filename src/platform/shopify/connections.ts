import type { Em } from '../../db/orm.ts';
import { PlatformConnection } from './connection.entity.ts';

// The platform_connections table's one reader and writer. Rows are found by shop (every command)
// or by store domain (webhooks): never read without naming one of them.

export interface ConnectionInfo {
  shopId: string; domain: string; apiVersion: string; scopes: string[]; storeName: string; connectedAt: Date;
  syncStartedAt: Date | null; syncCompletedAt: Date | null; syncCounts: Record<string, number> | null; syncError: string | null;
  webhookUri: string | null; webhookTopics: string[] | null;
  /** When Shopify said the app was uninstalled (its token is dead until a reconnect); null while installed. */
  uninstalledAt: Date | null;
}

/** A connection with its sealed token (open it with the SecretBox only to call Shopify). */
export interface StoredConnection extends ConnectionInfo { tokenSealed: string }

type Row = typeof PlatformConnection['~entity'];

function toStored(row: Row): StoredConnection {
  return {
    shopId: row.shopId, domain: row.domain, apiVersion: row.apiVersion, scopes: row.scopes, storeName: row.storeName, connectedAt: row.connectedAt,
    syncStartedAt: row.syncStartedAt ?? null, syncCompletedAt: row.syncCompletedAt ?? null, syncCounts: row.syncCounts ?? null,
    syncError: row.syncError ?? null, webhookUri: row.webhookUri ?? null, webhookTopics: row.webhookTopics ?? null,
    uninstalledAt: row.uninstalledAt ?? null, tokenSealed: row.tokenSealed,
  };
}

export async function findConnection(em: Em, shopId: string): Promise<StoredConnection | null> {
  const row = await em.fork().findOne(PlatformConnection, { shopId });
  return row ? toStored(row) : null;
}

export async function findConnectionByDomain(em: Em, domain: string): Promise<StoredConnection | null> {
  const row = await em.fork().findOne(PlatformConnection, { domain: domain.toLowerCase() });
  return row ? toStored(row) : null;
}

/** Creates or replaces the shop's connection (a reconnect keeps nothing of the old one but its sync times). */
export async function saveConnection(em: Em, input: {
  shopId: string; domain: string; apiVersion: string; tokenSealed: string; scopes: string[]; storeName: string; webhookUri: string | null; webhookTopics: string[] | null;
}): Promise<void> {
  await em.fork().upsert(PlatformConnection, { ...input, domain: input.domain.toLowerCase(), connectedAt: new Date(), syncError: null, uninstalledAt: null });
}

export async function deleteConnection(em: Em, shopId: string): Promise<boolean> {
  const deleted = await em.fork().nativeDelete(PlatformConnection, { shopId });
  return deleted > 0;
}

export async function recordSyncStart(em: Em, shopId: string, at: Date): Promise<void> {
  await em.fork().nativeUpdate(PlatformConnection, { shopId }, { syncStartedAt: at, syncError: null });
}

export async function recordSyncEnd(em: Em, shopId: string, outcome: { completedAt: Date; counts: Record<string, number> } | { error: string }): Promise<void> {
  const fields = 'error' in outcome ? { syncError: outcome.error.slice(0, 2000) } : { syncCompletedAt: outcome.completedAt, syncCounts: outcome.counts, syncError: null };
  await em.fork().nativeUpdate(PlatformConnection, { shopId }, fields);
}

/** app/uninstalled: the store removed the app, so its token no longer works. The row stays (status shows it; a reconnect clears it). Runs in the caller's transaction. */
export async function markUninstalled(em: Em, shopId: string, at: Date): Promise<void> {
  await em.nativeUpdate(PlatformConnection, { shopId }, { uninstalledAt: at });
}
