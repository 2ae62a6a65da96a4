import { createHmac } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetPlatform } from '../../src/dataset/types.ts';
import { bomShopDataset } from '../helpers/bom-dataset.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { INVALID_TOKEN_BODY, startShopifyEmulator, type ShopifyEmulator } from '../helpers/shopify-emulator/index.ts';

// The Shopify Admin emulator the adapter's tests talk to: each rule below is one Shopify behaviour
// the adapter relies on, checked over plain HTTP.

const SECRET = 'test-app-secret';
let emu: ShopifyEmulator;
let receiver: Server;
let hookUrl: string;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

async function gql(token: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(emu.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-shopify-access-token': token, ...headers }, body: JSON.stringify({ query, variables }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** fetch cannot set Host; the emulator picks the shop by it as Shopify does. */
function postWithHost(host: string, token: string): Promise<number> {
  const { port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: `/admin/api/${emu.apiVersion}/graphql.json`, headers: { host, 'content-type': 'application/json', 'x-shopify-access-token': token } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ query: '{ shop { id } }' }));
  });
}

const ADJUST = `mutation Adjust($input: InventoryAdjustQuantitiesInput!, $key: String!) {
  inventoryAdjustQuantities(input: $input) @idempotent(key: $key) {
    inventoryAdjustmentGroup { id createdAt reason referenceDocumentUri changes { name delta quantityAfterChange item { id } location { id } } }
    userErrors { field message code }
  }
}`;

function adjustInput(itemId: string, locationId: string, delta: number, changeFromQuantity: number | null = null) {
  return { name: 'available', reason: 'correction', referenceDocumentUri: 'gid://bomcore/BuildRun/7', changes: [{ inventoryItemId: `gid://shopify/InventoryItem/${itemId}`, locationId: `gid://shopify/Location/${locationId}`, delta, changeFromQuantity }] };
}

const bom = bomShopDataset('emu-a').platform;
const WAX = bom.variants.find((v) => v.sku === 'WAX-1KG')!;

