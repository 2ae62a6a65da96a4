import type { Em } from '../../db/orm.ts';
import type { SecretBox } from '../../kernel/secret-box.ts';
import { ShopifyApiError, type AccessTokenSource } from './admin-api.ts';
import { renewConnectionToken, type Renewal, type StoredConnection } from './connections.ts';
import { runDetached } from '../../kernel/abandoned-work.ts';
import { clientCredentialsToken, refreshAccessToken, TokenGrantError, type AppCredentials, type IssuedToken } from './oauth.ts';

export interface TokenRenewalOptions {
  /** Where the connection is re-read and written (a fork per renewal). */
  em: Em;
  box: SecretBox;
  /** BOMCORE_SHOPIFY_ENDPOINT: the store's OAuth endpoint is there too. */
  endpoint: string | null;
  /** SHOPIFY_API_KEY and SHOPIFY_API_SECRET: the app whose refresh tokens the install link got. */
  installApp: AppCredentials | null;
  /** Renew a token that ends within this much. Default 5 minutes (Shopify: "a few minutes before they expire"). */
  marginMs?: number;
  now?: () => Date;
}

/** The code of the error every call of a shop whose refresh Shopify refused fails with, at once. */
export const REAUTHORIZE = 'REAUTHORIZE';

// One renewal per store at a time in this process (the row lock does it across processes; this
// saves the others a wait on the lock and a second read).
const renewing = new Map<string, Promise<StoredConnection>>();

/**
 * The token source of a stored connection: a token file's token as it is; an expiring one (install
 * link, client credentials) renewed before it ends and once after a 401, under the connection's row
 * lock, the new token and refresh token committed before either is used. A refresh Shopify refuses
 * marks the connection `reauthorize`; from then on every call fails at once with REAUTHORIZE — a
 * passing failure, so stock pushes wait in the outbox for the reinstall instead of being dropped.
 */
export function connectionTokenSource(connection: StoredConnection, options: TokenRenewalOptions): AccessTokenSource {
  const marginMs = options.marginMs ?? 5 * 60_000;
  const now = options.now ?? (() => new Date());
  let known = connection;
  const due = (c: StoredConnection) => c.tokenExpiresAt !== null && c.tokenExpiresAt.getTime() - now().getTime() <= marginMs;
  const usable = (c: StoredConnection) => {
    if (c.reauthorizeSince) throw reauthorizeError(c);
    return options.box.open(c.tokenSealed);
  };

  async function renew(decideCurrent: (locked: StoredConnection) => boolean): Promise<StoredConnection> {
    let pending = renewing.get(known.shopId);
    if (!pending) {
      // Shared by every request of the store that needs it: nobody's own work, so not abandoned with the request that began it.
      pending = runDetached(() => renewUnderLock(known.shopId, decideCurrent, options)).finally(() => renewing.delete(known.shopId));
      renewing.set(known.shopId, pending);
    }
    known = await pending;
    return known;
  }

  return {
    async current() {
      if (known.reauthorizeSince) throw reauthorizeError(known);
      if (known.grantKind === 'token' || !due(known)) return usable(known);
      return usable(await renew((locked) => !due(locked)));
    },
    async renewAfterRefusal(refused) {
      if (known.grantKind === 'token') return null;
      // Renewed already when the stored token is no longer the refused one (another process, or this one meanwhile).
      const after = await renew((locked) => options.box.open(locked.tokenSealed) !== refused);
      const token = usable(after);
      return token === refused ? null : token;
    },
  };
}

async function renewUnderLock(shopId: string, isCurrent: (locked: StoredConnection) => boolean, options: TokenRenewalOptions): Promise<StoredConnection> {
  const after = await renewConnectionToken(options.em, shopId, async (locked): Promise<Renewal> => {
    if (locked.reauthorizeSince || isCurrent(locked)) return { outcome: 'current' };
    let token: IssuedToken;
    try {
      token = await issue(locked, options);
    } catch (error) {
      if (error instanceof TokenGrantError && error.refused) return { outcome: 'refused', reason: error.message };
      throw error;
    }
    const { box } = options;
    return {
      outcome: 'renewed',
      grant: {
        tokenSealed: box.seal(token.accessToken), tokenExpiresAt: token.expiresAt,
        // A client credentials token has no refresh token; a refresh answers a new one (the old is retired once it is used).
        refreshTokenSealed: token.refreshToken ? box.seal(token.refreshToken) : locked.refreshTokenSealed,
        refreshTokenExpiresAt: token.refreshToken ? token.refreshTokenExpiresAt : locked.refreshTokenExpiresAt,
      },
    };
  }).catch((error: unknown) => {
    if (error instanceof TokenGrantError) throw new ShopifyApiError(`renewing the access token: ${error.message}`, { permanent: false, code: 'TOKEN_RENEWAL', status: error.status });
    throw error;
  });
  if (!after) throw new ShopifyApiError(`shop ${shopId} is no longer connected`, { permanent: true, code: 'NOT_CONNECTED' });
  return after;
}

async function issue(locked: StoredConnection, options: TokenRenewalOptions): Promise<IssuedToken> {
  if (locked.grantKind === 'client_credentials') {
    if (!locked.clientId || !locked.clientSecretSealed) throw new TokenGrantError('the connection has no client ID and secret: connect it again', true, null);
    return clientCredentialsToken({ clientId: locked.clientId, clientSecret: options.box.open(locked.clientSecretSealed) }, locked.domain, options.endpoint);
  }
  if (!locked.refreshTokenSealed) throw new TokenGrantError('the connection has no refresh token: install the app again', true, null);
  if (!options.installApp) {
    throw new ShopifyApiError('SHOPIFY_API_KEY and SHOPIFY_API_SECRET must be set to renew the access token of a store connected by the install link', { permanent: false, code: 'NO_APP_CREDENTIALS' });
  }
  return refreshAccessToken(options.installApp, locked.domain, options.box.open(locked.refreshTokenSealed), options.endpoint);
}

function reauthorizeError(c: StoredConnection): ShopifyApiError {
  return new ShopifyApiError(
    `Shopify refused to renew the access token of ${c.domain} since ${c.reauthorizeSince!.toISOString()}${c.reauthorizeReason ? ` (${c.reauthorizeReason})` : ''}: `
    + 'the store must install the app again (open the install link, or connect it again)',
    { permanent: false, code: REAUTHORIZE },
  );
}
