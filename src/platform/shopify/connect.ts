import type { Em } from '../../db/orm.ts';
import { ShopifyAdminApi, ShopifyApiError, type AdminApiOptions } from './admin-api.ts';
import { SHOPIFY_ADMIN_API_VERSION } from './admin-schema/index.ts';
import { deleteConnection, findConnection, findConnectionByDomain, saveConnection, type GrantKind, type StoredConnection } from './connections.ts';
import { clientCredentialsToken, TokenGrantError, type IssuedToken } from './oauth.ts';
import { requestOperation } from './operations.ts';
import type { SecretBox } from '../../kernel/secret-box.ts';
import { WEBHOOK_TOPICS } from './webhook-topics.ts';

/** The access scopes bomcore needs of a store; `write_orders` only when order metafields are written back. */
/** `read_merchant_managed_fulfillment_orders`: where an online order's units are (its fulfilment orders); without it Shopify returns none. */
export const REQUIRED_SCOPES = ['read_products', 'read_inventory', 'write_inventory', 'read_locations', 'read_orders', 'read_merchant_managed_fulfillment_orders'] as const;
export const METAFIELD_WRITE_BACK_SCOPE = 'write_orders';

export class ConnectError extends Error {
  /** The access scopes the grant lacks (empty for any other refusal). */
  readonly missingScopes: string[];
  constructor(message: string, missingScopes: string[] = []) {
    super(message);
    this.missingScopes = missingScopes;
  }
}

/** A store's `*.myshopify.com` host, as Shopify names it (lower case). */
export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/;
const API_VERSION = /^\d{4}-(01|04|07|10)$|^unstable$/;

/**
 * How the store's token is got: a legacy admin-created app's token (a file), the client credentials
 * of an app of the merchant's own organisation (a 24-hour token, got again as it ends), or the token
 * the install link's authorization code gave (expiring, with its refresh token).
 */
export type ConnectGrant =
  | { kind: 'token'; accessToken: string }
  | { kind: 'client_credentials'; clientId: string; clientSecret: string }
  | { kind: 'authorization_code'; token: IssuedToken };

export interface ConnectInput {
  shopId: string;
  domain: string;
  grant: ConnectGrant;
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

const SCOPE_REMEDY: Record<GrantKind, string> = {
  token: 'add them to the custom app\'s Admin API scopes, reinstall it and use the new token',
  client_credentials: 'add them to the app\'s access scopes (a new app version in the Dev Dashboard, or shopify.app.toml and `shopify app deploy`), then connect again',
  authorization_code: 'add them to the app\'s access scopes (shopify.app.toml [access_scopes], then `shopify app deploy`) and open the install link again',
};

/**
 * Connects a shop to its store: checks the domain, gets the token (client credentials) or takes
 * the one given, reads the shop and the token's access scopes (refusing, naming each missing
 * scope), registers the webhook topics when a callback URI is given, and stores the connection with
 * its secrets sealed. Nothing is stored until every check passed. A store already connected to
 * another shop is refused: webhooks find their shop by domain.
 */
export async function connectShop(em: Em, box: SecretBox, input: ConnectInput, apiOptions: AdminApiOptions = {}): Promise<ConnectResult> {
  const domain = input.domain.trim().toLowerCase();
  if (!SHOP_DOMAIN.test(domain)) throw new ConnectError(`--domain must be the store's myshopify.com domain (e.g. candles.myshopify.com), got "${input.domain}"`);
  const apiVersion = input.apiVersion ?? SHOPIFY_ADMIN_API_VERSION;
  if (!API_VERSION.test(apiVersion)) throw new ConnectError(`--api-version must look like 2026-10, got "${apiVersion}"`);
  const other = await findConnectionByDomain(em, domain);
  if (other && other.shopId !== input.shopId) throw new ConnectError(`${domain} is already connected to shop ${other.shopId}; disconnect it there first`);
  const token = await tokenOf(input.grant, domain, apiOptions.endpoint ?? null);

  const api = new ShopifyAdminApi({ domain, accessToken: token.accessToken, apiVersion }, { ...apiOptions, maxAttempts: apiOptions.maxAttempts ?? 3 });
  let access: { shop: { name: string; myshopifyDomain: string }; currentAppInstallation: { accessScopes: { handle: string }[] } };
  try {
    access = await api.request(requestOperation('shop-access'));
  } catch (error) {
    if (error instanceof ShopifyApiError && error.code === 'UNAUTHORIZED') {
      throw new ConnectError(input.grant.kind === 'token' ? `Shopify refused the token for ${domain}: check the token file (an Admin API access token, shpat_…)` : `Shopify refused the token it just issued for ${domain}`);
    }
    throw error;
  }
  const granted = access.currentAppInstallation.accessScopes.map((s) => s.handle).sort();
  const required = input.metafieldWriteBack ? [...REQUIRED_SCOPES, METAFIELD_WRITE_BACK_SCOPE] : [...REQUIRED_SCOPES];
  const missing = missingScopes(granted, required);
  if (missing.length > 0) {
    throw new ConnectError(`the ${input.grant.kind === 'token' ? 'token' : 'app'} for ${domain} lacks ${missing.length === 1 ? 'the access scope' : 'the access scopes'} ${missing.join(', ')}: `
      + SCOPE_REMEDY[input.grant.kind], missing);
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

  const grant = input.grant;
  await saveConnection(em, {
    shopId: input.shopId, domain, apiVersion, scopes: granted, storeName: access.shop.name,
    webhookUri: input.webhookUri, webhookTopics: input.webhookUri === null ? null : webhooksRegistered,
    grantKind: grant.kind, tokenSealed: box.seal(token.accessToken), tokenExpiresAt: token.expiresAt,
    refreshTokenSealed: token.refreshToken ? box.seal(token.refreshToken) : null, refreshTokenExpiresAt: token.refreshTokenExpiresAt,
    clientId: grant.kind === 'client_credentials' ? grant.clientId : null,
    clientSecretSealed: grant.kind === 'client_credentials' ? box.seal(grant.clientSecret) : null,
  });
  const connection = (await findConnection(em, input.shopId))!;
  return { connection, storeName: access.shop.name, grantedScopes: granted, webhooksRegistered };
}

async function tokenOf(grant: ConnectGrant, domain: string, endpoint: string | null): Promise<IssuedToken> {
  switch (grant.kind) {
    case 'token': {
      const accessToken = grant.accessToken.trim();
      if (accessToken === '') throw new ConnectError('the token file is empty');
      return { accessToken, scopes: [], expiresAt: null, refreshToken: null, refreshTokenExpiresAt: null };
    }
    case 'client_credentials':
      if (grant.clientId.trim() === '') throw new ConnectError('--client-id is empty');
      if (grant.clientSecret.trim() === '') throw new ConnectError('the client secret file is empty');
      try {
        return await clientCredentialsToken({ clientId: grant.clientId.trim(), clientSecret: grant.clientSecret.trim() }, domain, endpoint);
      } catch (error) {
        if (error instanceof TokenGrantError && error.refused) {
          throw new ConnectError(`${error.message}: check --client-id and the secret (the Dev Dashboard's app settings), and that the app is installed on ${domain} and belongs to the store's organisation`);
        }
        throw error;
      }
    case 'authorization_code':
      return grant.token;
  }
}

/** Forgets the shop's connection (the sealed token with it); the mirror keeps the last synced state. */
export async function disconnectShop(em: Em, shopId: string): Promise<boolean> {
  return deleteConnection(em, shopId);
}