beforeAll(async () => {
  emu = await startShopifyEmulator({ apiSecret: SECRET, bulkRunningMs: 30 });
  emu.addShop({ domain: 'a.myshopify.com', token: 'tok-a', seed: bom });
  emu.addShop({ domain: 'b.myshopify.com', token: 'tok-b', seed: toDataset(datasetJson('emu-b')).platform, scopes: ['read_products', 'read_inventory', 'read_locations'] });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/shopify`;
});

afterAll(async () => {
  await emu?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

describe('Shopify emulator: requests, auth and the schema', () => {
  it('an unknown token answers 401 with Shopify\'s body', async () => {
    const res = await gql('nope', '{ shop { id } }');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN_BODY);
    expect(INVALID_TOKEN_BODY.errors).toBe('[API] Invalid API key or access token (unrecognized login or wrong password)');
  });

  it('a token answers for its own shop only: the Host domain of another shop is 401, and stores are separate', async () => {
    expect(await postWithHost('b.myshopify.com', 'tok-a')).toBe(401);
    expect(await postWithHost('a.myshopify.com', 'tok-a')).toBe(200);
    const a = await gql('tok-a', '{ shop { myshopifyDomain name currencyCode } locations(first: 10) { nodes { id } } }');
    expect(a.body.data.shop).toEqual({ myshopifyDomain: 'a.myshopify.com', name: 'a', currencyCode: 'USD' });
    const b = await gql('tok-b', '{ shop { myshopifyDomain } }');
    expect(b.body.data.shop.myshopifyDomain).toBe('b.myshopify.com');
  });

  it('a query that does not validate against the 2026-10 schema answers 200 with GRAPHQL_VALIDATION_FAILED and its location', async () => {
    const res = await gql('tok-a', '{\n  shop { id colour }\n}');
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0]).toMatchObject({ locations: [{ line: 2, column: 13 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(res.body.errors[0].message).toContain('colour');
  });

  it('a schema field the emulator does not serve fails loudly, never a silent null', async () => {
    const res = await gql('tok-a', '{ shop { id plan { publicDisplayName } } }');
    expect(res.body.errors[0]).toMatchObject({ message: 'emulator: Shop.plan not implemented', path: ['shop', 'plan'] });
  });

  it('a field whose scope was not granted answers ACCESS_DENIED (shop b has no read_orders)', async () => {
    const res = await gql('tok-b', '{ orders(first: 5) { nodes { id } } }');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'ACCESS_DENIED', requiredAccess: '`read_orders` access scope.' });
    const scopes = await gql('tok-b', '{ currentAppInstallation { accessScopes { handle } } }');
    expect(scopes.body.data.currentAppInstallation.accessScopes.map((s: { handle: string }) => s.handle)).toEqual(['read_products', 'read_inventory', 'read_locations']);
  });

  it('connections page by first/after with pageInfo, ids are GIDs, and a connection without first or last is refused', async () => {
    const q = 'query($after: String) { locations(first: 2, after: $after) { pageInfo { hasNextPage endCursor } nodes { id name isActive } } }';
    const one = (await gql('tok-a', q)).body.data.locations;
    expect(one.nodes.map((n: { id: string }) => n.id)).toEqual(['gid://shopify/Location/101', 'gid://shopify/Location/102']);
    expect(one.pageInfo.hasNextPage).toBe(true);
    const two = (await gql('tok-a', q, { after: one.pageInfo.endCursor })).body.data.locations;
    expect(two).toMatchObject({ pageInfo: { hasNextPage: false }, nodes: [{ id: 'gid://shopify/Location/103', name: 'Annex', isActive: true }] });
    const bad = await gql('tok-a', '{ locations { nodes { id } } }');
    expect(bad.body.errors[0].message).toBe('you must provide one of first or last');
  });

  it('variants, inventory items and levels read back the seeded dataset exactly (decimal strings, whole quantities)', async () => {
    const res = await gql('tok-a', `{ productVariant(id: "gid://shopify/ProductVariant/${WAX.variantId}") {
      id legacyResourceId sku price inventoryQuantity product { id title vendor }
      inventoryItem { id unitCost { amount } inventoryLevels(first: 10) { nodes { location { id } quantities(names: ["available", "on_hand"]) { name quantity } } } } } }`);
    const v = res.body.data.productVariant;
    expect(v).toMatchObject({ legacyResourceId: WAX.variantId, sku: 'WAX-1KG', price: WAX.price ?? '0.00', product: { id: `gid://shopify/Product/${WAX.productId}`, title: 'Soy wax' } });
    expect(v.inventoryItem.unitCost).toEqual({ amount: '6.2' });
    expect(v.inventoryItem.inventoryLevels.nodes.map((n: any) => [n.location.id, n.quantities[0].quantity])).toEqual(
      WAX.levels.map((l) => [`gid://shopify/Location/${l.locationId}`, Number(l.available)]));
  });
});

describe('Shopify emulator: calculated query cost and throttling', () => {
  it('every answer carries extensions.cost: connections cost 2 + first × node, the actual cost counts what came back', async () => {
    const res = await gql('tok-a', '{ locations(first: 10) { edges { node { id name } } } }');
    expect(res.body.extensions.cost).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 5, throttleStatus: { maximumAvailable: 2000, restoreRate: 100 } });
    expect(res.body.extensions.cost.throttleStatus.currentlyAvailable).toBeLessThanOrEqual(2000);
  });

  it('a request the bucket cannot pay for answers THROTTLED with its cost and applies nothing', async () => {
    const shop = emu.addShop({ domain: 'thin.myshopify.com', token: 'tok-thin', seed: bom, maximumAvailable: 100, restoreRate: 1 });
    shop.bucket.set(5);
    const res = await gql('tok-thin', ADJUST, { input: adjustInput(WAX.inventoryItemId, '101', -1), key: 'thin-1' });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }]);
    expect(res.body.extensions.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: null, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 5, restoreRate: 1 } });
    expect(shop.available(WAX.variantId, '101')).toBe(40);
  });

  it('a query above the single-query limit of 1000 answers MAX_COST_EXCEEDED', async () => {
    const res = await gql('tok-a', '{ productVariants(first: 250) { nodes { inventoryItem { inventoryLevels(first: 50) { nodes { id } } } } } }');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'MAX_COST_EXCEEDED', maxCost: 1000 });
  });
});

