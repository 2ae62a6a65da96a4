import { LockMode } from '@mikro-orm/core';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql } from 'kysely';
import type { Em } from '../../db/orm.ts';
import { runSql, runSqlWrite, sqlBuilder } from '../../db/typed-sql.ts';
import { PlatformConnection } from './connection.entity.ts';

const connectionSql = sqlBuilder<InferKyselyDB<typeof PlatformConnection>>();

// The platform_connections table's one reader and writer. Rows are found by shop (every command)
// or by store domain (webhooks): never read without naming one of them.

export interface ConnectionInfo {
  shopId: string; domain: string; apiVersion: string; scopes: string[]; storeName: string; connectedAt: Date;
  syncStartedAt: Date | null; syncCompletedAt: Date | null; syncCounts: Record<string, number> | null; syncError: string | null;
  webhookUri: string | null; webhookTopics: string[] | null;
  /** When Shopify said the app was uninstalled (its token is dead until a reconnect); null while installed. */
  uninstalledAt: Date | null;
  /** The last reconciliation pass: when it ended, up to when Shopify's changes are mirrored, the drift it found, its error. */
  reconciledAt: Date | null; reconciledThrough: Date | null; reconcileDrift: Record<string, number> | null; reconcileError: string | null;
  /** A pass left its window unfinished: the next one goes on with it. */
  reconcileUnfinished: boolean;
  /** When bomcore last read the store whole (a sync or a reconciliation pass that ended); since when its attempts fail (null: they do not). */
  lastContactAt: Date | null; failingSince: Date | null;
  /** How the token was got (so how it is renewed), when it expires (null: never), and the client ID of a client credentials app. */
  grantKind: GrantKind; tokenExpiresAt: Date | null; refreshTokenExpiresAt: Date | null; clientId: string | null;
  /** Since when Shopify refuses to renew the token, and what it said: the store must install the app again. */
  reauthorizeSince: Date | null; reauthorizeReason: string | null;
}

/** `token`: a token file (never renewed); `authorization_code`: the install link (refresh token); `client_credentials`: the app's own ID and secret. */
export type GrantKind = 'token' | 'authorization_code' | 'client_credentials';

/** The sealed secrets of a connection: opened with the SecretBox only to call Shopify, never shown. */
export interface SealedSecrets { tokenSealed: string; refreshTokenSealed: string | null; clientSecretSealed: string | null }

/** A connection with its sealed secrets. */
export interface StoredConnection extends ConnectionInfo, SealedSecrets { reconcileState: Record<string, unknown> | null }

/** What a token grant gave, sealed: stored with the connection, or in place of the old one at a renewal. */
export interface SealedGrant {
  tokenSealed: string; tokenExpiresAt: Date | null; refreshTokenSealed: string | null; refreshTokenExpiresAt: Date | null;
}

type Row = typeof PlatformConnection['~entity'];

function toStored(row: Row): StoredConnection {
  return {
    shopId: row.shopId, domain: row.domain, apiVersion: row.apiVersion, scopes: row.scopes, storeName: row.storeName, connectedAt: row.connectedAt,
    syncStartedAt: row.syncStartedAt ?? null, syncCompletedAt: row.syncCompletedAt ?? null, syncCounts: row.syncCounts ?? null,
    syncError: row.syncError ?? null, webhookUri: row.webhookUri ?? null, webhookTopics: row.webhookTopics ?? null,
    uninstalledAt: row.uninstalledAt ?? null, tokenSealed: row.tokenSealed,
    reconciledAt: row.reconciledAt ?? null, reconciledThrough: row.reconciledThrough ?? null, reconcileDrift: row.reconcileDrift ?? null,
    reconcileError: row.reconcileError ?? null, reconcileState: row.reconcileState ?? null, reconcileUnfinished: row.reconcileState != null,
    lastContactAt: row.lastContactAt ?? null, failingSince: row.failingSince ?? null,
    grantKind: (row.grantKind ?? 'token') as GrantKind, tokenExpiresAt: row.tokenExpiresAt ?? null, refreshTokenExpiresAt: row.refreshTokenExpiresAt ?? null,
    clientId: row.clientId ?? null, refreshTokenSealed: row.refreshTokenSealed ?? null, clientSecretSealed: row.clientSecretSealed ?? null,
    reauthorizeSince: row.reauthorizeSince ?? null, reauthorizeReason: row.reauthorizeReason ?? null,
  };
}

