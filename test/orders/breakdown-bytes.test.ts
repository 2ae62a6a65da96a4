import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/dataset/generate.ts';
import { uniqueShopId } from '../helpers/database.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Rule (issue 32 item 2): computing a batch's breakdowns once per distinct BOM and location changes
// no byte of the answer. The digests below are of the answers the code gave before that change
// (commit c9607fe), on this fixed generated shop; only the request id and generatedAt (a clock
// reading) are blanked.
const shop = uniqueShopId('obb');
let t: TestApp;
let key: string;
let orderIds: string[];
let locationId: string;

beforeAll(async () => {
  t = await createTestApp();
  const dataset = generateDataset({ materials: 300, boms: 30, depth: 3, locations: 3, workOrders: 12, orders: 60, seed: 7, shopId: shop });
  await t.load(dataset);
  key = await t.createKey(shop, ['read']);
  orderIds = dataset.platform.orders.slice(0, 50).map((o) => o.orderId);
  locationId = dataset.platform.locations[1]!.id;
});
afterAll(() => t.close());

/** The answer's bytes with the request id and each generatedAt blanked, as length and sha256. */
async function digest(url: string): Promise<string> {
  const res = await t.request({ method: 'GET', url, key });
  expect(res.statusCode).toBe(200);
  const text = res.body.replace(/"generatedAt":"[^"]*"/g, '"generatedAt":""').replace(/"requestId":"[^"]*"/, '"requestId":""');
  return `${Buffer.byteLength(text)} ${createHash('sha256').update(text).digest('hex')}`;
}

describe('the order breakdown batch answers the same bytes as before it computed each BOM once', () => {
  it('base recipes, 50 orders', async () => {
    expect(await digest(`/api/v1/order-bom-breakdown?ids=${orderIds.join(',')}`)).toBe('354297 3c0ad1ecbd4bd6dd15a8dd24b84b38b38acaee8479904598c309679b32f019ee');
  });
  it('one location\'s rules applied, 50 orders', async () => {
    expect(await digest(`/api/v1/order-bom-breakdown?ids=${orderIds.join(',')}&locationId=${encodeURIComponent(locationId)}`)).toBe('357254 ec4d03ba8a3927b9e0ec2d9c13ddd096ced004a9c0104448bf8a2a1cc62f2767');
  });
  it('one order', async () => {
    expect(await digest(`/api/v1/order-bom-breakdown/${orderIds[0]}`)).toBe('9023 7ba39b9fcdb3b8ca224ec725031328d3e2846b45860e3910fc242e79b3cbc4f2');
  });
});
