import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/cli/shop-link.ts';
import { SecretBox, resolveSecretKey } from '../../src/kernel/secret-box.ts';
import { REAUTHORIZE } from '../../src/platform/shopify/access-token.ts';
import { ShopifyApiError } from '../../src/platform/shopify/admin-api.ts';
import { findConnection, findConnectionByDomain } from '../../src/platform/shopify/connections.ts';
import { requestOperation } from '../../src/platform/shopify/operations.ts';
import { adminApiFor } from '../../src/platform/shopify/shopify-gateway.ts';
import { REQUIRED_SCOPES } from '../../src/platform/shopify/connect.ts';
import { WEBHOOK_TOPICS } from '../../src/platform/shopify/webhook-topics.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { signQuery, startShopifyEmulator, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// How a merchant installs bomcore in 2026 (docs/shopify.md, "Connect"): the install link
// (authorization code grant, expiring offline token), the client credentials of an app of the
// store's own organisation, each token renewed before it ends and once after a 401 under the
// connection's row lock, and a refresh Shopify refuses marked `reauthorize` on every read of the shop.

const API_KEY = `key${randomBytes(6).toString('hex')}`;
const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;
const PUBLIC_URL = 'https://bomcore.example.com';

let emu: ShopifyEmulator;
let t: TestApp;
let box: SecretBox;

beforeAll(async () => {
  emu = await startShopifyEmulator({ bulkRunningMs: 10, apiKey: API_KEY, apiSecret: API_SECRET, redirectUrls: [`${PUBLIC_URL}/shopify/callback`] });
  t = await createTestApp({
    config: {
      secretKey: randomBytes(32).toString('hex'), shopifyEndpoint: emu.url, shopifyApiKey: API_KEY, shopifyApiSecret: API_SECRET,
      publicUrl: PUBLIC_URL, platformHealthIntervalMs: 0,
    },
  });
  box = new SecretBox(resolveSecretKey(t.config));
}, 60_000);

afterAll(async () => {
  await t?.close();
  await emu?.close();
});

/** The merchant opens the install link and approves: the callback path Shopify redirects the browser to. */
async function install(domain: string): Promise<{ callback: string; location: URL }> {
  const begin = await t.app.inject({ method: 'GET', url: `/shopify/install?shop=${domain}` });
  expect(begin.statusCode).toBe(302);
  const location = new URL(begin.headers.location as string);
  const callback = new URL(emu.approveInstall(domain, location.toString()));
  return { callback: callback.pathname + callback.search, location };
}

