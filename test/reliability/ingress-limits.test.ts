import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, isRefusedAddress } from '../../src/modules/events/webhook-targets.ts';
import { saveConnection } from '../../src/platform/shopify/connections.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { acknowledgedSocket } from '../helpers/live-sockets.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Issue 34 item 5, the small ones: nesting bounded before anything walks a body (Shopify's webhooks,
// subscription messages), Shopify event ids kept whole, the 413 naming the route's own limit, and the
// SSRF check classifying addresses with a maintained library (every special-purpose range, IPv6 forms).

const API_SECRET = `shpss_${randomBytes(12).toString('hex')}`;
const shop = uniqueShopId('ingress');
const domain = `${shop}.myshopify.com`;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ config: { shopifyApiSecret: API_SECRET } });
  await t.load(toDataset(datasetJson(shop)));
  await saveConnection(t.orm.em.fork(), {
    shopId: shop, domain, apiVersion: '2026-01', scopes: [], storeName: shop, webhookUri: null, webhookTopics: null, grantKind: 'token',
    clientId: null, clientSecretSealed: null, tokenSealed: 'sealed', tokenExpiresAt: null, refreshTokenSealed: null, refreshTokenExpiresAt: null,
  });
});
afterAll(() => t.close());

/** POSTs `body` to /webhooks/shopify signed with the app secret, as Shopify sends it. */
function shopifyWebhook(body: string, eventId: string) {
  return t.app.inject({
    method: 'POST', url: '/webhooks/shopify', payload: body,
    headers: {
      'content-type': 'application/json', 'x-shopify-hmac-sha256': createHmac('sha256', API_SECRET).update(body).digest('base64'),
      'x-shopify-topic': 'products/update', 'x-shopify-shop-domain': domain, 'x-shopify-event-id': eventId,
    },
  });
}

async function inboxIds(): Promise<string[]> {
  const rows = await t.orm.em.fork().getConnection().execute('select event_id from shopify_webhook_events where shop_id = ? order by event_id', [shop]);
  return rows.map((r: { event_id: string }) => r.event_id);
}

const product = (id: number) => JSON.stringify({ id, admin_graphql_api_id: `gid://shopify/Product/${id}`, updated_at: '2026-01-01T00:00:00Z', variants: [] });

describe(`ingress limits (${databaseLabel})`, () => {
  it('a signed Shopify webhook nested 10,000 levels deep is refused as 400 naming the limit (never a 500, which Shopify retries for 48 h), and nothing is stored', async () => {
    const deep = `{"id":1,"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const res = await shopifyWebhook(deep, 'evt-deep');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe('the body nests arrays and objects more than 64 levels deep');
    expect(await inboxIds()).not.toContain('evt-deep');
  });

  it('Shopify event ids are kept whole: two ids sharing their first 200 characters are two events; an id longer than 200 is stored as its SHA-256', async () => {
    const prefix = 'e'.repeat(200);
    const first = await shopifyWebhook(product(11), `${prefix}-one`);
    const second = await shopifyWebhook(product(12), `${prefix}-two`);
    expect([first.json(), second.json()]).toEqual([{ received: true, duplicate: false }, { received: true, duplicate: false }]);
    const again = await shopifyWebhook(product(11), `${prefix}-one`);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    const ids = (await inboxIds()).filter((id) => id.startsWith('sha256:'));
    expect(ids).toHaveLength(2);
    const short = await shopifyWebhook(product(13), 'evt-short');
    expect(short.json()).toEqual({ received: true, duplicate: false });
    expect(await inboxIds()).toContain('evt-short');
  });

  it('413 names the route\'s real limit: 5 MiB for Shopify\'s webhooks, 1 MiB for the API', async () => {
    const big = `{"id":1,"pad":"${'x'.repeat(5 * 1024 * 1024 + 10)}"}`;
    const webhook = await shopifyWebhook(big, 'evt-big');
    expect(webhook.statusCode).toBe(413);
    expect(webhook.json().detail).toBe('the request body is larger than 5 MiB, this route\'s limit');
    const key = await t.createKey(shop, ['read', 'write']);
    const api = await t.request({ method: 'POST', url: '/graphql', key, headers: { 'content-type': 'application/json' }, payload: `{"query":"${'x'.repeat(1024 * 1024 + 10)}"}` });
    expect(api.statusCode).toBe(413);
    expect(api.json().detail).toBe('the request body is larger than 1 MiB, this route\'s limit');
  });

  it('a subscription message nesting its variables deeper than a request body may is closed with 4400 before anything walks it', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const key = await t.createKey(shop, ['read']);
    const raw = await acknowledgedSocket(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/graphql`, `Bearer ${key}`);
    raw.send(`{"type":"subscribe","id":"d","payload":{"query":"subscription { stockLevelChanged { variantId } }","variables":{"v":${'['.repeat(5_000)}${']'.repeat(5_000)}}}}`);
    const closed = await raw.closed;
    expect(closed.code).toBe(4400);
    expect(closed.reason).toMatch(/^Invalid message received: variables must not nest/);
  });
});

