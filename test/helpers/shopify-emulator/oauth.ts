import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EmulatedShop } from './shop.ts';

// Shopify's OAuth endpoints as an app sees them: the merchant's approval (`/admin/oauth/authorize`,
// played by `approveInstall`, since a merchant clicks it in the store's admin) and the token
// endpoint `POST /admin/oauth/access_token` with its three grants. Each rule cites its page.

export const AUTH_CODE_DOC = 'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/authorization-code-grant';
export const EXPIRING_DOC = 'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/offline-access-tokens';
export const CLIENT_CREDENTIALS_DOC = 'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/client-credentials-grant';

/** The app the install flow and the refresh grant use (one per emulator): its client ID and secret. */
export interface EmulatedApp {
  clientId: string;
  clientSecret: string;
  /**
   * The scopes of the app's configuration (shopify.app.toml `[access_scopes]`): with Shopify-managed
   * installation the merchant grants these, whatever `scope` the authorize URL asks. Null: the
   * requested ones are granted.
   */
  configuredScopes: string[] | null;
  /** The app's allowed redirection URLs (`[auth] redirect_urls`); null: any. */
  redirectUrls: string[] | null;
}

interface RefreshRecord { shop: EmulatedShop; expiresAt: number; predecessor: string | null; used: boolean; retired: boolean }

export interface OAuthIssue { shop: EmulatedShop; token: string; expiresAt: number | null }

export class OAuthServer {
  readonly app: EmulatedApp;
  readonly #now: () => Date;
  readonly #issue: (issue: OAuthIssue) => void;
  readonly #codes = new Map<string, { shop: EmulatedShop; scopes: string[]; used: boolean; issuedAt: number }>();
  readonly #refresh = new Map<string, RefreshRecord>();
  /** Every token endpoint call and what it answered (tests read it). */
  readonly calls: { grant: string; status: number; error: string | null }[] = [];
  /** Expiring access tokens' lifetime; Shopify's is one hour ("expires_in … 3600 seconds", EXPIRING_DOC). */
  accessTokenLifetimeSeconds = 3600;
  /** Refresh tokens live 90 days (https://shopify.dev/changelog/more-resilient-refreshes-for-expiring-offline-access-tokens). */
  refreshTokenLifetimeSeconds = 90 * 86_400;
  /** Client credentials tokens live 24 hours (CLIENT_CREDENTIALS_DOC). */
  clientCredentialsLifetimeSeconds = 86_399;

  constructor(app: EmulatedApp, now: () => Date, issue: (issue: OAuthIssue) => void) {
    this.app = app;
    this.#now = now;
    this.#issue = issue;
  }