const apiOf = async (shopId: string) => adminApiFor((await findConnection(t.orm.em.fork(), shopId))!, box, { endpoint: emu.url, em: t.orm.em.fork(), installApp: { clientId: API_KEY, clientSecret: API_SECRET }, maxAttempts: 1 });
const shopName = async (shopId: string) => (await (await apiOf(shopId)).request<{ shop: { name: string } }>(requestOperation('shop-access'))).shop.name;
/** The install's first sync runs in the background: waits for it to end (its end or its error is on the connection). */
async function firstSyncEnded(shopId: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    const c = await findConnection(t.orm.em.fork(), shopId);
    if (c?.syncCompletedAt || c?.syncError) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the first sync of ${shopId} did not end`);
}
const refreshCalls = () => emu.oauth.calls.filter((c) => c.grant === 'refresh_token');

describe(`the emulator's token endpoint is as strict as Shopify's (${databaseLabel})`, () => {
  async function token(body: Record<string, string>) {
    const response = await fetch(`${emu.url}/admin/oauth/access_token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() as Record<string, any> };
  }
  const codeFor = (domain: string) => new URL(emu.approveInstall(domain, `${emu.url}/admin/oauth/authorize?client_id=${API_KEY}&scope=read_products&redirect_uri=${encodeURIComponent(`${PUBLIC_URL}/shopify/callback`)}&state=s`)).searchParams.get('code')!;

  it('authorization code + expiring=1: an expiring offline token and refresh token; the code works once; a wrong secret is invalid_client', async () => {
    const domain = `${uniqueShopId('emu-code')}.myshopify.com`;
    emu.addShop({ domain });
    const code = codeFor(domain);
    expect((await token({ client_id: API_KEY, client_secret: 'wrong', code, expiring: '1' }))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const first = await token({ client_id: API_KEY, client_secret: API_SECRET, code, expiring: '1' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ expires_in: 3600, scope: 'read_products', refresh_token: expect.stringMatching(/^shprt_/), refresh_token_expires_in: 90 * 86_400 });
    expect((await token({ client_id: API_KEY, client_secret: API_SECRET, code, expiring: '1' }))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refresh tokens rotate: the previous one works until its replacement is used, then it is refused (400 invalid_grant)', async () => {
    const domain = `${uniqueShopId('emu-rotate')}.myshopify.com`;
    emu.addShop({ domain });
    const first = await token({ client_id: API_KEY, client_secret: API_SECRET, code: codeFor(domain), expiring: '1' });
    const r1 = first.body.refresh_token as string;
    const second = await token({ client_id: API_KEY, client_secret: API_SECRET, grant_type: 'refresh_token', refresh_token: r1 });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(r1);
    const third = await token({ client_id: API_KEY, client_secret: API_SECRET, grant_type: 'refresh_token', refresh_token: second.body.refresh_token });
    expect(third.status).toBe(200);
    expect(await token({ client_id: API_KEY, client_secret: API_SECRET, grant_type: 'refresh_token', refresh_token: r1 })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await token({ client_id: API_KEY, client_secret: 'wrong', grant_type: 'refresh_token', refresh_token: third.body.refresh_token })).toMatchObject({ status: 401 });
  });

  it('client credentials: a 24-hour token for the organisation app only; an expired token is answered 401 by the Admin API', async () => {
    const domain = `${uniqueShopId('emu-cc')}.myshopify.com`;
    const app = { clientId: `cc${randomBytes(6).toString('hex')}`, clientSecret: randomBytes(16).toString('hex') };
    emu.addShop({ domain, organizationApp: app });
    expect(await token({ client_id: app.clientId, client_secret: 'wrong', grant_type: 'client_credentials' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const issued = await token({ client_id: app.clientId, client_secret: app.clientSecret, grant_type: 'client_credentials' });
    expect(issued).toMatchObject({ status: 200, body: { expires_in: 86_399 } });
    expect(issued.body.refresh_token).toBeUndefined();
    const ask = () => fetch(emu.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-shopify-access-token': issued.body.access_token }, body: JSON.stringify({ query: '{ shop { name } }' }) });
    expect((await ask()).status).toBe(200);
    emu.expireAccessTokens(domain);
    expect((await ask()).status).toBe(401);
  });
});

describe(`the install link (${databaseLabel})`, () => {
  it('GET /shopify/install redirects to the store\'s /admin/oauth/authorize with client_id, scope, redirect_uri and a state', async () => {
    const domain = `${uniqueShopId('inst-begin')}.myshopify.com`;
    const begin = await t.app.inject({ method: 'GET', url: `/shopify/install?shop=${domain}` });
    expect(begin.statusCode).toBe(302);
    const location = new URL(begin.headers.location as string);
    expect(location.origin).toBe(emu.url);
    expect(location.pathname).toBe('/admin/oauth/authorize');
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: API_KEY, scope: REQUIRED_SCOPES.join(','), redirect_uri: `${PUBLIC_URL}/shopify/callback`, state: expect.stringMatching(/^[\w-]{32}$/),
    });
    const bad = await t.app.inject({ method: 'GET', url: '/shopify/install?shop=evil.example.com' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'shop' })]);
  });

  it('the callback links the store to the shop named by its subdomain with an expiring token, sealed, webhooks subscribed, first sync started; the state works once', async () => {
    const shopId = uniqueShopId('inst');
    const domain = `${shopId}.myshopify.com`;
    emu.addShop({ domain, name: 'Candle Co' });
    const { callback } = await install(domain);
    const done = await t.app.inject({ method: 'GET', url: callback });
    expect(done.statusCode).toBe(200);
    expect(done.headers['content-type']).toContain('text/html');
    expect(done.body).toContain(`bomcore shop status --shop ${shopId}`);
    const c = (await findConnection(t.orm.em.fork(), shopId))!;
    expect(c).toMatchObject({ domain, grantKind: 'authorization_code', storeName: 'Candle Co', reauthorizeSince: null, webhookUri: `${PUBLIC_URL}/webhooks/shopify` });
    expect(c.tokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(50 * 60_000);
    const stored = box.open(c.tokenSealed);
    expect(emu.shop(domain).tokens.has(stored)).toBe(true);
    expect(c.tokenSealed).not.toContain(stored);
    expect(box.open(c.refreshTokenSealed!)).toMatch(/^shprt_/);
    expect(emu.shop(domain).webhookSubscriptions.length).toBeGreaterThan(0);
    // The same callback again: its state was taken.
    const again = await t.app.inject({ method: 'GET', url: callback });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual([expect.objectContaining({ field: 'state' })]);
  });

  it('a callback whose hmac does not match is 401, one for a host not *.myshopify.com is 400; neither links anything', async () => {
    const domain = `${uniqueShopId('inst-bad')}.myshopify.com`;
    emu.addShop({ domain });
    const { callback } = await install(domain);
    const url = new URL(callback, 'http://x');
    const tampered = new URL(url);
    tampered.searchParams.set('shop', `${uniqueShopId('other')}.myshopify.com`);
    const forged = await t.app.inject({ method: 'GET', url: tampered.pathname + tampered.search });
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ code: 'UNAUTHENTICATED', errors: [{ field: 'hmac' }] });
    const params = Object.fromEntries(url.searchParams);
    const foreign = { ...params, shop: 'candles.example.com' };
    const signed = new URLSearchParams({ ...foreign, hmac: signQuery(API_SECRET, foreign) });
    const wrongHost = await t.app.inject({ method: 'GET', url: `/shopify/callback?${signed}` });
    expect(wrongHost.statusCode).toBe(400);
    expect(wrongHost.json().errors).toEqual([expect.objectContaining({ field: 'shop' })]);
    expect(await findConnectionByDomain(t.orm.em.fork(), domain)).toBeNull();
  });

  it('a grant that lacks a scope is refused, naming it, and links nothing', async () => {
    const scoped = await startShopifyEmulator({ apiKey: API_KEY, apiSecret: API_SECRET, appScopes: ['read_products', 'read_inventory', 'read_locations', 'read_orders', 'read_merchant_managed_fulfillment_orders'] });
    const other = await createTestApp({ orm: t.orm, config: { ...t.config, shopifyEndpoint: scoped.url } });
    try {
      const domain = `${uniqueShopId('inst-scope')}.myshopify.com`;
      scoped.addShop({ domain });
      const begin = await other.app.inject({ method: 'GET', url: `/shopify/install?shop=${domain}` });
      const callback = new URL(scoped.approveInstall(domain, begin.headers.location as string));
      const refused = await other.app.inject({ method: 'GET', url: callback.pathname + callback.search });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().detail).toContain('write_inventory');
      expect(refused.json().errors).toEqual([{ field: 'scope', message: 'the access scope write_inventory was not granted' }]);
      expect(await findConnectionByDomain(t.orm.em.fork(), domain)).toBeNull();
    } finally {
      await other.close();
      await scoped.close();
    }
  });

  it('without SHOPIFY_API_KEY, SHOPIFY_API_SECRET or BOMCORE_PUBLIC_URL the install link is 503 and says which', async () => {
    const bare = await createTestApp({ orm: t.orm, config: { ...t.config, publicUrl: null } });
    try {
      const answer = await bare.app.inject({ method: 'GET', url: '/shopify/install?shop=a.myshopify.com' });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().detail).toContain('BOMCORE_PUBLIC_URL');
    } finally {
      await bare.close();
    }
  });
});

