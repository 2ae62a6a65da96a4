import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/kernel/config.ts';
import { EVENT_TOPICS } from '../../src/modules/events/event-vocabulary.ts';
import { postWebhook } from '../../src/modules/events/webhook-dispatcher.ts';
import { checkWebhookUrl, isRefusedAddress } from '../../src/modules/events/webhook-targets.ts';
import { databaseLabel, uniqueShopId } from '../helpers/database.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { T0, workOrder, workOrderShop } from '../helpers/work-order-fixtures.ts';

// Issue 22 items 1, 2 and 4: events written in the transaction of their change (a refused write
// leaves none), in the shop's sequence; endpoints managed through GraphQL with the secret shown
// once; SSRF targets refused (by URL when saved, by resolved address at connection).

let t: TestApp;
let key: string;
let readKey: string;
const shop = uniqueShopId('wh-gql');
const base = loadConfig({});

beforeAll(async () => {
  t = await createTestApp({ config: { secretKey: randomBytes(32).toString('hex'), webhooks: { ...base.webhooks, requireHttps: true, allowPrivate: false } } });
  await t.load(toDatasetOf(shop));
  key = await t.createKey(shop, ['read', 'write']);
  readKey = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

function toDatasetOf(shopId: string) {
  return toDataset(workOrderShop(shopId, [workOrder('wo_a', 'draft')]));
}

async function events(shopId: string): Promise<{ sequence: number; type: string; resource: string; data: any }[]> {
  const rows = await t.orm.em.fork().execute<{ sequence: string; type: string; resource: string; data: string }[]>(
    'select sequence, type, resource, data from events where shop_id = ? order by sequence', [shopId]);
  return rows.map((r) => ({ sequence: Number(r.sequence), type: r.type, resource: r.resource, data: JSON.parse(r.data) }));
}

const CREATE = `mutation($url: String!, $topics: [WebhookTopic!]!) { createWebhookEndpoint(url: $url, topics: $topics) {
  webhookEndpointSecret { secret endpoint { endpointId url topics enabled } } userErrors { code message field } } }`;

describe(`webhook endpoints over GraphQL on ${databaseLabel}`, () => {
  it('the WebhookTopic enum has every topic of the vocabulary, and createWebhookEndpoint answers the secret once (webhookEndpoints never shows it)', async () => {
    const created = await t.graphql(key, CREATE, { url: 'https://hooks.example.com/bomcore', topics: ['INVENTORY_LEVEL_CHANGED', 'WORK_ORDER_TRANSITIONED'] });
    expect(created.body.errors).toBeUndefined();
    const payload = created.body.data.createWebhookEndpoint;
    expect(payload.userErrors).toEqual([]);
    expect(payload.webhookEndpointSecret.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(payload.webhookEndpointSecret.endpoint).toMatchObject({ url: 'https://hooks.example.com/bomcore', topics: ['INVENTORY_LEVEL_CHANGED', 'WORK_ORDER_TRANSITIONED'], enabled: true });
    const listed = await t.graphql(readKey, '{ webhookEndpoints { endpointId topics recentDeliveries { topic status } } }');
    expect(listed.body.data.webhookEndpoints).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const topics = await t.graphql(key, '{ __type(name: "WebhookTopic") { enumValues { name } } }');
    expect(topics.body.data.__type.enumValues).toHaveLength(EVENT_TOPICS.length);
  });

  it('a read-only key cannot create endpoints (write scope)', async () => {
    const refused = await t.graphql(readKey, CREATE, { url: 'https://hooks.example.com/x', topics: ['BOM_UPDATED'] });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN_SCOPE');
  });

  it('SSRF: http in production, loopback, private, link-local, unique-local and v4-mapped targets are refused as userErrors', async () => {
    for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://localhost/x', 'https://10.1.2.3/x', 'https://169.254.169.254/latest',
      'https://[::1]/x', 'https://[fd00::1]/x', 'https://[::ffff:127.0.0.1]/x', 'https://192.168.1.10/x', 'https://user:pw@hooks.example.com/x']) {
      const refused = await t.graphql(key, CREATE, { url, topics: ['BOM_UPDATED'] });
      expect(refused.body.data.createWebhookEndpoint.userErrors[0]?.code, url).toBe('INVALID_INPUT');
    }
    expect(['8.8.8.8', '2606:4700::1111'].map(isRefusedAddress)).toEqual([false, false]);
    expect(() => checkWebhookUrl('https://127.0.0.1/x', { requireHttps: true, allowPrivate: true })).not.toThrow();
  });

  it('SSRF at connection: a host name that resolves to a loopback address is refused before connecting', async () => {
    const outcome = await postWebhook('http://localhost:9/x', {}, '{}', { timeoutMs: 2000, allowPrivate: false });
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/loopback, private or link-local/);
  });

  it('a transition writes work_order.transitioned (from, to, lifecycleEventId) in its transaction, numbered in the shop sequence; a refused one writes nothing', async () => {
    const before = await events(shop);
    const move = `mutation($to: WorkOrderStatus!) { transitionWorkOrder(workOrderId: "wo_a", expectedUpdatedAt: "${T0}", to: $to) {
      workOrderTransition { lifecycleEventId } userErrors { code } } }`;
    const refused = await t.graphql(key, move, { to: 'completed' });
    expect(refused.body.data.transitionWorkOrder.userErrors[0].code).toBe('CONFLICT');
    expect(await events(shop)).toEqual(before);
    const done = await t.graphql(key, move, { to: 'ready' });
    const lifecycleEventId = done.body.data.transitionWorkOrder.workOrderTransition.lifecycleEventId;
    const after = await events(shop);
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ sequence: (before.at(-1)?.sequence ?? 0) + 1, type: 'work_order.transitioned', resource: 'work_order:wo_a',
      data: { workOrderId: 'wo_a', from: 'draft', to: 'ready', lifecycleEventId } });
    const deliveries = await t.graphql(key, '{ webhookEndpoints { recentDeliveries { topic status sequence } } }');
    expect(deliveries.body.data.webhookEndpoints[0].recentDeliveries).toEqual([{ topic: 'WORK_ORDER_TRANSITIONED', status: 'pending', sequence: String(after.at(-1)!.sequence) }]);
  });

  it('an inventory change writes inventory.level_changed with before and after as exact JSON numbers', async () => {
    const adjusted = await t.graphql(key, `mutation { adjustRawMaterialInventory(variantId: "VMAT-VAR-0001", updates: [{ locationId: "101", delta: "0.000001" }]) {
      rawMaterialInventoryBatch { okCount } userErrors { code } } }`);
    expect(adjusted.body.data.adjustRawMaterialInventory.userErrors).toEqual([]);
    const rows = await t.orm.em.fork().execute<{ data: string }[]>(`select data from events where shop_id = ? and type = 'inventory.level_changed' order by sequence desc limit 1`, [shop]);
    expect(rows[0]!.data).toContain('"before":500,"after":500.000001,"delta":0.000001');
    expect(JSON.parse(rows[0]!.data)).toMatchObject({ variantId: 'VMAT-VAR-0001', locationId: '101', source: 'api' });
  });

  it('update, replay and delete an endpoint', async () => {
    const listed = await t.graphql(key, '{ webhookEndpoints { endpointId recentDeliveries { deliveryId } } }');
    const endpoint = listed.body.data.webhookEndpoints[0];
    const updated = await t.graphql(key, `mutation { updateWebhookEndpoint(endpointId: "${endpoint.endpointId}", enabled: false, topics: [BOM_UPDATED]) {
      webhookEndpoint { enabled topics disabledReason } userErrors { code } } }`);
    expect(updated.body.data.updateWebhookEndpoint.webhookEndpoint).toEqual({ enabled: false, topics: ['BOM_UPDATED'], disabledReason: 'disabled by a client' });
    const replayed = await t.graphql(key, `mutation { replayWebhookDelivery(deliveryId: "${endpoint.recentDeliveries[0].deliveryId}") { webhookDelivery { status attempts } userErrors { code } } }`);
    expect(replayed.body.data.replayWebhookDelivery.webhookDelivery).toEqual({ status: 'pending', attempts: 0 });
    const deleted = await t.graphql(key, `mutation { deleteWebhookEndpoint(endpointId: "${endpoint.endpointId}") { deletedWebhookEndpoint { endpointId } userErrors { code } } }`);
    expect(deleted.body.data.deleteWebhookEndpoint.deletedWebhookEndpoint.endpointId).toBe(endpoint.endpointId);
    const again = await t.graphql(key, `mutation { deleteWebhookEndpoint(endpointId: "${endpoint.endpointId}") { userErrors { code } } }`);
    expect(again.body.data.deleteWebhookEndpoint.userErrors[0].code).toBe('NOT_FOUND');
  });
});