/** The connection as `shop status` may show it: every sealed secret left out. */
export function connectionInfo(stored: StoredConnection): ConnectionInfo {
  const { tokenSealed: _t, refreshTokenSealed: _r, clientSecretSealed: _c, reconcileState: _window, ...info } = stored;
  return info;
}

export async function findConnection(em: Em, shopId: string): Promise<StoredConnection | null> {
  const row = await em.fork().findOne(PlatformConnection, { shopId });
  return row ? toStored(row) : null;
}

/** When the shop connected its store (null: not connected), read in the caller's transaction (so on the embedded database too). */
export async function connectedAtOf(em: Em, shopId: string): Promise<Date | null> {
  const [row] = await runSql(em, connectionSql.selectFrom('platform_connections').select('connected_at').where('shop_id', '=', shopId));
  return row ? new Date(row.connected_at) : null;
}

/**
 * The connection read on the caller's EntityManager, in its transaction if it is in one (a read of
 * orders inside a write's transaction: on the embedded database, a second connection would wait for it).
 */
export async function findConnectionIn(em: Em, shopId: string): Promise<StoredConnection | null> {
  const row = await em.findOne(PlatformConnection, { shopId }, { disableIdentityMap: true });
  return row ? toStored(row) : null;
}

export async function findConnectionByDomain(em: Em, domain: string): Promise<StoredConnection | null> {
  const row = await em.fork().findOne(PlatformConnection, { domain: domain.toLowerCase() });
  return row ? toStored(row) : null;
}

/** Creates or replaces the shop's connection (a reconnect keeps nothing of the old one but its sync times). */
export async function saveConnection(em: Em, input: SealedGrant & {
  shopId: string; domain: string; apiVersion: string; scopes: string[]; storeName: string; webhookUri: string | null; webhookTopics: string[] | null;
  grantKind: GrantKind; clientId: string | null; clientSecretSealed: string | null;
}): Promise<void> {
  // A reconnect (perhaps to another store, with another token) starts reconciliation afresh after its sync, and ends a reauthorization.
  await em.fork().upsert(PlatformConnection, {
    ...input, domain: input.domain.toLowerCase(), connectedAt: new Date(), syncError: null, uninstalledAt: null,
    reconciledThrough: null, reconcileState: null, reconcileError: null, reconcileLeaseUntil: null, reauthorizeSince: null, reauthorizeReason: null,
  });
}

/** What a renewal under the row lock decided: a new token (stored), the current one (another process renewed it), or a refusal (marked). */
export type Renewal = { outcome: 'renewed'; grant: SealedGrant } | { outcome: 'current' } | { outcome: 'refused'; reason: string };

/**
 * Renews a connection's token under a row lock (`select … for update`), so one process at a time
 * renews each store, across instances: `decide` sees the row as locked (a renewal another process
 * committed meanwhile included) and answers what to do. A new token and refresh token are written
 * in the lock's transaction, before the caller uses either: a crash after Shopify rotated the
 * refresh token but before the write would lose it. A refusal marks the connection `reauthorize`.
 * Answers the connection as committed.
 */