describe('Shopify emulator: inventoryAdjustQuantities', () => {
  it('@idempotent: the same key and input replays the first answer and moves the level once; another input under the key is refused', async () => {
    const shop = emu.addShop({ domain: 'idem.myshopify.com', token: 'tok-idem', seed: bom });
    const input = adjustInput(WAX.inventoryItemId, '101', -4);
    const first = await gql('tok-idem', ADJUST, { input, key: 'push-1' });
    const again = await gql('tok-idem', ADJUST, { input, key: 'push-1' });
    expect(first.body.data.inventoryAdjustQuantities.userErrors).toEqual([]);
    expect(again.body.data).toEqual(first.body.data);
    expect(first.body.data.inventoryAdjustQuantities.inventoryAdjustmentGroup.changes).toEqual([
      { name: 'available', delta: -4, quantityAfterChange: 36, item: { id: `gid://shopify/InventoryItem/${WAX.inventoryItemId}` }, location: { id: 'gid://shopify/Location/101' } }]);
    expect(shop.available(WAX.variantId, '101')).toBe(36);
    expect(shop.adjustmentGroups).toHaveLength(1);
    const other = await gql('tok-idem', ADJUST, { input: adjustInput(WAX.inventoryItemId, '101', -5), key: 'push-1' });
    expect(other.body.data.inventoryAdjustQuantities).toMatchObject({ inventoryAdjustmentGroup: null, userErrors: [{ code: 'IDEMPOTENCY_KEY_PARAMETER_MISMATCH' }] });
    expect(shop.available(WAX.variantId, '101')).toBe(36);
  });

  it('without @idempotent the call is refused at run time (mandatory since 2026-04)', async () => {
    const res = await gql('tok-a', 'mutation($input: InventoryAdjustQuantitiesInput!) { inventoryAdjustQuantities(input: $input) { userErrors { code } } }', { input: adjustInput(WAX.inventoryItemId, '101', 1) });
    expect(res.body.errors[0].message).toContain('@idempotent');
    expect(emu.shop('a.myshopify.com').available(WAX.variantId, '101')).toBe(40);
  });

  it('changeFromQuantity is a compare-and-set: a stale value answers CHANGE_FROM_QUANTITY_STALE and changes nothing', async () => {
    const shop = emu.addShop({ domain: 'cas.myshopify.com', token: 'tok-cas', seed: bom });
    const stale = await gql('tok-cas', ADJUST, { input: adjustInput(WAX.inventoryItemId, '101', -1, 39), key: 'cas-1' });
    expect(stale.body.data.inventoryAdjustQuantities).toMatchObject({ inventoryAdjustmentGroup: null, userErrors: [{ code: 'CHANGE_FROM_QUANTITY_STALE', field: ['input', 'changes', '0', 'changeFromQuantity'] }] });
    expect(shop.available(WAX.variantId, '101')).toBe(40);
    const fresh = await gql('tok-cas', ADJUST, { input: adjustInput(WAX.inventoryItemId, '101', -1, 40), key: 'cas-2' });
    expect(fresh.body.data.inventoryAdjustQuantities.userErrors).toEqual([]);
    expect(shop.available(WAX.variantId, '101')).toBe(39);
  });

  it('an unknown inventory item or location answers the schema\'s user error codes and applies nothing', async () => {
    const res = await gql('tok-a', ADJUST, { input: { ...adjustInput('999', '101', 1), changes: [adjustInput('999', '101', 1).changes[0], adjustInput(WAX.inventoryItemId, '555', 1).changes[0]] }, key: 'unknown-1' });
    expect(res.body.data.inventoryAdjustQuantities.userErrors.map((e: { code: string }) => e.code)).toEqual(['INVALID_INVENTORY_ITEM', 'INVALID_LOCATION']);
    const reason = await gql('tok-a', ADJUST, { input: { ...adjustInput(WAX.inventoryItemId, '101', 1), reason: 'because' }, key: 'unknown-2' });
    expect(reason.body.data.inventoryAdjustQuantities.userErrors[0].code).toBe('INVALID_REASON');
    expect(emu.shop('a.myshopify.com').available(WAX.variantId, '101')).toBe(40);
  });
});