describe(`GraphQL and Idempotency-Key (${databaseLabel})`, () => {
  it('a mutation sent with Idempotency-Key is refused (400, nothing runs) instead of applying once per send; a query with it runs', async () => {
    const key = await t.createKey(shop, ['read', 'write']);
    // Every applied delta writes an inventory.level_changed event in its transaction.
    const level = async () => (await t.orm.em.fork().getConnection().execute('select count(*)::int as n from events where shop_id = ?', [shop]))[0].n;
    const before = await level();
    const mutation = { query: 'mutation { adjustRawMaterialInventory(variantId: "VMAT-VAR-0001", updates: [{ locationId: "101", delta: "1" }]) { userErrors { code } } }' };
    for (let i = 0; i < 3; i += 1) {
      const res = await t.request({ method: 'POST', url: '/graphql', key, headers: { 'content-type': 'application/json', 'idempotency-key': 'same-key' }, payload: mutation });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.json().errors[0].message).toMatch(/^Idempotency-Key is honoured by the REST API's PATCH routes only/);
    }
    expect(await level()).toBe(before);
    const query = await t.request({ method: 'POST', url: '/graphql', key, headers: { 'content-type': 'application/json', 'idempotency-key': 'same-key' }, payload: { query: '{ locations { locationId } }' } });
    expect(query.statusCode).toBe(200);
  });
});

describe('the SSRF check classifies addresses with ipaddr.js (IANA special-purpose registries)', () => {
  it('refuses every special-purpose range the probe found missing, and the IPv6 forms of inner IPv4 addresses', () => {
    const refused = [
      '::7f00:1', '::a00:1', '::', '::1', // ::/96, IPv4-compatible (deprecated)
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', // ::ffff:0:0/96, IPv4-mapped
      '::ffff:0:7f00:1', // ::ffff:0:0:0/96, IPv4-translated (RFC 6145)
      '2002:7f00:1::1', '2002:808:808::1', // 2002::/16, 6to4
      'fec0::1', // fec0::/10, site-local (deprecated)
      '2001::1', '64:ff9b::7f00:1', '64:ff9b:1::1', 'fc00::1', 'fe80::1', 'ff02::1', '2001:db8::1', '100::1',
      '0.0.0.0', '10.1.2.3', '100.64.0.1', '127.0.0.1', '169.254.169.254', '172.16.0.1', '192.0.0.8', '192.0.2.1', '192.168.1.1',
      '198.18.0.1', '198.51.100.1', '203.0.113.1', '224.0.0.1', '240.0.0.1', '255.255.255.255',
      'not-an-address', '',
    ];
    expect(refused.filter((address) => !isRefusedAddress(address))).toEqual([]);
    expect(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8'].filter(isRefusedAddress)).toEqual([]);
  });

  it('refuses such literal addresses when an endpoint is saved', () => {
    for (const url of ['https://[::7f00:1]/x', 'https://[2002:7f00:1::]/x', 'https://[fec0::1]/x', 'https://[::ffff:0:7f00:1]/x', 'https://[::ffff:127.0.0.1]/x']) {
      expect(() => checkWebhookUrl(url, { requireHttps: true, allowPrivate: false }), url).toThrow(/loopback, private or link-local/);
    }
  });
});
