import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { ConnectError, SHOP_DOMAIN } from '../../platform/shopify/connect.ts';
import { createInstallState, takeInstallState } from '../../platform/shopify/install-states.ts';
import { exchangeAuthorizationCode, storeUrl, TokenGrantError, validCallbackHmac, type AppCredentials, type IssuedToken } from '../../platform/shopify/oauth.ts';
import { sendProblem } from '../errors/problem.ts';

export interface ShopifyInstallOptions {
  orm: Orm;
  /** SHOPIFY_API_KEY and SHOPIFY_API_SECRET; null: the install link answers 503. */
  app: AppCredentials | null;
  /** BOMCORE_PUBLIC_URL; null: the install link answers 503. */
  publicUrl: string | null;
  /** BOMCORE_SHOPIFY_ENDPOINT: the store's /admin/oauth/* is there too. */
  endpoint: string | null;
  /** The scopes the link asks a store for. */
  scopesFor(domain: string): Promise<string[]>;
  /** Links the store to its bomcore shop (the shell's: src/app/shopify-link.ts); a ConnectError refuses it. */
  link(input: { domain: string; token: IssuedToken; webhookUri: string }): Promise<{ shopId: string; storeName: string; grantedScopes: string[]; webhooksRegistered: string[] }>;
}

function one(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function missingSettings(options: ShopifyInstallOptions): string[] {
  return [!options.app && 'SHOPIFY_API_KEY and SHOPIFY_API_SECRET', !options.publicUrl && 'BOMCORE_PUBLIC_URL'].filter((v): v is string => typeof v === 'string');
}

/**
 * The install link (authorization code grant, expiring offline token): `GET /shopify/install?shop=D`
 * sends the merchant to the store's grant screen with a single-use `state`; `GET /shopify/callback`
 * is where Shopify sends them back. The callback checks the `hmac` (with Shopify's own library),
 * the `state` (taken once, ten minutes) and the `shop`, exchanges the code for an expiring offline
 * token and its refresh token, and links the store; any failed check is 400/401 (problem+json) and
 * links nothing. Hidden from the REST OpenAPI document: Shopify's contract, not bomcore's API.
 */
export async function registerShopifyInstall(app: FastifyInstance, options: ShopifyInstallOptions): Promise<void> {
  app.get('/shopify/install', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const missing = missingSettings(options);
    if (missing.length > 0) return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: `${missing.join(' and ')} must be set for the install link` });
    const shop = one(request.query, 'shop')?.trim().toLowerCase() ?? '';
    if (!SHOP_DOMAIN.test(shop)) {
      return sendProblem(request, reply, { code: 'INVALID_INPUT', detail: 'shop must be the store\'s myshopify.com domain, e.g. ?shop=candles.myshopify.com', errors: [{ field: 'shop', message: 'a *.myshopify.com domain' }] });
    }
    const state = await createInstallState(options.orm.em.fork(), shop);
    const authorize = new URL(storeUrl(`https://${shop}/admin/oauth/authorize`, options.endpoint));
    authorize.searchParams.set('client_id', options.app!.clientId);
    authorize.searchParams.set('scope', (await options.scopesFor(shop)).join(','));
    authorize.searchParams.set('redirect_uri', `${options.publicUrl}/shopify/callback`);
    authorize.searchParams.set('state', state);
    return reply.redirect(authorize.toString(), 302);
  });

  app.get('/shopify/callback', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const missing = missingSettings(options);
    if (missing.length > 0) return sendProblem(request, reply, { code: 'UNAVAILABLE', detail: `${missing.join(' and ')} must be set for the install link` });
    const appCredentials = options.app!;
    const query = Object.fromEntries(Object.entries(request.query as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const refuse = (code: 'INVALID_INPUT' | 'UNAUTHENTICATED', field: string, detail: string) =>
      sendProblem(request, reply, { code, detail, errors: [{ field, message: detail }] });
    // The signature first: nothing else of an unsigned query is trusted, the state included.
    if (!query.hmac) return refuse('UNAUTHENTICATED', 'hmac', 'the callback carries no hmac: open the install link again');
    if (!(await validCallbackHmac(appCredentials, query))) {
      return refuse('UNAUTHENTICATED', 'hmac', 'the hmac does not match the query and the app secret (or its timestamp is more than 90 s off): open the install link again');
    }
    const shop = (query.shop ?? '').toLowerCase();
    if (!SHOP_DOMAIN.test(shop)) return refuse('INVALID_INPUT', 'shop', 'shop must be a *.myshopify.com host');
    if (!query.code) return refuse('INVALID_INPUT', 'code', 'the callback carries no authorization code');
    const stateDomain = query.state ? await takeInstallState(options.orm.em.fork(), query.state) : null;
    if (stateDomain === null) return refuse('INVALID_INPUT', 'state', 'the state is unknown, used already or older than ten minutes: open the install link again');
    if (stateDomain !== shop) return refuse('INVALID_INPUT', 'shop', `the install link was made for ${stateDomain}, not ${shop}`);

    let token: IssuedToken;
    try {
      token = await exchangeAuthorizationCode(appCredentials, shop, query.code, options.endpoint);
    } catch (error) {
      if (error instanceof TokenGrantError && error.refused) return refuse('INVALID_INPUT', 'code', `${error.message}: open the install link again`);
      throw error;
    }
    let linked: Awaited<ReturnType<ShopifyInstallOptions['link']>>;
    try {
      linked = await options.link({ domain: shop, token, webhookUri: `${options.publicUrl}/webhooks/shopify` });
    } catch (error) {
      if (error instanceof ConnectError) {
        return sendProblem(request, reply, {
          code: 'INVALID_INPUT', detail: error.message,
          errors: error.missingScopes.length > 0 ? error.missingScopes.map((scope) => ({ field: 'scope', message: `the access scope ${scope} was not granted` })) : [{ field: 'shop', message: error.message }],
        });
      }
      throw error;
    }
    request.log.info({ shopId: linked.shopId, domain: shop }, 'Shopify store installed the app and is linked');
    return reply.type('text/html; charset=utf-8').send(installedPage(shop, linked));
  });
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What happened and what to do next, for the merchant who just installed. */
function installedPage(domain: string, linked: { shopId: string; storeName: string; grantedScopes: string[]; webhooksRegistered: string[] }): string {
  const shop = escape(linked.shopId);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bomcore is connected to ${escape(linked.storeName)}</title></head>
<body>
<h1>${escape(linked.storeName)} is connected</h1>
<p>The store <strong>${escape(domain)}</strong> is linked to the bomcore shop <strong>${shop}</strong>, with the access scopes
${escape(linked.grantedScopes.join(', '))}. ${linked.webhooksRegistered.length} webhook topics now keep bomcore current.</p>
<p>The first sync of the store's locations, products, stock levels and open orders is running now.</p>
<h2>What to do next</h2>
<ol>
<li>Follow the sync: <code>bomcore shop status --shop ${shop}</code>.</li>
<li>Make an API key for the shop: <code>bomcore key create --shop ${shop} --scopes read,write</code>.</li>
<li>Nothing else to renew: bomcore renews the store's access token itself. If the store ever refuses it, reads of the shop carry a <code>PLATFORM_REAUTHORIZE</code> warning; open the install link again then.</li>
</ol>
</body></html>
`;
}
