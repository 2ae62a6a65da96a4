import { AsyncLocalStorage } from 'node:async_hooks';
// Shopify's library needs a runtime adapter for its fetch, crypto and runtime string; the web-API one
// is the platform's own fetch and Web Crypto, which Node has. Its fetch is replaced just below.
import '@shopify/shopify-api/adapters/web-api';
import { HttpResponseError, LogSeverity, shopifyApi, type ApiVersion, type Session, type Shopify } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { SHOPIFY_ADMIN_API_VERSION } from './admin-schema/index.ts';

// The OAuth token endpoint of a store (`POST https://{shop}/admin/oauth/access_token`, not
// GraphQL): the only place bomcore reaches it. Shopify's own `@shopify/shopify-api` makes the
// refresh-token and client-credentials calls and checks the install callback's `hmac`. The
// authorization-code exchange is made here by hand: the library's `auth.callback` takes the `state`
// from a signed cookie its `auth.begin` set (one minute, one browser), where bomcore keeps the state
// in the database (single use, ten minutes, any instance) and needs no cookie; the body it posts is
// the same (`client_id`, `client_secret`, `code`, `expiring`).

/** An app's client ID and client secret (the Dev Dashboard's "Client ID" and "Secret"). */
export interface AppCredentials { clientId: string; clientSecret: string }

/** What Shopify issued: the token, its scopes and, for an expiring one, when it ends and its refresh token. */
export interface IssuedToken {
  accessToken: string;
  scopes: string[];
  expiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
}

/** A token call that failed: `refused` when Shopify said no (400/401: a used or revoked grant, a wrong secret), else passing (5xx, 429, network). */
export class TokenGrantError extends Error {
  readonly refused: boolean;
  readonly status: number | null;
  constructor(message: string, refused: boolean, status: number | null) {
    super(message);
    this.name = 'TokenGrantError';
    this.refused = refused;
    this.status = status;
  }
}

const TOKEN_TIMEOUT_MS = 30_000;

