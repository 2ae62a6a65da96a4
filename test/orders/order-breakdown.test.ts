import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextDeps } from '../../src/app/composition.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { shopContextFor } from '../../src/kernel/shop-context.ts';
import { toDataset } from '../helpers/dataset-factory.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { orderDataset } from '../helpers/order-dataset.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let key: string;
const shop = uniqueShopId('obd');

const byVariant = (rows: { variantId: string }[], field: string) =>
  Object.fromEntries(rows.map((r: any) => [r.variantId, r[field]]));

beforeAll(async () => {
  t = await createTestApp();
  await t.load(toDataset(orderDataset(shop)));
  key = await t.createKey(shop, ['read']);
});
afterAll(() => t.close());

describe('GET /order-bom-breakdown/{id}', () => {
  it('expands each BOM line to leaf materials with waste through nested assemblies, multiplied by the ordered quantity', async () => {
    const res = await t.get('/api/v1/order-bom-breakdown/5001', key);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ orderId: '5001', orderName: '#1001' });
    expect(new Date(d.generatedAt).toISOString()).toBe(d.generatedAt);
    expect(d.boms.map((b: any) => [b.bomId, b.orderQuantity])).toEqual([['BOM-1', 2], ['BOM-2', 3]]);
    expect(d.boms[0]).toMatchObject({ bomName: 'Large candle', bomImageUrl: 'https://img.example/large.png', bomProductId: '844100', bomVariantId: '44100', bomSku: 'SKU-44100' });
    expect(byVariant(d.boms[0].materials, 'quantity')).toEqual({ '44001': 1.26, '44003': 2, 'VMAT-VAR-WICK': 6, 'VMAT-VAR-DYE': 3.3 });
    expect(byVariant(d.boms[1].materials, 'quantity')).toEqual({ '44001': 0.3, 'VMAT-VAR-WICK': 3, 'VMAT-VAR-DYE': 1.65 });
  });

  it('totalMaterials de-duplicates by variant across BOM lines and depths, with imageUrl, isVirtual and unitCost', async () => {
    const d = (await t.get('/api/v1/order-bom-breakdown/5001', key)).body.data;
    expect(byVariant(d.totalMaterials, 'totalQuantity')).toEqual({ '44001': 1.56, '44003': 2, 'VMAT-VAR-WICK': 9, 'VMAT-VAR-DYE': 4.95 });
    const wick = d.totalMaterials.find((m: any) => m.variantId === 'VMAT-VAR-WICK');
    expect(wick).toMatchObject({ isVirtual: true, unitCost: 0.05, imageUrl: 'https://img.example/WICK.png', title: 'Cotton wick', sku: 'V-WICK' });
    const jar = d.totalMaterials.find((m: any) => m.variantId === '44003');
    expect(jar).toMatchObject({ isVirtual: false, title: 'Jar - 8 oz', productName: 'Jar', variantName: '8 oz', notes: null });
  });

  it('lines without a BOM go to otherItems', async () => {
    const d = (await t.get('/api/v1/order-bom-breakdown/5001', key)).body.data;
    expect(d.otherItems).toEqual([{ variantId: '44999', productId: null, sku: 'GIFT', title: 'Gift card', quantity: 1 }]);
  });

  it('an order with no BOM product is 200 with boms: [] and its lines under otherItems', async () => {
    const d = (await t.get('/api/v1/order-bom-breakdown/5002', key)).body.data;
    expect(d.boms).toEqual([]);
    expect(d.totalMaterials).toEqual([]);
    expect(d.otherItems).toHaveLength(1);
  });

  it('accepts the percent-encoded global id gid://shopify/Order/<digits>', async () => {
    const res = await t.get(`/api/v1/order-bom-breakdown/${encodeURIComponent('gid://shopify/Order/5003')}`, key);
    expect(res.status).toBe(200);
    expect(res.body.data.orderId).toBe('5003');
  });

  it.each([['an unknown order', '9999'], ['a malformed id', 'abc'], ['a global id of another type', encodeURIComponent('gid://shopify/Product/5001')]])(
    '%s is 404 NOT_FOUND', async (_label, id) => {
      const res = await t.get(`/api/v1/order-bom-breakdown/${id}`, key);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });

  it('another shop\'s order is 404', async () => {
    const other = uniqueShopId('obd-other');
    await t.load(toDataset(orderDataset(other)));
    const otherKey = await t.createKey(other, ['read']);
    await t.orm.em.fork().execute(`delete from platform_orders where shop_id = ? and order_id = '5003'`, [other]);
    expect((await t.get('/api/v1/order-bom-breakdown/5003', otherKey)).status).toBe(404);
    expect((await t.get('/api/v1/order-bom-breakdown/5003', key)).status).toBe(200);
  });

  it('locationId expands every bill (nested ones included) with that location\'s rules', async () => {
    const d = (await t.get('/api/v1/order-bom-breakdown/5001?locationId=102', key)).body.data;
    expect(byVariant(d.boms[0].materials, 'quantity')).toEqual({ '44001': 0.42, 'VMAT-VAR-SOY': 1, '44003': 2, 'VMAT-VAR-WICK': 6, 'VMAT-VAR-DYE': 6.6 });
    expect(byVariant(d.boms[1].materials, 'quantity')).toEqual({ '44001': 0.3, 'VMAT-VAR-WICK': 3, 'VMAT-VAR-DYE': 3.3 });
  });

  it('a global-id locationId is 400; an unknown location is 404', async () => {
    const gid = await t.get(`/api/v1/order-bom-breakdown/5001?locationId=${encodeURIComponent('gid://shopify/Location/102')}`, key);
    expect(gid.status).toBe(400);
    expect(gid.body.errors[0].field).toBe('locationId');
    const unknown = await t.get('/api/v1/order-bom-breakdown/5001?locationId=999', key);
    expect(unknown.status).toBe(404);
    expect(unknown.body.missing).toEqual([{ kind: 'location', id: '999' }]);
  });
});

