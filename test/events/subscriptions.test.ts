import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, openTestOrm, uniqueShopId } from '../helpers/database.ts';
import { datasetJson, toDataset } from '../helpers/dataset-factory.ts';
import { graphqlCaller, outcome, USER_ERRORS } from '../helpers/graphql-payloads.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { subscribe as subscribeLive } from '../helpers/live-sockets.ts';
import { workOrderShop } from '../helpers/work-order-fixtures.ts';

// Issue 22 items 5 and 6: GraphQL subscriptions over graphql-ws on /graphql. Two instances on one
// database, each listening on a real port: a build run started through instance A reaches a
// graphql-ws subscriber of instance B; the key is checked on connection_init; a subscriber sees its
// key's shop only; stockLevelChanged keeps only the variants asked for.

let a: TestApp;
let b: TestApp;
let urlB: string;
const shop = uniqueShopId('live');
const other = uniqueShopId('live-other');
let key: string;
let otherKey: string;
const clients: Client[] = [];

const gql = graphqlCaller(() => a, () => key);

beforeAll(async () => {
  // Each instance with its own connections (on PostgreSQL its own pool and LISTEN connection).
  a = await createTestApp({ orm: await openTestOrm() });
  b = await createTestApp({ orm: await openTestOrm() });
  await a.load(toDataset(workOrderShop(shop, [])));
  await a.load(toDataset(datasetJson(other)));
  key = await a.createKey(shop, ['read', 'write']);
  otherKey = await a.createKey(other, ['read', 'write']);
  await b.app.listen({ port: 0, host: '127.0.0.1' });
  urlB = `ws://127.0.0.1:${(b.app.server.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await a.close();
  await b.close();
  await a.orm.close();
  await b.orm.close();
});

/** A graphql-ws client of instance B, its key in connection_init. */
function clientOfB(authorization: string): Client {
  const client = createClient({ url: urlB, connectionParams: { authorization }, retryAttempts: 0, lazy: true });
  clients.push(client);
  return client;
}

/** Subscribes; resolves once the server has had time to register it (graphql-ws acknowledges no subscription). */
const subscribe = (client: Client, query: string, variables: Record<string, unknown> = {}) => subscribeLive(client, query, variables, 500);

const CREATE = `mutation Create($input: CreateWorkOrderInput!) { createWorkOrder(input: $input) { createdWorkOrder { workOrderId updatedAt } ${USER_ERRORS} } }`;

async function createWorkOrder(k: string, bomId: string): Promise<{ id: string; token: string }> {
  const { result, failure } = outcome(await gql(CREATE, { input: { name: 'Live', sourceType: 'bom', items: [{ bomId, quantity: '5' }], productionLocationId: '101' } }, k), 'createWorkOrder');
  expect(failure).toBeNull();
  return { id: result.workOrderId, token: result.updatedAt };
}

describe(`GraphQL subscriptions across instances (${databaseLabel})`, () => {
  it('a graphql-ws subscriber on instance B sees a build run started through instance A, and only its own shop\'s changes', async () => {
    const { id, token } = await createWorkOrder(key, 'BOM-2000');
    const runs = await subscribe(clientOfB(`Bearer ${key}`), 'subscription($id: String!) { buildRunChanged(workOrderId: $id) { workOrderId buildRunId event { type sequence data } } }', { id });
    const levels = await subscribe(clientOfB(`Bearer ${key}`), 'subscription { stockLevelChanged { variantId locationId before after delta source buildRunId } }');
    const stranger = await subscribe(clientOfB(`Bearer ${otherKey}`), 'subscription { workOrderChanged { workOrderId status } }');

    const moved = outcome(await gql(`mutation($id: ID!, $token: DateTime!) { transitionWorkOrder(workOrderId: $id, expectedUpdatedAt: $token, to: in_progress) { workOrderTransition { updatedAt } ${USER_ERRORS} } }`,
      { id, token }), 'transitionWorkOrder');
    expect(moved.failure).toBeNull();
    const started = outcome(await gql(`mutation($id: ID!, $token: DateTime!) { startBuildRun(workOrderId: $id, expectedUpdatedAt: $token, buildRunId: "run-live",
      items: [{ itemId: "woi_1", quantity: "5" }]) { buildRun { status } ${USER_ERRORS} } }`, { id, token: moved.result.updatedAt }), 'startBuildRun');
    expect(started.failure).toBeNull();

    const run = await runs.next();
    expect(run.errors).toBeUndefined();
    expect(run.data.buildRunChanged).toMatchObject({ workOrderId: id, buildRunId: 'run-live', event: { type: 'BUILD_RUN_STARTED' } });
    expect(JSON.parse(run.data.buildRunChanged.event.data)).toMatchObject({ workOrderId: id, buildRunId: 'run-live' });
    const level = await levels.next();
    expect(level.data.stockLevelChanged).toMatchObject({ source: 'build_run', buildRunId: 'run-live' });

    // The other shop's subscriber got nothing of this shop; its own change reaches it first.
    const own = await createWorkOrder(otherKey, 'BOM-1001');
    const first = await stranger.next();
    expect(first.data.workOrderChanged).toEqual({ workOrderId: own.id, status: 'draft' });
  });

  it('stockLevelChanged(variantIds, locationIds) sends the moves of those variants at those locations only, with exact decimals', async () => {
    const only = await subscribe(clientOfB(`Bearer ${key}`), 'subscription($v: [String!], $l: [String!]) { stockLevelChanged(variantIds: $v, locationIds: $l) { variantId locationId delta } }',
      { v: ['VMAT-VAR-0002'], l: ['101'] });
    const everything = await subscribe(clientOfB(`Bearer ${key}`), 'subscription { stockLevelChanged { variantId locationId delta } }');
    const adjust = async (variantId: string, locationId: string, delta: string) => {
      const body = await gql('mutation($id: ID!, $u: [RawMaterialInventoryUpdateInput!]!) { adjustRawMaterialInventory(variantId: $id, updates: $u) { rawMaterialInventoryBatch { okCount } userErrors { code message } } }',
        { id: variantId, u: [{ locationId, delta }] });
      expect(body.data.adjustRawMaterialInventory.userErrors).toEqual([]);
    };
    await adjust('VMAT-VAR-0001', '101', '1');
    await adjust('VMAT-VAR-0002', '102', '1');
    await adjust('VMAT-VAR-0002', '101', '0.000001');
    const seen = [await everything.next(), await everything.next(), await everything.next()].map((m) => m.data.stockLevelChanged);
    expect(seen).toEqual([
      { variantId: 'VMAT-VAR-0001', locationId: '101', delta: '1' },
      { variantId: 'VMAT-VAR-0002', locationId: '102', delta: '1' },
      { variantId: 'VMAT-VAR-0002', locationId: '101', delta: '0.000001' },
    ]);
    // Events reach a subscription in sequence order: its first being the third move means the two before were filtered out.
    expect((await only.next()).data.stockLevelChanged).toEqual({ variantId: 'VMAT-VAR-0002', locationId: '101', delta: '0.000001' });
    expect(only.received).toEqual([]);
  });

  it('a connection_init without a valid key is refused and runs nothing', async () => {
    for (const authorization of ['Bearer bck_not-a-key', '']) {
      const refused = await subscribe(clientOfB(authorization), 'subscription { stockLevelChanged { variantId } }');
      // Closed with 4403 as graphql-transport-ws says; the client reports the close event (issue 33 item 3).
      const closed = await refused.failure as { code: number; reason: string };
      expect(closed.code).toBe(4403);
      expect(closed.reason).toMatch(/^Forbidden: /);
      expect(refused.received).toEqual([]);
    }
  });

  it('a plain GET /graphql naming an upgrade in its headers is no WebSocket: it still needs its key (401)', async () => {
    const res = await b.request({ method: 'GET', url: '/graphql?query=%7B__typename%7D', headers: { upgrade: 'websocket', connection: 'Upgrade' } });
    expect(res.statusCode).toBe(401);
  });

  it('a subscription outlives the request deadline (a socket is not a request): a move long after it subscribed still arrives', async () => {
    const short = await createTestApp({ orm: await openTestOrm(), config: { requestDeadlineMs: 300 } });
    try {
      await short.app.listen({ port: 0, host: '127.0.0.1' });
      const client = createClient({ url: `ws://127.0.0.1:${(short.app.server.address() as AddressInfo).port}/graphql`, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0, lazy: true });
      clients.push(client);
      const moves = await subscribe(client, 'subscription { stockLevelChanged(variantIds: ["VMAT-VAR-0001"]) { variantId delta } }');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const body = await gql('mutation($id: ID!, $u: [RawMaterialInventoryUpdateInput!]!) { adjustRawMaterialInventory(variantId: $id, updates: $u) { userErrors { code } } }',
        { id: 'VMAT-VAR-0001', u: [{ locationId: '101', delta: '2' }] });
      expect(body.data.adjustRawMaterialInventory.userErrors).toEqual([]);
      const move = await Promise.race([moves.next(), moves.failure.then((error) => ({ failed: error }))]);
      expect(move).toMatchObject({ data: { stockLevelChanged: { variantId: 'VMAT-VAR-0001', delta: '2' } } });
    } finally {
      await short.close();
      await short.orm.close();
    }
  });

  it('a subscription sent over HTTP is refused as GRAPHQL_VALIDATION_FAILED naming graphql-ws (it would otherwise run once as a query with no event)', async () => {
    const res = await a.graphql(key, 'subscription { stockLevelChanged { variantId } }');
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('graphql-ws'), extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) })]);
    // Refused before it runs: no statement of its own.
    expect(res.statements).toBe(0);
  });
});
