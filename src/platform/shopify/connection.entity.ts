import { defineEntity, p } from '@mikro-orm/core';
import { timestamp } from '../../db/columns.ts';

/**
 * A shop's connection to its Shopify store: one store per bomcore shop and one bomcore shop per
 * store (webhooks find their shop by the store's domain, so the table is read across shops and
 * carries no tenant filter; every query names its shop or domain). The access token is sealed
 * (src/kernel/secret-box.ts) and leaves this table only to call Shopify.
 */
export const PlatformConnection = defineEntity({
  name: 'PlatformConnection',
  tableName: 'platform_connections',
  properties: {
    shopId: p.text().primary(),
    domain: p.text().unique(),
    apiVersion: p.text(),
    tokenSealed: p.text(),
    /** The access scopes Shopify said the token has, at connect. */
    scopes: p.json<string[]>(),
    storeName: p.text(),
    connectedAt: timestamp(),
    syncStartedAt: timestamp().nullable(),
    syncCompletedAt: timestamp().nullable(),
    /** What the last full sync read: locations, variants, levels, orders, line items. */
    syncCounts: p.json<Record<string, number>>().nullable(),
    syncError: p.text().nullable(),
    /** The webhook callback URL registered at connect, and the topics registered. */
    webhookUri: p.text().nullable(),
    webhookTopics: p.json<string[]>().nullable(),
    /** When Shopify said the app was uninstalled (app/uninstalled): the token is dead until a reconnect. */
    uninstalledAt: timestamp().nullable(),
    /** When the last reconciliation pass ended (src/platform/shopify/reconcile/). */
    reconciledAt: timestamp().nullable(),
    /** Shopify's changes up to this time are in the mirror: the next pass reads what changed after it (less a margin). */
    reconciledThrough: timestamp().nullable(),
    /** The last pass's drift: rows the mirror held differently from Shopify, by kind. */
    reconcileDrift: p.json<Record<string, number>>().nullable(),
    /** Why the last pass failed (null: it did not). */
    reconcileError: p.text().nullable(),
    /** A window a pass left unfinished (its bounds and the cursor of each read), resumed by the next pass. */
    reconcileState: p.json<Record<string, unknown>>().nullable(),
    /** A pass holds the shop until then (one pass per shop at a time, across instances; a crashed one's lease runs out). */
    reconcileLeaseUntil: timestamp().nullable(),
    /** When bomcore last read the store whole: a full sync or a reconciliation pass that ended (health.ts). */
    lastContactAt: timestamp().nullable(),
    /** Since when the store's sync or reconciliation fails; null while it answers. Reads of the shop say so. */
    failingSince: timestamp().nullable(),
    /** How the token was got, so how it is renewed: `token` (a token file, never), `authorization_code` (its refresh token), `client_credentials` (the app's client ID and secret). */
    grantKind: p.text().default('token'),
    /** When the access token stops working (null: never); renewed before then. */
    tokenExpiresAt: timestamp().nullable(),
    /** The refresh token of an expiring offline token, sealed; replaced at each renewal (Shopify rotates it). */
    refreshTokenSealed: p.text().nullable(),
    refreshTokenExpiresAt: timestamp().nullable(),
    /** The client ID the token was issued to; with the sealed secret, for the client credentials grant only. */
    clientId: p.text().nullable(),
    clientSecretSealed: p.text().nullable(),
    /** Since when Shopify refuses to renew the token: the merchant must install the app again (PLATFORM_REAUTHORIZE). */
    reauthorizeSince: timestamp().nullable(),
    reauthorizeReason: p.text().nullable(),
  },
});
