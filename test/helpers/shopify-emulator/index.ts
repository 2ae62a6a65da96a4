// A Shopify Admin GraphQL API emulator for tests, built on Shopify's published 2026-10 schema:
// every request is validated and executed against it, with resolvers for the subset bomcore uses.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHOPIFY_ADMIN_API_VERSION, shopifyAdminSchema } from '../../../src/platform/shopify/admin-schema/index.ts';
import type { EmulatorCore } from './context.ts';
import { handle, type Router } from './server.ts';
import { OAuthServer } from './oauth.ts';
import { EmulatedShop, type ShopOptions } from './shop.ts';

export { DEFAULT_SCOPES, EmulatedShop, type OrderInput, type RequestLogEntry, type ShopOptions } from './shop.ts';
export type { FulfilOptions } from './shop-orders.ts';
export type { ProductInput, VariantInput } from './store.ts';
export { webhookHmac, type WebhookDelivery } from './webhooks.ts';
export { TOPICS } from './payloads.ts';
export { gid, legacyId } from './gid.ts';
export { INVALID_TOKEN_BODY } from './server.ts';
export { signQuery, type OAuthServer } from './oauth.ts';

export interface EmulatorOptions {
  /** The app's API secret key (client secret): webhooks and install redirects are signed with it. Default 'emulator-app-secret'. */
  apiSecret?: string;
  /** The app's API key (client ID) of the install flow. Default 'emulator-app-key'. */
  apiKey?: string;
  /** The scopes of the app's configuration, granted at install whatever the authorize URL asks (Shopify-managed installation); default: the requested ones. */
  appScopes?: string[];
  /** The app's allowed redirection URLs; default: any. */
  redirectUrls?: string[];
  /** Minimum time a bulk operation reads RUNNING (ms). Default 50. */
  bulkRunningMs?: number;
  /** Shopify's single-query cost limit. Default 1000. */
  maxQueryCost?: number;
  /** The clock stamping createdAt/updatedAt. Default: the wall clock. */
  now?: () => Date;
  shops?: ShopOptions[];
}

export interface ShopifyEmulator {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** `${url}/admin/api/2026-10/graphql.json` */
  readonly graphqlUrl: string;
  readonly apiVersion: string;
  readonly apiSecret: string;
  readonly apiKey: string;
  /** The OAuth side: token lifetimes (settable), the token endpoint's calls. */
  readonly oauth: OAuthServer;
  /**
   * The merchant installs the app from bomcore's redirect (the authorize URL, any origin): answers
   * the callback URL Shopify redirects the browser to, signed, with a code.
   */
  approveInstall(domain: string, authorizeUrl: string): string;
  /** Ends the store's expiring tokens now (as if their hour had passed): the Admin API answers 401 to them. */
  expireAccessTokens(domain: string): void;
  addShop(options: ShopOptions): EmulatedShop;
  /** The shop of a domain (x.myshopify.com); throws when there is none. */
  shop(domain: string): EmulatedShop;
  readonly shops: EmulatedShop[];
  /** Resolves when no webhook delivery is in flight. */
  webhooksIdle(): Promise<void>;
  /** Resolves when every bulk operation started so far has written its file. */
  bulkIdle(): Promise<void>;
  close(): Promise<void>;
}

export async function startShopifyEmulator(options: EmulatorOptions = {}): Promise<ShopifyEmulator> {
  const schema = shopifyAdminSchema();
  const apiVersion = SHOPIFY_ADMIN_API_VERSION;
  const apiSecret = options.apiSecret ?? 'emulator-app-secret';
  const now = options.now ?? (() => new Date());
  const bulkDir = mkdtempSync(join(tmpdir(), 'shopify-emulator-'));
  const shops: EmulatedShop[] = [];
  const byToken = new Map<string, EmulatedShop>();
  const byDomain = new Map<string, EmulatedShop>();
  const core: { -readonly [K in keyof EmulatorCore]: EmulatorCore[K] } = { url: '', apiVersion, apiSecret, bulkRunningMs: options.bulkRunningMs ?? 50, bulkDir };
  const tokenExpiry = new Map<string, number>();
  const oauth = new OAuthServer(
    { clientId: options.apiKey ?? 'emulator-app-key', clientSecret: apiSecret, configuredScopes: options.appScopes ?? null, redirectUrls: options.redirectUrls ?? null },
    now,
    ({ shop, token, expiresAt }) => {
      byToken.set(token, shop);
      shop.tokens.add(token);
      if (expiresAt !== null) tokenExpiry.set(token, expiresAt);
    },
  );
  const router: Router = {
    core, oauth, tokenExpiry, now, maxQueryCost: options.maxQueryCost ?? 1000,
    shopByToken: (token) => byToken.get(token),
    shopByDomain: (domain) => byDomain.get(domain),
    shopById: (id) => shops.find((s) => s.shopId === id),
  };
  const server = createServer((req, res) => {
    handle(router, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: `emulator crashed: ${(error as Error).stack}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  core.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const emulator: ShopifyEmulator = {
    url: core.url,
    graphqlUrl: `${core.url}/admin/api/${apiVersion}/graphql.json`,
    apiVersion, apiSecret, shops, oauth, apiKey: oauth.app.clientId,
    approveInstall(domain, authorizeUrl) {
      return oauth.approveInstall(emulator.shop(domain), authorizeUrl);
    },
    expireAccessTokens(domain) {
      const shop = emulator.shop(domain);
      for (const token of shop.tokens) if (tokenExpiry.has(token)) tokenExpiry.set(token, now().getTime());
    },
    addShop(shopOptions) {
      if (byDomain.has(shopOptions.domain)) throw new Error(`emulator: shop ${shopOptions.domain} exists`);
      const shop = new EmulatedShop(shopOptions, schema, { apiSecret, apiVersion, now });
      for (const token of shop.tokens) {
        if (byToken.has(token)) throw new Error('emulator: tokens must be unique across shops');
        byToken.set(token, shop);
      }
      byDomain.set(shop.domain, shop);
      shops.push(shop);
      if (shop.organizationApp) oauth.organizationShops.push(shop);
      return shop;
    },
    shop(domain) {
      const shop = byDomain.get(domain);
      if (!shop) throw new Error(`emulator: no shop ${domain}`);
      return shop;
    },
    async webhooksIdle() {
      while (shops.some((s) => s.inFlight.size)) await Promise.allSettled(shops.flatMap((s) => [...s.inFlight]));
    },
    async bulkIdle() {
      await Promise.allSettled(shops.flatMap((s) => [...s.bulkJobs]));
    },
    async close() {
      await emulator.bulkIdle();
      await emulator.webhooksIdle();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(bulkDir, { recursive: true, force: true });
    },
  };
  for (const shopOptions of options.shops ?? []) emulator.addShop(shopOptions);
  return emulator;
}