describe(`expiring tokens are renewed (${databaseLabel})`, () => {
  async function installed(prefix: string): Promise<{ shopId: string; domain: string }> {
    const shopId = uniqueShopId(prefix);
    const domain = `${shopId}.myshopify.com`;
    emu.addShop({ domain, name: `Store ${prefix}` });
    const { callback } = await install(domain);
    expect((await t.app.inject({ method: 'GET', url: callback })).statusCode).toBe(200);
    await firstSyncEnded(shopId);
    expect((await findConnection(t.orm.em.fork(), shopId))!.syncError).toBeNull();
    return { shopId, domain };
  }

  it('a token that ends within five minutes is renewed before use, once for many concurrent calls; token and rotated refresh token are stored sealed', async () => {
    // Two minutes: every token is within the five-minute margin, so each use renews it first (the first sync's did).
    emu.oauth.accessTokenLifetimeSeconds = 120;
    let before: Awaited<ReturnType<typeof findConnection>>;
    let calls: number;
    let shopId: string;
    let domain: string;
    try {
      const startCalls = refreshCalls().length;
      ({ shopId, domain } = await installed('renew'));
      expect(refreshCalls().length).toBeGreaterThan(startCalls);
      before = (await findConnection(t.orm.em.fork(), shopId))!;
      calls = refreshCalls().length;
      const apis = await Promise.all(Array.from({ length: 4 }, () => apiOf(shopId)));
      const names = await Promise.all(apis.map((api) => api.request<{ shop: { name: string } }>(requestOperation('shop-access'))));
      expect(names.map((n) => n.shop.name)).toEqual(Array(4).fill('Store renew'));
    } finally {
      emu.oauth.accessTokenLifetimeSeconds = 3600;
    }
    expect(refreshCalls().length).toBe(calls + 1);
    before = before!;
    const after = (await findConnection(t.orm.em.fork(), shopId))!;
    expect(box.open(after.tokenSealed)).not.toBe(box.open(before.tokenSealed));
    expect(box.open(after.refreshTokenSealed!)).not.toBe(box.open(before.refreshTokenSealed!));
    expect(after.tokenExpiresAt!.getTime()).toBeGreaterThan(before.tokenExpiresAt!.getTime());
    // The old access token still works until its end; the new one is what the store knows now.
    expect(emu.shop(domain).tokens.has(box.open(after.tokenSealed))).toBe(true);
  });

  it('a token the Admin API refuses (401) before its time is renewed once and the call goes through', async () => {
    const { shopId, domain } = await installed('renew401');
    const calls = refreshCalls().length;
    emu.expireAccessTokens(domain);
    expect(await shopName(shopId)).toBe('Store renew401');
    expect(refreshCalls().length).toBe(calls + 1);
  });

  it('a refresh token Shopify refuses marks the connection reauthorize: calls fail at once with REAUTHORIZE and every read of the shop carries PLATFORM_REAUTHORIZE', async () => {
    const { shopId, domain } = await installed('reauth');
    const key = await t.createKey(shopId, ['read']);
    emu.oauth.revokeRefreshTokens(emu.shop(domain));
    emu.expireAccessTokens(domain);
    const failed = await shopName(shopId).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ShopifyApiError);
    expect((failed as ShopifyApiError).code).toBe(REAUTHORIZE);
    const c = (await findConnection(t.orm.em.fork(), shopId))!;
    expect(c.reauthorizeSince).not.toBeNull();
    expect(c.reauthorizeReason).toContain('invalid_grant');
    // From now on no call reaches Shopify's token endpoint.
    const calls = emu.oauth.calls.length;
    await expect(shopName(shopId)).rejects.toMatchObject({ code: REAUTHORIZE });
    expect(emu.oauth.calls.length).toBe(calls);
    await t.app.platformHealth.refresh();
    const read = await t.get('/api/v1/locations', key);
    expect(read.status).toBe(200);
    expect(read.body.meta.warnings).toEqual([expect.objectContaining({ code: 'PLATFORM_REAUTHORIZE', remedy: expect.stringContaining('/shopify/install') })]);
    // Installing again clears it.
    const { callback } = await install(domain);
    expect((await t.app.inject({ method: 'GET', url: callback })).statusCode).toBe(200);
    await firstSyncEnded(shopId);
    await t.app.platformHealth.refresh();
    expect((await t.get('/api/v1/locations', key)).body.meta.warnings).toBeUndefined();
  });
});