export async function renewConnectionToken(em: Em, shopId: string, decide: (locked: StoredConnection) => Promise<Renewal>): Promise<StoredConnection | null> {
  return em.fork().transactional(async (tx) => {
    const row = await tx.findOne(PlatformConnection, { shopId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!row) return null;
    const renewal = await decide(toStored(row));
    if (renewal.outcome === 'renewed') {
      await tx.nativeUpdate(PlatformConnection, { shopId }, { ...renewal.grant });
    } else if (renewal.outcome === 'refused') {
      await tx.nativeUpdate(PlatformConnection, { shopId }, { reauthorizeSince: new Date(), reauthorizeReason: renewal.reason.slice(0, 500) });
    }
    const after = await tx.findOne(PlatformConnection, { shopId }, { refresh: true });
    return after ? toStored(after) : null;
  });
}

/** shop/redact: the connection and every token leave, in the caller's transaction. */
export async function eraseConnection(em: Em, shopId: string): Promise<void> {
  await runSqlWrite(em, connectionSql.deleteFrom('platform_connections').where('shop_id', '=', shopId));
}

export async function deleteConnection(em: Em, shopId: string): Promise<boolean> {
  const deleted = await em.fork().nativeDelete(PlatformConnection, { shopId });
  return deleted > 0;
}

export async function recordSyncStart(em: Em, shopId: string, at: Date): Promise<void> {
  await em.fork().nativeUpdate(PlatformConnection, { shopId }, { syncStartedAt: at, syncError: null });
}

export async function recordSyncEnd(em: Em, shopId: string, outcome: { completedAt: Date; counts: Record<string, number> } | { error: string }): Promise<void> {
  const ended = 'error' in outcome ? { sync_error: outcome.error.slice(0, 2000) } : { sync_completed_at: outcome.completedAt, sync_counts: JSON.stringify(outcome.counts) as never, sync_error: null };
  await runSqlWrite(em, connectionSql.updateTable('platform_connections').set({ ...ended, ...contact('error' in outcome ? null : outcome.completedAt) }).where('shop_id', '=', shopId));
}

/**
 * The store's health after a sync or a reconciliation pass: one that ended is contact (the store
 * was read whole then, and nothing fails now); one that failed starts the failing time, or keeps
 * the first failure's.
 */
function contact(endedAt: Date | null) {
  return endedAt ? { last_contact_at: endedAt, failing_since: null } : { failing_since: sql<Date>`coalesce(failing_since, now())` };
}

/** A shop whose store does not answer, or uninstalled the app: its reads say so (health.ts). */
export interface UnhealthyConnection {
  shopId: string; failingSince: Date | null; lastContactAt: Date | null; uninstalledAt: Date | null; lastError: string | null;
  /** Since when Shopify refuses to renew the token, and what it said. */
  reauthorizeSince: Date | null; reauthorizeReason: string | null;
}

/** Every connection whose store fails or uninstalled the app (a few rows: one per such shop). */
export async function unhealthyConnections(em: Em): Promise<UnhealthyConnection[]> {
  const rows = await runSql(em, connectionSql.selectFrom('platform_connections')
    .select(['shop_id', 'failing_since', 'last_contact_at', 'uninstalled_at', 'reconcile_error', 'sync_error', 'reconciled_at', 'sync_started_at', 'reauthorize_since', 'reauthorize_reason'])
    .where((eb) => eb.or([eb('failing_since', 'is not', null), eb('uninstalled_at', 'is not', null), eb('reauthorize_since', 'is not', null)])));
  // Raw rows carry timestamps as the driver gives them (text on the embedded database).
  const at = (v: Date | string | null) => (v === null ? null : new Date(v));
  return rows.map((r) => ({
    shopId: r.shop_id, failingSince: at(r.failing_since), lastContactAt: at(r.last_contact_at), uninstalledAt: at(r.uninstalled_at),
    reauthorizeSince: at(r.reauthorize_since), reauthorizeReason: r.reauthorize_reason,
    // The error of whichever ran last.
    lastError: (r.sync_started_at && (!r.reconciled_at || at(r.sync_started_at)! > at(r.reconciled_at)!) ? r.sync_error ?? r.reconcile_error : r.reconcile_error ?? r.sync_error) ?? null,
  }));
}

/**
 * app/uninstalled: the store removed the app, so its tokens no longer work and bomcore must not
 * keep them. The tokens (access, refresh, a client secret) are dropped and the time is kept; every
 * call and push for the store stops (the gateway and the reconciler read `uninstalled_at`). The row
 * stays (status shows it; a reconnect or a new install replaces it). One statement, in the
 * caller's transaction; a second notice keeps the first time.
 */
export async function markUninstalled(em: Em, shopId: string, at: Date): Promise<void> {
  await runSqlWrite(em, connectionSql.updateTable('platform_connections')
    .set((eb) => ({
      uninstalled_at: eb.fn.coalesce('uninstalled_at', eb.val(at)), token_sealed: '', token_expires_at: null,
      refresh_token_sealed: null, refresh_token_expires_at: null, client_secret_sealed: null,
    }))
    .where('shop_id', '=', shopId));
}

/** app/scopes_update: the scopes the merchant granted now (Shopify's signed notice names them). */
export async function recordGrantedScopes(em: Em, shopId: string, scopes: readonly string[]): Promise<void> {
  await runSqlWrite(em, connectionSql.updateTable('platform_connections').set({ scopes: JSON.stringify([...scopes]) as never }).where('shop_id', '=', shopId));
}

export interface ReconcileClaim {
  /** Only these shops (tests sharing a database; `shop reconcile --shop`). Default: every shop. */
  shopIds?: readonly string[] | null;
  /** Only shops whose last pass ended before this (or left its window unfinished without an error); null: due now. */
  dueBefore: Date | null;
  /** How long the claim keeps other passes off the shop. */
  leaseMs: number;
  limit: number;
}

/**
 * Claims connected shops for a reconciliation pass: installed, synced at least once, not held by
 * another pass (`for update skip locked`, then a lease: two instances never reconcile one shop at
 * once, and a crashed pass's lease runs out). Longest unreconciled first. Returns the claimed shops.
 */
export async function claimForReconcile(em: Em, claim: ReconcileClaim): Promise<StoredConnection[]> {
  if (claim.shopIds && claim.shopIds.length === 0) return [];
  let due = connectionSql.selectFrom('platform_connections').select('shop_id')
    .where('uninstalled_at', 'is', null).where('sync_completed_at', 'is not', null)
    .where((eb) => eb.or([eb('reconcile_lease_until', 'is', null), eb('reconcile_lease_until', '<', sql<Date>`now()`)]));
  if (claim.shopIds) due = due.where('shop_id', 'in', [...new Set(claim.shopIds)]);
  const dueBefore = claim.dueBefore;
  if (dueBefore) {
    due = due.where((eb) => eb.or([
      eb('reconciled_at', 'is', null), eb('reconciled_at', '<', dueBefore),
      eb.and([eb('reconcile_state', 'is not', null), eb('reconcile_error', 'is', null)]),
    ]));
  }
  const claimed = await runSql(em, connectionSql
    .with('due', () => due.orderBy(sql`reconciled_at asc nulls first`).orderBy('shop_id').limit(claim.limit).forUpdate().skipLocked())
    .updateTable('platform_connections as c')
    .set({ reconcile_lease_until: sql<Date>`now() + (${claim.leaseMs} * interval '1 millisecond')` })
    .from('due').whereRef('c.shop_id', '=', 'due.shop_id')
    .returning('c.shop_id'));
  const found = await Promise.all(claimed.map((r) => findConnection(em, r.shop_id)));
  return found.filter((c): c is StoredConnection => c !== null);
}

export interface ReconcileOutcome {
  at: Date;
  /** Shopify's changes up to this time are mirrored (a finished window); null: unchanged (the window goes on, or failed). */
  through: Date | null;
  /** The unfinished window to go on with; null when the window finished. */
  state: Record<string, unknown> | null;
  drift: Record<string, number>;
  error: string | null;
}

/** Ends a pass: records what it did and releases the shop. */
export async function recordReconcile(em: Em, shopId: string, outcome: ReconcileOutcome): Promise<void> {
  await runSqlWrite(em, connectionSql.updateTable('platform_connections').set({
    reconciled_at: outcome.at, reconcile_drift: JSON.stringify(outcome.drift) as never, reconcile_error: outcome.error === null ? null : outcome.error.slice(0, 2000),
    reconcile_state: (outcome.state === null ? null : JSON.stringify(outcome.state)) as never, reconcile_lease_until: null,
    ...(outcome.through ? { reconciled_through: outcome.through } : {}),
    ...contact(outcome.error === null ? outcome.at : null),
  }).where('shop_id', '=', shopId));
}
