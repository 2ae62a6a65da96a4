import { defineEntity, p } from '@mikro-orm/core';
import { timestamp } from '../../db/columns.ts';

/**
 * A shop's connection to its Shopify store: one store per bomcore shop and one bomcore shop per
 * store (webhooks find their shop by the store's domain, so the table is read across shops and
 * carries no tenant filter; every query names its shop or domain). The access token is sealed
 * (secret-box.ts) and leaves this table only to call Shopify.
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
  },
});