describe(`client credentials (${databaseLabel})`, () => {
  it('connect gets a 24-hour token with the app\'s client ID and secret, stores the secret sealed, and gets a new token when the store refuses the old one', async () => {
    const shopId = uniqueShopId('cc');
    const domain = `${shopId}.myshopify.com`;
    const app = { clientId: `cc${randomBytes(6).toString('hex')}`, clientSecret: randomBytes(16).toString('hex') };
    emu.addShop({ domain, organizationApp: app, name: 'Own store' });
    await expect(connect(t.orm, t.config, { shopId, domain, webhookUri: null, grant: { kind: 'client_credentials', clientId: app.clientId, clientSecret: 'wrong' } }))
      .rejects.toThrow(/invalid_client.*--client-id/);
    expect(await findConnection(t.orm.em.fork(), shopId)).toBeNull();
    const result = await connect(t.orm, t.config, { shopId, domain, webhookUri: null, grant: { kind: 'client_credentials', ...app } });
    expect(result.connection).toMatchObject({ grantKind: 'client_credentials', clientId: app.clientId, refreshTokenSealed: null });
    expect(result.connection.tokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(box.open(result.connection.clientSecretSealed!)).toBe(app.clientSecret);
    const ccCalls = () => emu.oauth.calls.filter((c) => c.grant === 'client_credentials' && c.status === 200).length;
    const before = ccCalls();
    emu.expireAccessTokens(domain);
    expect(await shopName(shopId)).toBe('Own store');
    expect(ccCalls()).toBe(before + 1);
  });
});

describe('shopify.app.toml', () => {
  it('subscribes every topic of webhook-topics.ts and the three compliance topics to /webhooks/shopify, with the install callback as its redirect URL', () => {
    const toml = readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8');
    const listed = [...toml.matchAll(/"([a-z_]+\/[a-z_]+)"/g)].map((m) => m[1]);
    for (const topic of WEBHOOK_TOPICS) {
      const name = topic.toLowerCase().replace(/^(inventory_levels|inventory_items|products|locations|orders|fulfillment_orders|app)_/, '$1/');
      expect(listed).toContain(name);
    }
    expect(listed).toEqual(expect.arrayContaining(['customers/data_request', 'customers/redact', 'shop/redact']));
    expect(toml).toMatch(/use_legacy_install_flow = false/);
    expect(toml).toMatch(/redirect_urls = \[ "https:\/\/[^"]+\/shopify\/callback" \]/);
    expect(toml).toMatch(/api_version = "2026-10"/);
  });
});