  /**
   * The merchant approves the app on the store's grant screen (AUTH_CODE_DOC, "Ask for permission"):
   * Shopify checks `client_id` and that `redirect_uri` is one of the app's allowed URLs, then
   * redirects to it with `code`, `hmac`, `host`, `shop`, `state` and `timestamp`, the `hmac` being
   * the hex HMAC-SHA256 of the other parameters sorted, keyed with the client secret.
   */
  approveInstall(shop: EmulatedShop, authorizeUrl: string): string {
    const url = new URL(authorizeUrl);
    if (url.pathname !== '/admin/oauth/authorize') throw new Error(`emulator: not an authorize URL: ${authorizeUrl}`);
    const q = url.searchParams;
    if (q.get('client_id') !== this.app.clientId) throw new Error(`emulator: unknown client_id ${q.get('client_id')}`);
    const redirect = q.get('redirect_uri') ?? '';
    if (this.app.redirectUrls && !this.app.redirectUrls.includes(redirect)) throw new Error(`emulator: redirect_uri ${redirect} is not an allowed redirection URL of the app`);
    const requested = (q.get('scope') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const code = randomBytes(16).toString('hex');
    this.#codes.set(code, { shop, scopes: this.app.configuredScopes ?? requested, used: false, issuedAt: this.#now().getTime() });
    const params: Record<string, string> = {
      code, host: Buffer.from(`admin.shopify.com/store/${shop.domain.replace(/\.myshopify\.com$/, '')}`).toString('base64url'),
      shop: shop.domain, state: q.get('state') ?? '', timestamp: String(Math.floor(this.#now().getTime() / 1000)),
    };
    const callback = new URL(redirect);
    for (const [key, value] of Object.entries(params)) callback.searchParams.set(key, value);
    callback.searchParams.set('hmac', signQuery(this.app.clientSecret, params));
    return callback.toString();
  }

  /** `POST /admin/oauth/access_token`: the status and JSON body Shopify answers. */
  token(body: Record<string, string>): { status: number; body: Record<string, unknown> } {
    const grant = body.grant_type ?? (body.code ? 'authorization_code' : '');
    const answer = this.#grant(grant, body);
    this.calls.push({ grant, status: answer.status, error: typeof answer.body.error === 'string' ? answer.body.error : null });
    return answer;
  }

  #grant(grant: string, body: Record<string, string>): { status: number; body: Record<string, unknown> } {
    const now = this.#now().getTime();
    switch (grant) {
      case 'authorization_code': {
        // The code is exchanged with the app's own client ID and secret, once (AUTH_CODE_DOC, "Get an access token").
        if (!this.#appSecretMatches(body, this.app)) return invalidClient();
        const code = this.#codes.get(body.code ?? '');
        if (!code || code.used || now - code.issuedAt > 10 * 60_000) return invalidGrant('the authorization code is invalid, used or expired');
        code.used = true;
        code.shop.scopes.clear();
        for (const scope of code.scopes) code.shop.scopes.add(scope);
        // `expiring=1` asks for an expiring offline token and its refresh token; without it the token never expires (EXPIRING_DOC).
        if (body.expiring === '1' || body.expiring === 'true') return { status: 200, body: this.#expiringPair(code.shop, null, now) };
        const token = `shpua_${randomBytes(12).toString('hex')}`;
        this.#issue({ shop: code.shop, token, expiresAt: null });
        return { status: 200, body: { access_token: token, scope: [...code.shop.scopes].join(',') } };
      }
      case 'refresh_token': {
        if (!this.#appSecretMatches(body, this.app)) return invalidClient();
        const record = this.#refresh.get(body.refresh_token ?? '');
        // A refresh token is refused once expired, and once the refresh token that replaced it has been
        // used: Shopify keeps the previous one usable until the app uses its replacement
        // (https://shopify.dev/changelog/more-resilient-refreshes-for-expiring-offline-access-tokens).
        if (!record || record.retired || record.expiresAt <= now || !record.shop.installed) return invalidGrant('the refresh token is invalid, expired or revoked');
        record.used = true;
        if (record.predecessor) {
          const before = this.#refresh.get(record.predecessor);
          if (before) before.retired = true;
        }
        return { status: 200, body: this.#expiringPair(record.shop, body.refresh_token!, now) };
      }
      case 'client_credentials': {
        // Only an app of the store's own organisation, installed on it, gets a token this way; it lasts 24 hours (CLIENT_CREDENTIALS_DOC).
        const shop = this.#organizationShop(body.client_id ?? '');
        if (!shop || !this.#appSecretMatches(body, shop.organizationApp!)) return invalidClient();
        if (!shop.installed) return invalidGrant('the app is not installed on this store');
        const token = `shpat_${randomBytes(12).toString('hex')}`;
        this.#issue({ shop, token, expiresAt: now + this.clientCredentialsLifetimeSeconds * 1000 });
        return { status: 200, body: { access_token: token, scope: [...shop.scopes].join(','), expires_in: this.clientCredentialsLifetimeSeconds } };
      }
      default:
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: `grant_type ${grant || '(none)'} is not supported` } };
    }
  }

  /** The merchant (or Shopify) revokes the store's refresh tokens: the next refresh is refused as Shopify refuses a revoked one. */
  revokeRefreshTokens(shop: EmulatedShop): void {
    for (const record of this.#refresh.values()) if (record.shop === shop) record.retired = true;
  }

  /** Shops with an app of their own organisation (client credentials), found by its client ID. */
  organizationShops: EmulatedShop[] = [];

  #organizationShop(clientId: string): EmulatedShop | undefined {
    return this.organizationShops.find((s) => s.organizationApp?.clientId === clientId);
  }

  #appSecretMatches(body: Record<string, string>, app: { clientId: string; clientSecret: string }): boolean {
    return body.client_id === app.clientId && safeEqual(body.client_secret ?? '', app.clientSecret);
  }

  #expiringPair(shop: EmulatedShop, predecessor: string | null, now: number): Record<string, unknown> {
    const token = `shpat_${randomBytes(12).toString('hex')}`;
    const refresh = `shprt_${randomBytes(16).toString('hex')}`;
    this.#issue({ shop, token, expiresAt: now + this.accessTokenLifetimeSeconds * 1000 });
    // A refreshed pair keeps the refresh token's original end (it is not extended by rotation).
    const expiresAt = predecessor ? this.#refresh.get(predecessor)!.expiresAt : now + this.refreshTokenLifetimeSeconds * 1000;
    this.#refresh.set(refresh, { shop, expiresAt, predecessor, used: false, retired: false });
    return {
      access_token: token, expires_in: this.accessTokenLifetimeSeconds, refresh_token: refresh,
      refresh_token_expires_in: Math.floor((expiresAt - now) / 1000), scope: [...shop.scopes].join(','),
    };
  }
}

function invalidClient() {
  return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed: the client ID or secret is wrong' } };
}

function invalidGrant(description: string) {
  return { status: 400, body: { error: 'invalid_grant', error_description: description } };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The `hmac` of a redirect's query: hex HMAC-SHA256, keyed with the client secret, of the other
 * parameters sorted by key as a query string (AUTH_CODE_DOC, "Verify the installation request";
 * encoded as Shopify's own library encodes it to check).
 */
export function signQuery(secret: string, params: Record<string, string>): string {
  const sorted = new URLSearchParams();
  for (const key of Object.keys(params).filter((k) => k !== 'hmac' && k !== 'signature').sort()) sorted.append(key, params[key]!);
  const message = sorted.toString().replace(/\+/g, '%20');
  return createHmac('sha256', secret).update(message).digest('hex');
}

/** The token endpoint takes JSON or a form body (both appear on shopify.dev's pages). */
export function parseTokenBody(contentType: string, text: string): Record<string, string> | null {
  try {
    if (contentType.includes('application/json')) {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
    }
    return Object.fromEntries(new URLSearchParams(text));
  } catch {
    return null;
  }
}