// The library builds `https://{shop}/admin/oauth/access_token` itself; with BOMCORE_SHOPIFY_ENDPOINT
// every store address is that origin, so its one fetch swaps the origin for the call's endpoint,
// carried per call (tests run several emulators in one process).
const endpointOfCall = new AsyncLocalStorage<string | null>();
setAbstractFetchFunc(async (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  return fetch(storeUrl(url, endpointOfCall.getStore() ?? null), { ...init, signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
});

/** `https://{shop}/path` as bomcore calls it: on BOMCORE_SHOPIFY_ENDPOINT's origin when set. */
export function storeUrl(url: string, endpoint: string | null): string {
  if (!endpoint) return url;
  const parsed = new URL(url);
  return endpoint.replace(/\/+$/, '') + parsed.pathname + parsed.search;
}

const clients = new Map<string, Shopify>();

/** The library's instance for an app (a few per process: the install app, each client credentials app). */
function library(app: AppCredentials): Shopify {
  const key = `${app.clientId}\u0000${app.clientSecret}`;
  let shopify = clients.get(key);
  if (!shopify) {
    shopify = shopifyApi({
      apiKey: app.clientId, apiSecretKey: app.clientSecret, apiVersion: SHOPIFY_ADMIN_API_VERSION as ApiVersion,
      // Only the install flow's begin/callback read the host, and bomcore makes those itself.
      hostName: 'bomcore.invalid', isEmbeddedApp: false,
      // Its info logs name the shop at each token; errors are thrown to bomcore, which says them.
      logger: { level: LogSeverity.Error, log: async () => {} },
    });
    clients.set(key, shopify);
  }
  return shopify;
}

function issued(session: Session): IssuedToken {
  if (!session.accessToken) throw new TokenGrantError('Shopify answered without an access token', false, null);
  return {
    accessToken: session.accessToken, scopes: splitScopes(session.scope), expiresAt: session.expires ?? null,
    refreshToken: session.refreshToken ?? null, refreshTokenExpiresAt: session.refreshTokenExpires ?? null,
  };
}

function splitScopes(scope: string | undefined): string[] {
  return (scope ?? '').split(',').map((s) => s.trim()).filter(Boolean).sort();
}

/** Shopify's refusal in words (its `error` and `error_description`), never the request (it holds the secret). */
function grantFailure(what: string, error: unknown): TokenGrantError {
  if (error instanceof TokenGrantError) return error;
  if (error instanceof HttpResponseError) {
    const status = error.response.code;
    const body = error.response.body as { error?: unknown; error_description?: unknown; errors?: unknown } | undefined;
    const said = [body?.error, body?.error_description ?? body?.errors].filter((v) => v !== undefined).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(': ');
    return new TokenGrantError(`Shopify refused ${what} (HTTP ${status}${said ? `: ${said}` : ''})`, status === 400 || status === 401 || status === 403, status);
  }
  return new TokenGrantError(`Shopify did not answer ${what}: ${(error as Error).message}`, false, null);
}

/** The refresh-token grant: a new expiring token and a new refresh token (Shopify rotates it). */
export async function refreshAccessToken(app: AppCredentials, domain: string, refreshToken: string, endpoint: string | null): Promise<IssuedToken> {
  try {
    const { session } = await endpointOfCall.run(endpoint, () => library(app).auth.refreshToken({ shop: domain, refreshToken }));
    return issued(session);
  } catch (error) {
    throw grantFailure('to renew the access token with the refresh token', error);
  }
}

/** The client credentials grant: a token of the organisation's own app on its own store (24 hours, no refresh token). */
export async function clientCredentialsToken(app: AppCredentials, domain: string, endpoint: string | null): Promise<IssuedToken> {
  try {
    const { session } = await endpointOfCall.run(endpoint, () => library(app).auth.clientCredentials({ shop: domain }));
    return issued(session);
  } catch (error) {
    throw grantFailure('the client credentials (client ID and secret)', error);
  }
}

/** The authorization-code exchange of the install callback, for an expiring offline token (`expiring=1`). */
export async function exchangeAuthorizationCode(app: AppCredentials, domain: string, code: string, endpoint: string | null): Promise<IssuedToken> {
  let response: Response;
  try {
    response = await fetch(storeUrl(`https://${domain}/admin/oauth/access_token`, endpoint), {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: app.clientId, client_secret: app.clientSecret, code, expiring: '1' }),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch (error) {
    throw grantFailure('the authorization code', error);
  }
  const body = await response.json().catch(() => null) as Record<string, unknown> | null;
  if (!response.ok || !body || typeof body.access_token !== 'string') {
    const said = body ? [body.error, body.error_description].filter((v) => typeof v === 'string').join(': ') : '';
    throw new TokenGrantError(`Shopify refused the authorization code (HTTP ${response.status}${said ? `: ${said}` : ''})`, response.status >= 400 && response.status < 500, response.status);
  }
  const now = Date.now();
  const seconds = (v: unknown) => (typeof v === 'number' && v > 0 ? new Date(now + v * 1000) : null);
  return {
    accessToken: body.access_token, scopes: splitScopes(typeof body.scope === 'string' ? body.scope : ''), expiresAt: seconds(body.expires_in),
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null, refreshTokenExpiresAt: seconds(body.refresh_token_expires_in),
  };
}

/**
 * The install callback's `hmac`: the hex HMAC-SHA256 of the other parameters, sorted, keyed with
 * the app secret, compared in constant time; Shopify's library also refuses a `timestamp` more than
 * 90 seconds off. False for a missing or wrong one.
 */
export async function validCallbackHmac(app: AppCredentials, query: Record<string, string>): Promise<boolean> {
  try {
    return await library(app).utils.validateHmac(query, { signator: 'admin' });
  } catch {
    return false;
  }
}
