import type { AddressInfo } from 'node:net';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/modules/auth/keys.ts';
import { databaseLabel, openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { acknowledgedSocket, rawSocket, subscribe, wsClient } from '../helpers/live-sockets.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Issue 34 items 1 to 3 (and issue 33 item 3): subscriptions that never go silent, limits on the live
// surface, and sockets authenticated like every request. One instance on a real port, small limits.

let a: TestApp;
let url: string;
let proxy: TcpProxy;
const shop = uniqueShopId('live-rel');
let key: string;
const clients: Client[] = [];

const LEVELS = 'subscription { stockLevelChanged { variantId delta event { sequence } } }';
const ADJUST = 'mutation($id: ID!, $u: [RawMaterialInventoryUpdateInput!]!) { adjustRawMaterialInventory(variantId: $id, updates: $u) { rawMaterialInventoryBatch { okCount } userErrors { code message } } }';

async function adjust(delta: string, k = key): Promise<void> {
  const { body } = await a.graphql(k, ADJUST, { id: 'VMAT-VAR-0001', u: [{ locationId: '101', delta }] });
  expect(body.data.adjustRawMaterialInventory.userErrors).toEqual([]);
}

beforeAll(async () => {
  a = await createTestApp({
    orm: await openTestOrm(),
    config: {
      live: { connectionsPerKey: 6, connectionsPerShop: 8, subscriptionsPerConnection: 6, keyCheckMs: 200, initTimeoutMs: 10_000 },
    },
  });
  await a.load(toDataset(datasetJson(shop)));
  key = await a.createKey(shop, ['read', 'write']);
  await a.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = a.app.server.address() as AddressInfo;
  url = `ws://127.0.0.1:${port}/graphql`;
  proxy = await startTcpProxy({ host: '127.0.0.1', port });
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await proxy.close();
  await a.close();
  await a.orm.close();
});

/** A connection of `authorization`, tried again while the server still counts a connection that just closed (4429, for up to 5 s). */
async function connectOnceFree(authorization: string) {
  for (const started = Date.now(); ;) {
    const raw = await rawSocket(url);
    raw.send({ type: 'connection_init', payload: { authorization } });
    const outcome = await Promise.race([raw.take('connection_ack').then(() => 'ack'), raw.closed.then((c) => c.code)]);
    if (outcome === 'ack') return raw;
    if (outcome !== 4429 || Date.now() - started > 5_000) throw new Error(`connection refused with ${outcome}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(`live subscriptions never go silent (${databaseLabel})`, () => {
  it('a subscriber whose connection drops while events are sent leaves every other subscriber of the shop receiving every event (each connection released once)', async () => {
    const first = await subscribe(wsClient(url, `Bearer ${key}`, clients), LEVELS);
    const second = await subscribe(wsClient(url, `Bearer ${key}`, clients), LEVELS);
    // The dropped one holds five subscriptions, so several sends fail on its dead socket (each reported by mercurius).
    const dropped = await acknowledgedSocket(`ws://127.0.0.1:${proxy.port}/graphql`, `Bearer ${key}`);
    for (let i = 1; i <= 5; i += 1) dropped.send({ type: 'subscribe', id: `d${i}`, payload: { query: LEVELS } });
    await new Promise((resolve) => setTimeout(resolve, 300));

    await adjust('1');
    await dropped.take('next');
    proxy.cut();
    for (let i = 2; i <= 6; i += 1) await adjust('1');
    // Then a second drop, on a socket that closed itself cleanly, and more events.
    const gone = await acknowledgedSocket(url, `Bearer ${key}`);
    gone.send({ type: 'subscribe', id: 'g', payload: { query: LEVELS } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    gone.socket.close();
    await gone.closed;
    for (let i = 7; i <= 8; i += 1) await adjust('1');

    for (const subscriber of [first, second]) {
      const got = [];
      for (let i = 0; i < 8; i += 1) got.push((await subscriber.next()).data.stockLevelChanged);
      const sequences = got.map((g) => Number(g.event.sequence));
      expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
      expect(new Set(sequences).size).toBe(8);
    }
  });

  it('a second subscribe under an id still running closes the socket with 4409 (graphql-transport-ws), and the shop\'s other subscribers go on', async () => {
    const other = await subscribe(wsClient(url, `Bearer ${key}`, clients), LEVELS);
    const raw = await acknowledgedSocket(url, `Bearer ${key}`);
    raw.send({ type: 'subscribe', id: 'same', payload: { query: LEVELS } });
    raw.send({ type: 'subscribe', id: 'same', payload: { query: LEVELS } });
    expect(await raw.closed).toEqual({ code: 4409, reason: 'Subscriber for same already exists' });
    await adjust('2');
    expect((await other.next()).data.stockLevelChanged.delta).toBe('2');
  });

  it('messages outside the protocol close with 4400 and a reason in the protocol\'s words, never an internal error text', async () => {
    for (const message of [{ type: 'subscribe', id: 'x' }, { type: 'nonsense' }, 'not json', { type: 'subscribe', id: 'x', payload: { query: 42 } }]) {
      const raw = await acknowledgedSocket(url, `Bearer ${key}`);
      raw.send(message);
      const closed = await raw.closed;
      expect(closed.code).toBe(4400);
      expect(closed.reason).toMatch(/^Invalid message received/);
      expect(closed.reason).not.toMatch(/destructure|undefined|TypeError/);
    }
    // A subscribe before connection_ack: 4401.
    const early = await rawSocket(url);
    early.send({ type: 'subscribe', id: 'e', payload: { query: LEVELS } });
    expect((await early.closed).code).toBe(4401);
    // connection_init twice: 4429, as the protocol says.
    const twice = await acknowledgedSocket(url, `Bearer ${key}`);
    twice.send({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } });
    expect(await twice.closed).toEqual({ code: 4429, reason: 'Too many initialisation requests' });
  });
});

describe(`subscription sockets are authenticated like every request (${databaseLabel})`, () => {
  it('a wrong key closes with 4403 and a reason; the official graphql-ws client reports the close event to the subscription, without throwing', async () => {
    for (const authorization of ['Bearer bck_not-a-key-at-all', 'bck_no-scheme']) {
      const refused = await subscribe(wsClient(url, authorization, clients), LEVELS);
      const error = await refused.failure;
      expect(error.code).toBe(4403);
      expect(error.reason).toMatch(/^Forbidden: /);
      expect(refused.received).toEqual([]);
    }
  });

  it('connection_init goes through the failed-authentication throttle: past the limit an address is closed with 4429 before any lookup, a valid key still connects', async () => {
    const throttled = await createTestApp({ orm: a.orm, config: { authFailuresPerMinute: 3 } });
    await throttled.app.listen({ port: 0, host: '127.0.0.1' });
    const throttledUrl = `ws://127.0.0.1:${(throttled.app.server.address() as AddressInfo).port}/graphql`;
    const codes = [];
    for (let i = 0; i < 5; i += 1) {
      const raw = await rawSocket(throttledUrl);
      raw.send({ type: 'connection_init', payload: { authorization: `Bearer bck_guess-${i}-xxxxxxxx` } });
      codes.push((await raw.closed).code);
    }
    expect(codes).toEqual([4403, 4403, 4403, 4429, 4429]);
    const valid = await acknowledgedSocket(throttledUrl, `Bearer ${key}`);
    valid.socket.close();
    await valid.closed;
    await throttled.close();
  });

  it('revoking a key closes its open sockets within seconds with 4403 (the revocation made outside this instance, in the database)', async () => {
    const created = await createApiKey(a.orm.em.fork(), { shopId: shop, scopes: ['read'], expiresInMs: null });
    const raw = await acknowledgedSocket(url, `Bearer ${created.key}`);
    raw.send({ type: 'subscribe', id: 'r', payload: { query: LEVELS } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = Date.now();
    await revokeApiKey(a.orm.em.fork(), created.id);
    const closed = await raw.closed;
    expect(closed).toEqual({ code: 4403, reason: 'Forbidden: the API key was revoked or has expired' });
    expect(Date.now() - before).toBeLessThan(3_000);
  });

  it('an expiring key\'s socket closes once the key expires', async () => {
    const created = await createApiKey(a.orm.em.fork(), { shopId: shop, scopes: ['read'], expiresInMs: 3_000 });
    const raw = await acknowledgedSocket(url, `Bearer ${created.key}`);
    expect((await raw.closed).code).toBe(4403);
  });
});

describe(`limits on the live surface (${databaseLabel})`, () => {
  it('connections per key are capped (4429 naming the limit); closing one frees its place', async () => {
    const own = uniqueShopId('live-cap');
    await a.load(toDataset(datasetJson(own)));
    const capped = await a.createKey(own, ['read']);
    const open = [];
    for (let i = 0; i < 6; i += 1) open.push(await acknowledgedSocket(url, `Bearer ${capped}`));
    const refused = await rawSocket(url);
    refused.send({ type: 'connection_init', payload: { authorization: `Bearer ${capped}` } });
    expect(await refused.closed).toEqual({ code: 4429, reason: 'Too many connections: this API key holds 6, the limit is 6' });
    open[0]!.socket.close();
    await open[0]!.closed;
    // The server learns of the close a moment after the client: the place is free once it has.
    open.push(await connectOnceFree(`Bearer ${capped}`));
    // The shop's cap counts every key of the shop: 6 + 2 of another key, then 4429.
    const second = await a.createKey(own, ['read']);
    open.push(await acknowledgedSocket(url, `Bearer ${second}`), await acknowledgedSocket(url, `Bearer ${second}`));
    const shopRefused = await rawSocket(url);
    shopRefused.send({ type: 'connection_init', payload: { authorization: `Bearer ${second}` } });
    expect(await shopRefused.closed).toEqual({ code: 4429, reason: 'Too many connections: this shop holds 8, the limit is 8' });
    for (const socket of open) socket.socket.close();
  });

  it('subscriptions per connection are capped: one more is answered with an error for its id, the connection and its subscriptions go on', async () => {
    const raw = await acknowledgedSocket(url, `Bearer ${key}`);
    for (let i = 0; i < 7; i += 1) raw.send({ type: 'subscribe', id: `s${i}`, payload: { query: LEVELS } });
    const error = await raw.take('error');
    expect(error.id).toBe('s6');
    expect(error.payload[0].extensions).toEqual({ code: 'TOO_MANY_SUBSCRIPTIONS', limit: 6 });
    // Completing one frees its place.
    raw.send({ type: 'complete', id: 's0' });
    raw.send({ type: 'subscribe', id: 's7', payload: { query: LEVELS } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await adjust('3');
    const ids = new Set<string>();
    while (ids.size < 6) ids.add((await raw.take('next')).id);
    expect([...ids].sort()).toEqual(['s1', 's2', 's3', 's4', 's5', 's7']);
    raw.socket.close();
  });

  it('subscription documents are validated and priced by the rules of queries: aliases, fragment cycles, depth, unknown fields, cost, input limits', async () => {
    const raw = await acknowledgedSocket(url, `Bearer ${key}`);
    const aliases = Array.from({ length: 200 }, (_, i) => `a${i}: variantId`).join(' ');
    const cases: [string, string, Record<string, unknown>?][] = [
      [`subscription { stockLevelChanged { ${aliases} } }`, 'GRAPHQL_QUERY_TOO_MANY_ALIASES'],
      ['subscription { stockLevelChanged { ...A } } fragment A on StockLevelChange { ...B } fragment B on StockLevelChange { ...A }', 'GRAPHQL_VALIDATION_FAILED'],
      ['subscription { stockLevelChanged { nope } }', 'GRAPHQL_VALIDATION_FAILED'],
      [`subscription { stockLevelChanged ${'{ event '.repeat(60)}${'}'.repeat(61)} }`, 'GRAPHQL_QUERY_TOO_DEEP'],
      ['{ locations { locationId } }', 'GRAPHQL_VALIDATION_FAILED'],
      ['subscription($v: [String!]) { stockLevelChanged(variantIds: $v) { variantId } }', 'INVALID_INPUT', { v: ['x'.repeat(100_000)] }],
    ];
    for (const [index, [query, code, variables]] of cases.entries()) {
      raw.send({ type: 'subscribe', id: `v${index}`, payload: { query, variables } });
      const error = await raw.take('error');
      expect(error.id).toBe(`v${index}`);
      expect(error.payload[0].extensions.code).toBe(code);
    }
    // The refused ids were never taken: one may be used again.
    raw.send({ type: 'subscribe', id: 'v0', payload: { query: LEVELS } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await adjust('4');
    expect((await raw.take('next')).id).toBe('v0');
    raw.socket.close();
  });
});
