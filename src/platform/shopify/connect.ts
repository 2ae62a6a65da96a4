import type { Em } from '../../db/orm.ts';
import { ShopifyAdminApi, ShopifyApiError, type AdminApiOptions } from './admin-api.ts';
import { SHOPIFY_ADMIN_API_VERSION } from './admin-schema/index.ts';
import { deleteConnection, findConnection, findConnectionByDomain, saveConnection, type StoredConnection } from './connections.ts';
import { requestOperation } from './operations.ts';
import type { SecretBox } from '../../kernel/secret-box.ts';
import { WEBHOOK_TOPICS } from './webhook-topics.ts';

/** The access scopes bomcore needs of a store; `write_orders` only when order metafields are written back. */
export const REQUIRED_SCOPES = ['read_products', 'read_inventory', 'write_inventory', 'read_locations', 'read_orders'] as const;
export const METAFIELD_WRITE_BACK_SCOPE = 'write_orders';

export class ConnectError extends Error {}

const DOMAIN = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/;
const API_VERSION = /^\d{4}-(01|04|07|10)$|^unstable$/;

export interface ConnectInput {
  shopId: string;
  domain: string;
  accessToken: string;
  apiVersion?: string;
  /** The shop writes material requirements back to order metafields: `write_orders` is needed too. */
  metafieldWriteBack: boolean;
  /** Where Shopify sends webhooks (`https://…/webhooks/shopify`); null registers none. */
  webhookUri: string | null;
}

export interface ConnectResult { connection: StoredConnection; storeName: string; grantedScopes: string[]; webhooksRegistered: string[] }

/** Missing scopes of a grant: a `write_x` scope grants `read_x` as well. */
export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  const have = new Set(granted);
  return required.filter((scope) => !have.has(scope) && !(scope.startsWith('read_') && have.has(`write_${scope.slice(5)}`)));
}

/**
 * Connects a shop to its store: checks the domain, reads the shop and the token's access scopes
 * (refusing, naming each missing scope), registers the webhook topics when a callback URI is
 * given, and stores the connection with its token sealed. A store already connected to another
 * shop is refused: webhooks find their shop by domain.
 */
export async function connectShop(em: Em, box: SecretBox, input: ConnectInput, apiOptions: AdminApiOptions = {}): Promise<ConnectResult> {
  const domain = input.domain.trim().toLowerCase();
  if (!DOMAIN.test(domain)) throw new ConnectError(`--domain must be the store's myshopify.com domain (e.g. candles.myshopify.com), got "${input.domain}"`);
  const apiVersion = input.apiVersion ?? SHOPIFY_ADMIN_API_VERSION;
  if (!API_VERSION.test(apiVersion)) throw new ConnectError(`--api-version must look like 2026-10, got "${apiVersion}"`);
  if (input.accessToken.trim() === '') throw new ConnectError('the token file is empty');
  const other = await findConnectionByDomain(em, domain);
  if (other && other.shopId !== input.shopId) throw new ConnectError(`${domain} is already connected to shop ${other.shopId}; disconnect it there first`);

  const api = new ShopifyAdminApi({ domain, accessToken: input.accessToken.trim(), apiVersion }, { ...apiOptions, maxAttempts: apiOptions.maxAttempts ?? 3 });
  let access: { shop: { name: string; myshopifyDomain: string }; currentAppInstallation: { accessScopes: { handle: string }[] } };
  try {
    access = await api.request(requestOperation('shop-access'));
  } catch (error) {
    if (error instanceof ShopifyApiError && error.code === 'UNAUTHORIZED') throw new ConnectError(`Shopify refused the token for ${domain}: check the token file (an Admin API access token, shpat_…)`);
    throw error;
  }
  const granted = access.currentAppInstallation.accessScopes.map((s) => s.handle).sort();
  const required = input.metafieldWriteBack ? [...REQUIRED_SCOPES, METAFIELD_WRITE_BACK_SCOPE] : [...REQUIRED_SCOPES];
  const missing = missingScopes(granted, required);
  if (missing.length > 0) {
    throw new ConnectError(`the token for ${domain} lacks ${missing.length === 1 ? 'the access scope' : 'the access scopes'} ${missing.join(', ')}: `
      + 'add them to the custom app\'s Admin API scopes, reinstall it and use the new token');
  }

  const webhooksRegistered: string[] = [];
  if (input.webhookUri !== null) {
    for (const topic of WEBHOOK_TOPICS) {
      const answer = await api.request<{ webhookSubscriptionCreate: { userErrors: { message: string }[] } | null }>(
        requestOperation('webhook-subscription-create'), { topic, uri: input.webhookUri },
      );
      const errors = answer.webhookSubscriptionCreate?.userErrors ?? [];
      // Shopify refuses a second subscription of a topic to the same address: already registered.
      if (errors.length > 0 && !errors.every((e) => /already been taken|already exists/i.test(e.message))) {
        throw new ConnectError(`registering webhook ${topic}: ${errors.map((e) => e.message).join('; ')}`);
      }
      webhooksRegistered.push(topic);
    }
  }

  await saveConnection(em, {
    shopId: input.shopId, domain, apiVersion, tokenSealed: box.seal(input.accessToken.trim()), scopes: granted, storeName: access.shop.name,
    webhookUri: input.webhookUri, webhookTopics: input.webhookUri === null ? null : webhooksRegistered,
  });
  const connection = (await findConnection(em, input.shopId))!;
  return { connection, storeName: access.shop.name, grantedScopes: granted, webhooksRegistered };
}

/** Forgets the shop's connection (the sealed token with it); the mirror keeps the last synced state. */
export async function disconnectShop(em: Em, shopId: string): Promise<boolean> {
  return deleteConnection(em, shopId);
}