describe('GET /order-bom-breakdown?ids=…', () => {
  it('mixes valid, unknown and malformed ids: 200 with items in request order and notFound as sent', async () => {
    const res = await t.get('/api/v1/order-bom-breakdown?ids=5003,9999&ids=gid://shopify/Order/5001&ids=bogus', key);
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((i: any) => i.orderId)).toEqual(['5003', '5001']);
    expect(res.body.data.notFound).toEqual(['9999', 'bogus']);
  });

  it('the same order twice gives one item', async () => {
    const res = await t.get('/api/v1/order-bom-breakdown?ids=5001,5001&ids=gid://shopify/Order/5001', key);
    expect(res.body.data.items).toHaveLength(1);
    expect(res.body.data.notFound).toEqual([]);
  });

  it('50 ids are accepted; 51 after splitting (duplicates included) is 400 INVALID_INPUT naming ids', async () => {
    const fifty = Array.from({ length: 50 }, () => '5001').join(',');
    expect((await t.get(`/api/v1/order-bom-breakdown?ids=${fifty}`, key)).status).toBe(200);
    const res = await t.get(`/api/v1/order-bom-breakdown?ids=${fifty}&ids=5002`, key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'ids' }] });
  });

  it('no ids is 400', async () => {
    expect((await t.get('/api/v1/order-bom-breakdown', key)).status).toBe(400);
    expect((await t.get('/api/v1/order-bom-breakdown?ids=', key)).status).toBe(400);
  });

  it('locationId applies to every order of the batch', async () => {
    const res = await t.get('/api/v1/order-bom-breakdown?ids=5001&locationId=102', key);
    expect(byVariant(res.body.data.items[0].totalMaterials, 'totalQuantity')).toMatchObject({ 'VMAT-VAR-SOY': 1, 'VMAT-VAR-DYE': 9.9 });
  });

  it('a 50-order batch costs the same number of SQL round trips as a 1-order batch', async () => {
    const big = uniqueShopId('obd-big');
    const json = orderDataset(big) as any;
    json.platform.orders = Array.from({ length: 50 }, (_, i) => ({
      orderId: String(7000 + i), name: `#${7000 + i}`,
      lineItems: [
        { variantId: '44100', productId: '844100', sku: 'SKU-44100', title: 'Large candle', quantity: 1 + (i % 3) },
        { variantId: '44200', productId: '844200', sku: 'SKU-44200', title: 'Small candle', quantity: 2 },
        { variantId: '44999', productId: null, sku: 'GIFT', title: 'Gift card', quantity: 1 },
      ],
    }));
    await t.load(toDataset(json));
    const bigKey = await t.createKey(big, ['read']);
    const one = await t.get('/api/v1/order-bom-breakdown?ids=7000', bigKey);
    const fifty = await t.get(`/api/v1/order-bom-breakdown?ids=${json.platform.orders.map((o: any) => o.orderId).join(',')}`, bigKey);
    expect(fifty.body.data.items).toHaveLength(50);
    expect(Number(fifty.headers['x-query-count'])).toBe(Number(one.headers['x-query-count']));
    expect(Number(one.headers['x-query-count'])).toBeLessThanOrEqual(8);
  });

  it('a batch call spends one rate-limit token regardless of the number of orders, as one order does', async () => {
    // Its own bucket that does not refill during the test, so the tokens spent can be read off the headers.
    const limited = await createTestApp({ orm: t.orm, config: { rateLimitBurst: 1000, rateLimitRefillPerSecond: 0.001 } });
    try {
      const remaining = async (ids: string[]) => {
        const res = await limited.request({ method: 'GET', url: `/api/v1/order-bom-breakdown?ids=${ids.join(',')}`, key });
        expect(res.statusCode).toBe(200);
        return Number(res.headers['ratelimit-remaining']);
      };
      const afterOne = await remaining(['5001']);
      expect(afterOne).toBe(999);
      const afterBatch = await remaining(Array.from({ length: 50 }, () => '5001'));
      expect(afterOne - afterBatch).toBe(1);
    } finally {
      await limited.close();
    }
  });
});