const BULK_QUERY = `{ productVariants { edges { node { id sku inventoryItem { id inventoryLevels { edges { node { location { id } quantities(names: ["available"]) { name quantity } } } } } } } } }`;
const RUN_BULK = 'mutation($q: String!) { bulkOperationRunQuery(query: $q, groupObjects: false) { bulkOperation { id status } userErrors { field message code } } }';
const POLL_BULK = 'query($id: ID!) { bulkOperation(id: $id) { id status errorCode objectCount rootObjectCount url partialDataUrl createdAt completedAt } }';

async function runBulk(token: string, query: string) {
  const started = await gql(token, RUN_BULK, { q: query });
  const { bulkOperation, userErrors } = started.body.data.bulkOperationRunQuery;
  if (userErrors.length) return { userErrors, lines: [] as any[], op: null };
  expect(bulkOperation.status).toBe('RUNNING');
  for (;;) {
    const op = (await gql(token, POLL_BULK, { id: bulkOperation.id })).body.data.bulkOperation;
    if (op.status !== 'RUNNING') {
      const text = op.url ? await (await fetch(op.url)).text() : '';
      return { userErrors, op, lines: text.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function bigPlatform(variants: number): DatasetPlatform {
  const locations = [{ id: '101', name: 'A' }, { id: '102', name: 'B' }, { id: '103', name: 'C' }];
  return {
    locations, orders: [],
    variants: Array.from({ length: variants }, (_, i) => ({
      variantId: String(40_000_000 + i), productId: String(8_000_000 + Math.floor(i / 4)), inventoryItemId: String(46_000_000 + i), productName: `Product ${Math.floor(i / 4)}`,
      variantName: `V${i % 4}`, sku: `SKU-${i}`, vendor: 'Acme', price: '12.50', cost: '3.125', imageUrl: null, productType: null, productCategory: null, weightValue: null, weightUnitId: null,
      levels: locations.map((l, k) => ({ locationId: l.id, available: String((i + k) % 50) })),
    })),
  };
}

describe('Shopify emulator: bulk operations', () => {
  it('bulkOperationRunQuery writes JSONL as Shopify does: a line per node, nested connection nodes on their own lines with __parentId', async () => {
    const { op, lines } = await runBulk('tok-b', BULK_QUERY);
    const platform = toDataset(datasetJson('emu-b')).platform;
    expect(op).toMatchObject({ status: 'COMPLETED', errorCode: null, partialDataUrl: null });
    const variants = lines.filter((l) => !l.__parentId);
    const levels = lines.filter((l) => l.__parentId);
    expect(variants.map((v) => v.id)).toEqual(platform.variants.map((v) => `gid://shopify/ProductVariant/${v.variantId}`));
    expect(variants[0]).toEqual({ id: `gid://shopify/ProductVariant/${platform.variants[0]!.variantId}`, sku: 'WAX-1KG', inventoryItem: { id: `gid://shopify/InventoryItem/${platform.variants[0]!.inventoryItemId}` } });
    expect(levels).toHaveLength(platform.variants.reduce((n, v) => n + v.levels.length, 0));
    expect(levels[0]).toEqual({ location: { id: 'gid://shopify/Location/101' }, quantities: [{ name: 'available', quantity: 40 }], __parentId: variants[0].id });
    expect(op.objectCount).toBe(String(lines.length));
    expect(op.rootObjectCount).toBe(String(variants.length));
    // a child line always follows its parent's
    const seen = new Set<string>();
    for (const line of lines) {
      if (line.__parentId) expect(seen.has(line.__parentId)).toBe(true);
      else seen.add(line.id);
    }
  });

  it('a bulk query is validated: an unknown field, or a nested connection whose parent has no id, is a user error', async () => {
    expect((await runBulk('tok-b', '{ productVariants { edges { node { colour } } } }')).userErrors[0]).toMatchObject({ field: ['query'], code: 'INVALID' });
    const noId = await runBulk('tok-b', '{ products { edges { node { title variants { edges { node { id } } } } } } }');
    expect(noId.userErrors[0].message).toContain("must select the 'id' field");
  });

  it('a 10,000-variant shop seeds in under 2 s and bulk-exports in under 5 s', async () => {
    const platform = bigPlatform(10_000);
    let t = performance.now();
    const shop = emu.addShop({ domain: 'big.myshopify.com', token: 'tok-big', seed: platform });
    const seedMs = performance.now() - t;
    t = performance.now();
    const { op, lines } = await runBulk('tok-big', BULK_QUERY);
    const exportMs = performance.now() - t;
    console.log(`emulator: seeded 10,000 variants in ${seedMs.toFixed(0)} ms, bulk export of ${lines.length} lines in ${exportMs.toFixed(0)} ms`);
    expect(op.rootObjectCount).toBe('10000');
    expect(lines).toHaveLength(40_000);
    expect(shop.store.variants.size).toBe(10_000);
    expect(seedMs).toBeLessThan(2000);
    expect(exportMs).toBeLessThan(5000);
  });
});

describe('Shopify emulator: webhooks out', () => {
  const SUBSCRIBE = 'mutation($topic: WebhookSubscriptionTopic!, $uri: String!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) { webhookSubscription { id topic uri format } userErrors { field message } } }';

  it('subscriptions are created, listed and deleted; a duplicate address for a topic is a user error', async () => {
    emu.addShop({ domain: 'subs.myshopify.com', token: 'tok-subs' });
    const made = (await gql('tok-subs', SUBSCRIBE, { topic: 'ORDERS_CREATE', uri: hookUrl })).body.data.webhookSubscriptionCreate;
    expect(made.webhookSubscription).toMatchObject({ topic: 'ORDERS_CREATE', uri: hookUrl, format: 'JSON' });
    const dup = (await gql('tok-subs', SUBSCRIBE, { topic: 'ORDERS_CREATE', uri: hookUrl })).body.data.webhookSubscriptionCreate;
    expect(dup.userErrors[0].message).toBe('Address for this topic has already been taken');
    const insecure = (await gql('tok-subs', SUBSCRIBE, { topic: 'ORDERS_CREATE', uri: 'http://example.com/hook' })).body.data.webhookSubscriptionCreate;
    expect(insecure.userErrors[0].message).toContain('http://');
    const list = await gql('tok-subs', '{ webhookSubscriptions(first: 10) { nodes { id topic uri } } }');
    expect(list.body.data.webhookSubscriptions.nodes).toEqual([{ id: made.webhookSubscription.id, topic: 'ORDERS_CREATE', uri: hookUrl }]);
    const del = await gql('tok-subs', 'mutation($id: ID!) { webhookSubscriptionDelete(id: $id) { deletedWebhookSubscriptionId userErrors { message } } }', { id: made.webhookSubscription.id });
    expect(del.body.data.webhookSubscriptionDelete).toEqual({ deletedWebhookSubscriptionId: made.webhookSubscription.id, userErrors: [] });
  });

  it('a store change is POSTed with Shopify\'s headers and an HMAC the app secret verifies; a delivery can be sent again and out of order', async () => {
    const shop = emu.addShop({ domain: 'hooks.myshopify.com', token: 'tok-hooks', seed: bom });
    await gql('tok-hooks', SUBSCRIBE, { topic: 'INVENTORY_LEVELS_UPDATE', uri: hookUrl });
    const before = received.length;
    shop.setAvailable(WAX.variantId, '102', 11);
    await emu.webhooksIdle();
    const got = received.slice(before);
    expect(got).toHaveLength(1);
    const { headers, body } = got[0]!;
    expect(headers['x-shopify-hmac-sha256']).toBe(createHmac('sha256', SECRET).update(body).digest('base64'));
    expect(headers).toMatchObject({ 'x-shopify-topic': 'inventory_levels/update', 'x-shopify-shop-domain': 'hooks.myshopify.com', 'x-shopify-api-version': '2026-10' });
    for (const h of ['x-shopify-event-id', 'x-shopify-webhook-id', 'x-shopify-triggered-at']) expect(headers[h]).toBeTruthy();
    expect(JSON.parse(body)).toMatchObject({ inventory_item_id: Number(WAX.inventoryItemId), location_id: 102, available: 11 });
    expect(typeof JSON.parse(body).updated_at).toBe('string');

    // the app's own adjustment is announced too
    await gql('tok-hooks', ADJUST, { input: adjustInput(WAX.inventoryItemId, '102', 2), key: 'hooks-1' });
    shop.holdWebhooks();
    shop.setAvailable(WAX.variantId, '101', 1);
    shop.setAvailable(WAX.variantId, '101', 2);
    await emu.webhooksIdle();
    const mark = received.length;
    await shop.releaseWebhooks((held) => [...held].reverse());
    await shop.send(shop.deliveries.at(-1)!);
    const replayed = received.slice(mark).map((r) => JSON.parse(r.body).available);
    expect(replayed).toEqual([2, 1, 2]);
    expect(received.at(-1)!.headers['x-shopify-event-id']).toBe(shop.deliveries.at(-1)!.eventId);
    expect(shop.deliveries.map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it('orders: creation commits stock, fulfilment in two parts and cancellation move the states and send their topics', async () => {
    const shop = emu.addShop({ domain: 'orders.myshopify.com', token: 'tok-orders', seed: bom });
    for (const topic of ['ORDERS_CREATE', 'ORDERS_PARTIALLY_FULFILLED', 'ORDERS_FULFILLED', 'ORDERS_CANCELLED']) await gql('tok-orders', SUBSCRIBE, { topic, uri: hookUrl });
    const order = shop.createOrder({ orderId: '7001', locationId: '101', lineItems: [{ variantId: WAX.variantId, quantity: 5 }] });
    expect(shop.level(WAX.variantId, '101')).toEqual({ available: 35, committed: 5, onHand: 40 });
    shop.fulfil(order.id, { lines: [{ variantId: WAX.variantId, quantity: 2 }] });
    const q = '{ order(id: "gid://shopify/Order/7001") { displayFulfillmentStatus cancelledAt closed lineItems(first: 5) { nodes { id sku quantity currentQuantity variant { id } product { id } } } } }';
    expect((await gql('tok-orders', q)).body.data.order).toMatchObject({ displayFulfillmentStatus: 'PARTIALLY_FULFILLED', cancelledAt: null, closed: false,
      lineItems: { nodes: [{ sku: 'WAX-1KG', quantity: 5, currentQuantity: 5, variant: { id: `gid://shopify/ProductVariant/${WAX.variantId}` } }] } });
    expect(shop.level(WAX.variantId, '101')).toEqual({ available: 35, committed: 3, onHand: 38 });
    shop.fulfil(order.id);
    expect((await gql('tok-orders', q)).body.data.order.displayFulfillmentStatus).toBe('FULFILLED');
    const other = shop.createOrder({ lineItems: [{ variantId: WAX.variantId, quantity: 1 }] });
    shop.cancel(other.id);
    expect(shop.level(WAX.variantId, '101')).toEqual({ available: 35, committed: 0, onHand: 35 });
    await emu.webhooksIdle();
    const topics = shop.deliveries.map((d) => d.topic);
    expect(topics).toEqual(['orders/create', 'orders/partially_fulfilled', 'orders/fulfilled', 'orders/create', 'orders/cancelled']);
    const cancelled = JSON.parse(shop.deliveries.at(-1)!.body);
    expect(cancelled).toMatchObject({ id: Number(other.id), line_items: [{ quantity: 1, current_quantity: 0 }] });
    expect(cancelled.cancelled_at).toBeTruthy();
    const since = await gql('tok-orders', `{ orders(first: 10, query: "status:open") { nodes { id } } }`);
    expect(since.body.data.orders.nodes.map((n: { id: string }) => n.id)).toEqual(['gid://shopify/Order/7001']);
  });

  it('metafieldsSet takes at most 25 per call, atomically, and the store reads them back', async () => {
    const shop = emu.addShop({ domain: 'meta.myshopify.com', token: 'tok-meta', seed: { ...bom, orders: [{ orderId: '5001', name: '#1', lineItems: [] }] } });
    const SET = 'mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { key namespace value type } userErrors { field code message } } }';
    const one = (i: number) => ({ ownerId: 'gid://shopify/Order/5001', namespace: 'bomcore', key: `req_${i}`, type: 'json', value: JSON.stringify({ i }) });
    const tooMany = (await gql('tok-meta', SET, { m: Array.from({ length: 26 }, (_, i) => one(i)) })).body.data.metafieldsSet;
    expect(tooMany).toMatchObject({ metafields: null, userErrors: [{ code: 'LESS_THAN_OR_EQUAL_TO' }] });
    const mixed = (await gql('tok-meta', SET, { m: [one(1), { ...one(2), value: '{not json' }] })).body.data.metafieldsSet;
    expect(mixed.userErrors[0]).toMatchObject({ code: 'INVALID_VALUE', field: ['metafields', '1', 'value'] });
    expect(shop.metafields()).toEqual([]);
    const ok = (await gql('tok-meta', SET, { m: Array.from({ length: 25 }, (_, i) => one(i)) })).body.data.metafieldsSet;
    expect(ok.userErrors).toEqual([]);
    expect(shop.metafields('gid://shopify/Order/5001')).toHaveLength(25);
  });
});

describe('Shopify emulator: faults', () => {
  it('failNext(n, status) answers that status n times, then serves again', async () => {
    const shop = emu.addShop({ domain: 'f5.myshopify.com', token: 'tok-f5', seed: bom });
    shop.failNext(1, 500);
    shop.failNext(1, 503);
    expect((await gql('tok-f5', '{ shop { id } }')).status).toBe(500);
    expect((await gql('tok-f5', '{ shop { id } }')).status).toBe(503);
    expect((await gql('tok-f5', '{ shop { id } }')).status).toBe(200);
  });

  it('throttleNext answers HTTP 429 with Retry-After, or a GraphQL THROTTLED, and applies nothing', async () => {
    const shop = emu.addShop({ domain: 'f429.myshopify.com', token: 'tok-f429', seed: bom });
    shop.throttleNext(1);
    shop.throttleNext(1, 'THROTTLED');
    const http = await gql('tok-f429', ADJUST, { input: adjustInput(WAX.inventoryItemId, '101', -1), key: 't-1' });
    expect(http.status).toBe(429);
    expect(http.headers.get('retry-after')).toBe('2.0');
    const graphql = await gql('tok-f429', ADJUST, { input: adjustInput(WAX.inventoryItemId, '101', -1), key: 't-1' });
    expect(graphql.body.errors[0].extensions.code).toBe('THROTTLED');
    expect(shop.available(WAX.variantId, '101')).toBe(40);
  });

  it('timeoutAfterApply applies the mutation and drops the answer; the retry under the same key moves nothing more', async () => {
    const shop = emu.addShop({ domain: 'ftime.myshopify.com', token: 'tok-ftime', seed: bom });
    shop.timeoutAfterApply(1);
    const input = adjustInput(WAX.inventoryItemId, '101', -6);
    await expect(gql('tok-ftime', ADJUST, { input, key: 'lost-1' })).rejects.toThrow();
    expect(shop.available(WAX.variantId, '101')).toBe(34);
    const retry = await gql('tok-ftime', ADJUST, { input, key: 'lost-1' });
    expect(retry.body.data.inventoryAdjustQuantities.inventoryAdjustmentGroup.changes[0].quantityAfterChange).toBe(34);
    expect(shop.available(WAX.variantId, '101')).toBe(34);
    expect(shop.adjustmentGroups).toHaveLength(1);
  });

  it('dropWebhooks(n) loses the next n deliveries (recorded as dropped), later ones arrive', async () => {
    const shop = emu.addShop({ domain: 'fdrop.myshopify.com', token: 'tok-fdrop', seed: bom });
    await gql('tok-fdrop', 'mutation($u: String!) { webhookSubscriptionCreate(topic: INVENTORY_LEVELS_UPDATE, webhookSubscription: { uri: $u }) { userErrors { message } } }', { u: hookUrl });
    shop.dropWebhooks(1);
    const before = received.length;
    shop.setAvailable(WAX.variantId, '101', 1);
    shop.setAvailable(WAX.variantId, '101', 2);
    await emu.webhooksIdle();
    expect(shop.deliveries.map((d) => d.status)).toEqual(['dropped', 'delivered']);
    expect(received.slice(before).map((r) => JSON.parse(r.body).available)).toEqual([2]);
  });
});