describe('order metafield <namespace>.material_requirements_json (opt-in)', () => {
  const read = async (shopId: string) => {
    const ctx = shopContextFor(contextDeps(t.orm, t.config), shopId, { requestId: 'test', apiKeyId: null, scopes: ['read'] });
    return ctx.platform.readOrderMetafields(['5001', '5002', '5003'], 'bomcore', 'material_requirements_json');
  };

  it('when the shop enables it, loading the orders writes the boms + totalMaterials document to every order', async () => {
    const on = uniqueShopId('mf-on');
    const result = await importDataset(contextDeps(t.orm, t.config), toDataset(orderDataset(on, { metafield: true })));
    expect(result.metafields).toMatchObject({ enabled: true, written: 3 });
    const fields = await read(on);
    expect(fields.map((f) => f.orderId)).toEqual(['5001', '5002', '5003']);
    const doc = fields[0]!.value as any;
    expect(Object.keys(doc)).toEqual(['boms', 'totalMaterials']);
    const onKey = await t.createKey(on, ['read']);
    const live = (await t.get('/api/v1/order-bom-breakdown/5001', onKey)).body.data;
    expect(doc.boms).toEqual(live.boms);
    expect(doc.totalMaterials).toEqual(live.totalMaterials);
  });

  it('when the shop does not enable it, nothing is written', async () => {
    const off = uniqueShopId('mf-off');
    const result = await importDataset(contextDeps(t.orm, t.config), toDataset(orderDataset(off, { metafield: false })));
    expect(result.metafields).toMatchObject({ enabled: false, written: 0 });
    expect(await read(off)).toEqual([]);
  });

  it('the endpoint never depends on the metafield: it reflects the current lines after they change', async () => {
    const on = uniqueShopId('mf-live');
    await importDataset(contextDeps(t.orm, t.config), toDataset(orderDataset(on, { metafield: true })));
    await t.orm.em.fork().execute(`update platform_order_lines set quantity = 10 where shop_id = ? and order_id = '5003'`, [on]);
    const onKey = await t.createKey(on, ['read']);
    const live = (await t.get('/api/v1/order-bom-breakdown/5003', onKey)).body.data;
    expect(live.boms[0].orderQuantity).toBe(10);
  });
});

describe('GraphQL mutation syncOrderMaterialRequirements (on demand)', () => {
  it('rewrites the metafield from the current lines with a write key, and needs the write scope', async () => {
    const on = uniqueShopId('mf-gql');
    await importDataset(contextDeps(t.orm, t.config), toDataset(orderDataset(on, { metafield: true })));
    await t.orm.em.fork().execute(`update platform_order_lines set quantity = 7 where shop_id = ? and order_id = '5003'`, [on]);
    const readOnly = await t.createKey(on, ['read']);
    const mutation = { query: 'mutation { syncOrderMaterialRequirements(orderIds: ["gid://shopify/Order/5003"]) { materialRequirementsSync { enabled written } userErrors { code } } }' };
    const denied = await t.request({ method: 'POST', url: '/graphql', key: readOnly, payload: mutation });
    expect(denied.json().errors[0].extensions.code).toBe('FORBIDDEN_SCOPE');
    const writeKey = await t.createKey(on, ['read', 'write']);
    const res = await t.request({ method: 'POST', url: '/graphql', key: writeKey, payload: mutation });
    expect(res.json().data.syncOrderMaterialRequirements).toEqual({ materialRequirementsSync: { enabled: true, written: 1 }, userErrors: [] });
    const ctx = shopContextFor(contextDeps(t.orm, t.config), on, { requestId: 'test', apiKeyId: null, scopes: ['read'] });
    const [field] = await ctx.platform.readOrderMetafields(['5003'], 'bomcore', 'material_requirements_json');
    expect((field!.value as any).boms[0].orderQuantity).toBe(7);
  });
});
